"""The tracker replica, Jira Cloud's REST API: issues, workflows, JQL, sprints.

Exports :data:`SPEC` (built on first access, in ``spec.py``); work in progress (issue 14):
/work/notes/issue14_plan.md.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "SPEC":
        from .spec import SPEC

        return SPEC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SPEC"]
