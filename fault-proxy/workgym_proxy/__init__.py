"""The fault proxy: the agent's only way into the replicas."""

from .proxy import Proxy

__all__ = ["Proxy"]
