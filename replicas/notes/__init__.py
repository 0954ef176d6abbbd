"""Notes: the company's shared notes about the people it deals with. A framework app: it
exists to keep the runtime generic (a second app in every test run, and in cross-app tasks
with the helpdesk), not to be trained on (replicas.catalog.FRAMEWORK_APPS).

Exports :data:`SPEC` (built on first access, in ``spec.py``).
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "SPEC":
        from .spec import SPEC

        return SPEC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SPEC"]
