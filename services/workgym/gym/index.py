"""``GET /`` of the gym API: to a browser, a small page of where things are; to an API
client, the JSON 404 of any path the API does not serve."""

from __future__ import annotations

from html import escape

from fastapi import Request
from fastapi.responses import HTMLResponse
from starlette.exceptions import HTTPException

from workgym_core.pages import PAGE_HEADERS, wants_html
from workgym_core.settings import Settings


def page(settings: Settings) -> str:
    links = [("/docs", "API reference (episodes, tasks, faults)"),
             ("/openapi.json", "OpenAPI description"),
             ("/healthz", "health")]
    if settings.telemetry_url:
        links.append((settings.telemetry_url, "telemetry: recent episodes and their pages"))
    items = "".join(f"<li><a href='{escape(href)}'>{escape(text)}</a></li>"
                    for href, text in links)
    return ("<!doctype html><html lang=en><head><meta charset=utf-8><title>WorkGym</title>"
            "</head><body style='font:14px/1.5 system-ui,sans-serif;margin:24px'>"
            "<h1>WorkGym</h1><p>Episodes of enterprise-software replicas for training and "
            "evaluating agents. Every call but <code>/healthz</code> takes "
            "<code>Authorization: Bearer &lt;API key or episode token&gt;</code>; an "
            "episode's apps are at <code>/apps/&lt;app&gt;/</code>, its tools at "
            f"<code>/mcp</code>.</p><ul>{items}</ul></body></html>")


async def index(request: Request) -> HTMLResponse:
    if not wants_html(request.headers.get("accept")):
        raise HTTPException(404)  # answered as every unknown path is
    return HTMLResponse(page(request.app.state.settings), headers=PAGE_HEADERS)
