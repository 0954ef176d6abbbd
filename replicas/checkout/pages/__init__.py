"""The checkout's pages: the shop's checkout in a browser (cart, shipping, payment,
confirmation) and the test 3-D Secure challenge, server-rendered HTML on the episode's own
state, through the same proxy, recorded step by step like any other request (routes.py).
Outside the agent's OpenAPI: they are pages, not API operations."""

from __future__ import annotations

from .routes import router

__all__ = ["router"]
