"""The fault proxy: the agent's only way into the replicas.

Exports :class:`Proxy` (imported on first access: the gym API, which only reaches replicas
through :mod:`workgym_proxy.upstream`, never loads the proxy and its faults).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .proxy import Proxy


def __getattr__(name: str) -> Any:
    if name == "Proxy":
        from .proxy import Proxy

        return Proxy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Proxy"]
