"""How the pages answer: Jinja templates (``templates/``) with every value escaped, links
relative to the page, the headers that keep every WorkGym page to itself
(``workgym_core.pages``), and refusals shown as pages.

The pages are served under whatever prefix the proxy gives the app (``/apps/checkout``), which
the app never sees: every link and redirect is relative (:func:`href`), from the page's own
path inside the app to another.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from workgym_core import money
from workgym_core.errors import WorkGymError
from workgym_core.pages import PAGE_HEADERS


def with_query(url: str, **query: Any) -> str:
    """``url`` with ``query``'s non-empty values added to its own."""
    params = urlencode({k: v for k, v in query.items() if v not in (None, "")})
    return f"{url}{'&' if '?' in url else '?'}{params}" if params else url


def href(current: str, target: str, **query: Any) -> str:
    """A relative link from the page at ``current`` to ``target`` (both paths inside the app;
    ``target`` may carry a query), with ``query`` added."""
    return with_query("../" * (current.count("/") - 1) + target.lstrip("/"), **query)


def amount(value: int, currency: str) -> str:
    """An amount as the shop shows it: ``$129.00``, ``¥12,800``."""
    return money.format_symbol(value, currency)


@cache
def _templates() -> Environment:
    return Environment(loader=FileSystemLoader(Path(__file__).with_name("templates")),
                       autoescape=select_autoescape(default=True), undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True)


def page(request: Request, template: str, status_code: int = 200, **context: Any
         ) -> HTMLResponse:
    """``template`` rendered with ``context``, ``link(target, **query)`` (:func:`href` from this
    page) and ``amount``."""
    current = request.url.path

    def link(target: str, **query: Any) -> str:
        return href(current, target, **query)

    body = _templates().get_template(template).render(link=link, amount=amount, **context)
    return HTMLResponse(body, status_code=status_code, headers=PAGE_HEADERS)


def redirect(request: Request, target: str, **query: Any) -> Response:
    """303 to ``target`` (a path inside the app), relative to this page."""
    return see_other(href(request.url.path, target, **query))


def see_other(location: str) -> Response:
    return Response(status_code=303, headers={**PAGE_HEADERS, "location": location})


class PageRoute(APIRoute):
    """A page's route: a refusal raised by its handler is answered as a page saying why (a
    checkout error's message and status; a link or form the shop did not make is 400). Such
    a refusal happens before the page writes anything: a page runs its writes through
    ``routes.attempt``, which undoes a refused one and returns its error."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            try:
                return await handler(request)
            except WorkGymError as exc:
                return page(request, "error.html", exc.status_code, message=exc.message)
            except (RequestValidationError, ValidationError):
                return page(request, "error.html", 400,
                            message="This link or form is not one of the shop's.")

        return handle
