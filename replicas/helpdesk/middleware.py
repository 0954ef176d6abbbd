"""Zendesk's wire conventions the routes do not see: a path may end in ``.json``
(``/api/v2/tickets/1.json`` is ``/api/v2/tickets/1``), as every Zendesk client sends it.
Only the API's paths: the runtime's own (``/openapi.json``) are left alone."""

from __future__ import annotations

from workgym_core.asgi import ASGIApp, Receive, Scope, Send


class JsonSuffix:
    """Pure-ASGI: drop a ``.json`` suffix from the request path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path.startswith("/api/") and path.endswith(".json"):
            raw = scope.get("raw_path") or scope["path"].encode()
            scope = {**scope, "path": scope["path"][:-5],
                     "raw_path": raw[:-5] if raw.endswith(b".json") else raw}
        await self.app(scope, receive, send)
