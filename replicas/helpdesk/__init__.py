"""The helpdesk replica, Zendesk Support's API v2: tickets, users, business rules, help center.

Exports :data:`SPEC` (built on first access, in ``spec.py``: importing this package, e.g.
for its actors model, imports no routes); see README.md for entities, rules, API and the
data's mess.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "SPEC":
        from .spec import SPEC

        return SPEC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SPEC"]
