"""How a browser logs in to the pages: a page asked for without credentials answers 401 with
a form for the API key; ``POST /login`` with the right key sets the session cookie (derived
from the key, never the key) and goes back to the page (a path of this site only)."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from workgym_core import credentials
from workgym_core.pages import cross_site

from . import render
from .auth import SESSION_COOKIE, session_cookie
from .deps import SettingsDep
from .errors import CHALLENGE, LinkExpiredPage, LoginRequired
from .pages import html

router = APIRouter(include_in_schema=False)

_FORM_BYTES = 4096


def safe_next(target: str | None) -> str:
    """``target`` when it is a path of this site, else ``/``: never another site's URL."""
    if (not target or not target.startswith("/") or target.startswith("//") or "\\" in target
            or any(ord(c) < 0x21 or ord(c) == 0x7F for c in target)):
        return "/"
    parts = urlsplit(target)
    return "/" if parts.scheme or parts.netloc else target


def _field(form: dict[str, list[str]], name: str) -> str | None:
    values = form.get(name)
    return values[0] if values else None


def _login_page(next_path: str, message: str | None = None, *, status_code: int = 200,
                headers: dict[str, str] | None = None) -> HTMLResponse:
    return html(render.login(safe_next(next_path), message), status_code, headers)


@router.get("/login")
def login_form(next: str = "/") -> HTMLResponse:
    return _login_page(next)


@router.post("/login")
async def log_in(request: Request, settings: SettingsDep) -> Response:
    body = await request.body()
    try:
        form = parse_qs(body.decode("utf-8", "replace"), max_num_fields=8) \
            if len(body) <= _FORM_BYTES else {}
    except ValueError:
        form = {}
    target = safe_next(_field(form, "next"))
    if reason := cross_site(request.method, request.scope["headers"]):
        return _login_page(target, f"Refused: {reason}.", status_code=403)
    if not credentials.matches(_field(form, "api_key"), settings.api_key):
        return _login_page(target, "That is not the API key.", status_code=401,
                           headers=CHALLENGE)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(SESSION_COOKIE, session_cookie(settings, time.time()),
                        max_age=settings.session_ttl_s, path="/", httponly=True,
                        samesite="strict", secure=request.url.scheme == "https")
    return response


async def _login_required(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LoginRequired | LinkExpiredPage)
    query = request.url.query if isinstance(exc, LoginRequired) else ""  # not the dead link
    return _login_page(request.url.path + (f"?{query}" if query else ""),
                       exc.message if isinstance(exc, LinkExpiredPage) else None,
                       status_code=exc.status_code, headers=exc.headers)


def install(app: FastAPI) -> None:
    """The login routes, and the login page as the answer to every LoginRequired (and to a
    page's expired link, saying so)."""
    app.include_router(router)
    app.add_exception_handler(LoginRequired, _login_required)
    app.add_exception_handler(LinkExpiredPage, _login_required)
