"""What a replica's browser pages share: Jinja templates (the app's own ``templates/``)
with every value escaped, links relative to the page, the headers that keep every WorkGym
page to itself (``workgym_core.pages``), and refusals shown as pages.

Pages are served under whatever prefix the proxy gives the app (``/apps/checkout``), which
the app never sees: every link and redirect is relative (:func:`href`), from the page's own
path inside the app to another.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

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


def redirect(request: Request, target: str, **query: Any) -> Response:
    """303 to ``target`` (a path inside the app), relative to this page."""
    return see_other(href(request.url.path, target, **query))


def see_other(location: str) -> Response:
    return Response(status_code=303, headers={**PAGE_HEADERS, "location": location})


class Pages:
    """An app's page renderer: its templates folder and the helpers its templates use
    besides ``link(target, **query)`` (:func:`href` from the page)."""

    def __init__(self, templates: Path, **helpers: Any) -> None:
        self.env = Environment(loader=FileSystemLoader(templates),
                               autoescape=select_autoescape(default=True),
                               undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
        self.helpers = helpers

    def page(self, request: Request, template: str, status_code: int = 200,
             **context: Any) -> HTMLResponse:
        """``template`` rendered with ``context``, ``link`` and the helpers."""
        current = request.url.path

        def link(target: str, **query: Any) -> str:
            return href(current, target, **query)

        body = self.env.get_template(template).render(link=link, **self.helpers, **context)
        return HTMLResponse(body, status_code=status_code, headers=PAGE_HEADERS)

    def route_class(self, foreign: str) -> type[APIRoute]:
        """The route class of the app's pages: a refusal raised by a handler is answered as
        the page ``error.html`` saying why (the error's message and status); a link or form
        the app did not make (``foreign`` says so) is a 400. A page refuses before it writes
        anything (its writes run in one transaction)."""
        pages = self

        class PageRoute(APIRoute):
            def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
                handler = super().get_route_handler()

                async def handle(request: Request) -> Response:
                    try:
                        return await handler(request)
                    except WorkGymError as exc:
                        return pages.page(request, "error.html", exc.status_code,
                                          message=exc.message)
                    except (RequestValidationError, ValidationError):
                        return pages.page(request, "error.html", 400, message=foreign)

                return handle

        return PageRoute
