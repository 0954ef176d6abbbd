"""The checkout replica: the shop's payments on a Stripe-compatible API.

Exports :data:`SPEC` (built on first access, in ``spec.py``: importing this package imports no
routes); see README.md for the endpoints and Stripe's reference for each, the rules and the
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
