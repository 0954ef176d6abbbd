"""The tracker's pages: the sprint board in a browser (columns by status category, issue
cards, the transitions the workflow offers each card), server-rendered HTML on the episode's
own state, through the same proxy, recorded step by step like any other request
(routes.py). Outside the agent's OpenAPI: they are pages, not API operations."""

from __future__ import annotations

from .routes import router

__all__ = ["router"]
