"""WorkGym: enterprise-software replicas for training and evaluating agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .sdk import Env, Observation, connect, make

__all__ = ["Env", "Observation", "connect", "make"]


def __getattr__(name: str) -> Any:
    # Lazy: importing workgym (e.g. for the CLI's --help) loads no web stack.
    if name in __all__:
        from . import sdk

        return getattr(sdk, name)
    raise AttributeError(name)
