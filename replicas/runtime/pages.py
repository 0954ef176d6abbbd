"""What a replica's browser pages share: Jinja templates (the app's own ``templates/``)
with every value escaped, links relative to the page, the headers that keep every WorkGym
page to itself (``workgym_core.pages``), and refusals shown as pages.

Pages are served under whatever prefix the proxy gives the app (``/apps/checkout``), which
the app never sees: every link and redirect is relative (:func:`href`), from the page's own
path inside the app to another.

A page's write is an API operation done through a form: its route declares which
(:func:`performs`), and its answer tells the proxy (``OPERATIONS_HEADER``), which records it
on the step, so the trajectory's rules judge a write through a page as the API call it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlencode

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from workgym_core.errors import WorkGymError
from workgym_core.internal import OPERATIONS_HEADER
from workgym_core.pages import PAGE_HEADERS

from .observe import canonical

E = TypeVar("E", bound=Callable[..., Any])
_PERFORMS = "workgym_performs"
# The most bytes of operations told the proxy in a header (its client reads header lines of
# up to 8 KB): beyond, the operation is told without its body, as the trajectory keeps no
# body it had to cut.
OPERATIONS_BYTES = 6000


def with_query(url: str, **query: Any) -> str:
    """``url`` with ``query``'s non-empty values added to its own."""
    params = urlencode({k: v for k, v in query.items() if v not in (None, "")})
    return f"{url}{'&' if '?' in url else '?'}{params}" if params else url


def href(current: str, target: str, **query: Any) -> str:
    """A relative link from the page at ``current`` to ``target`` (both paths inside the app;
    ``target`` may carry a query), with ``query`` added."""
    return with_query("../" * (current.count("/") - 1) + target.lstrip("/"), **query)


MAX_FORM = 64 * 1024  # bytes of a posted page form: a description or a comment fits


async def posted(request: Request, too_large: WorkGymError) -> dict[str, list[str]]:
    """A page form's url-encoded body: each field's values in the order sent, blank ones
    kept; past :data:`MAX_FORM` bytes, ``too_large`` (the app's own refusal) is raised."""
    raw = await request.body()
    if len(raw) > MAX_FORM:
        raise too_large
    return parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)


class Form:
    """A form's fields (posted, or a list page's query): each field's values, in the order
    sent."""

    def __init__(self, values: dict[str, list[str]]) -> None:
        self.values = values

    def get(self, name: str) -> str:
        """The field's (first) value, stripped; '' when absent."""
        return (self.values.get(name) or [""])[0].strip()

    def text(self, name: str) -> str:
        """A textarea's text as typed (line breaks as the API takes them)."""
        return (self.values.get(name) or [""])[0].replace("\r\n", "\n")

    def all(self, name: str) -> list[str]:
        """Every non-empty value of the field (a multiple select's choices)."""
        return [v.strip() for v in self.values.get(name, []) if v.strip()]

    def has(self, name: str) -> bool:
        return name in self.values


def redirect(request: Request, target: str, **query: Any) -> Response:
    """303 to ``target`` (a path inside the app), relative to this page."""
    return see_other(href(request.url.path, target, **query))


def see_other(location: str) -> Response:
    return Response(status_code=303, headers={**PAGE_HEADERS, "location": location})


@dataclass(frozen=True, slots=True)
class Performs:
    """The API operation a page's write is: the API route's ``operation_id``, and for each of
    its path parameters that the page's path names otherwise, the page's name for it."""

    operation_id: str
    names: dict[str, str] = field(default_factory=dict)


def performs(operation_id: str, **names: str) -> Callable[[E], E]:
    """Declares the API operation the page route below performs: the API route whose
    ``operation_id`` it is gives its method, path and success status (never restated here);
    its path parameters are the page's of the same name (``names``: API parameter -> the
    page's, where they differ) or what the handler adds with :func:`sends`. The page's step
    on the trajectory carries the operation, refused or not: an attempt is an attempt."""
    def mark(endpoint: E) -> E:
        setattr(endpoint, _PERFORMS, Performs(operation_id, names))
        return endpoint
    return mark


def sends(request: Request, body: Any, **params: Any) -> None:
    """What the page's write sends the API operation it performs (:func:`performs`): the API's
    request body, and path parameters the page's own path does not carry (e.g. a merge's
    target, picked in the form)."""
    operation: dict[str, Any] = request.state.operation
    operation["body"] = body
    operation["params"].update({k: canonical(str(v)) for k, v in params.items()})


def declared(endpoint: Callable[..., Any]) -> Performs | None:
    """What a page's endpoint :func:`performs`, if it declares it."""
    found: Performs | None = getattr(endpoint, _PERFORMS, None)
    return found


def api_routes(routes: Iterable[Any]) -> Iterator[APIRoute]:
    """Every API route among ``routes``, those of included routers and mounts too (their
    paths as the router that serves them matches them: as the trajectory records an API
    call's)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        else:
            yield from api_routes(getattr(getattr(route, "original_router", route), "routes",
                                          ()))


def api_route(routes: Iterable[Any], operation_id: str) -> APIRoute:
    """The API route among ``routes`` whose ``operation_id`` it is."""
    found = next((route for route in api_routes(routes)
                  if route.operation_id == operation_id), None)
    if found is None:
        raise LookupError(f"a page performs {operation_id!r}, which no API route of the app is")
    return found


def _operation(request: Request, performed: Performs) -> dict[str, Any]:
    """The operation a page's write performs, as its declaration and the page's path tell."""
    api = api_route(request.app.routes, performed.operation_id)
    given = request.path_params
    params = {name: canonical(str(given[page])) for name in api.param_convertors
              if (page := performed.names.get(name, name)) in given}
    return {"method": next(iter(api.methods or ("POST",))), "route": api.path, "params": params,
            "body": None, "success": api.status_code or 200}


def _told(operation: dict[str, Any], status: int) -> str:
    """The header's value (ASCII JSON): the operation with the status the API would have
    answered."""
    told = {key: value for key, value in operation.items() if key != "success"}
    told["status"] = status if status >= 400 else operation["success"]
    encoded = json.dumps([told], separators=(",", ":"))
    return encoded if len(encoded) <= OPERATIONS_BYTES else \
        json.dumps([{**told, "body": None}], separators=(",", ":"))


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
        anything (its writes run in one transaction). A route that :func:`performs` an API
        operation tells the proxy so in its answer, refused or not."""
        pages = self

        class PageRoute(APIRoute):
            def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
                handler = super().get_route_handler()
                performed = declared(self.endpoint)

                async def handle(request: Request) -> Response:
                    operation = None
                    if performed is not None:
                        operation = request.state.operation = _operation(request, performed)
                    response = await answer(request)
                    if operation is not None:
                        response.headers[OPERATIONS_HEADER] = _told(
                            operation, response.status_code)
                    return response

                async def answer(request: Request) -> Response:
                    try:
                        return await handler(request)
                    except WorkGymError as exc:
                        return pages.page(request, "error.html", exc.status_code,
                                          message=exc.message)
                    except (RequestValidationError, ValidationError):
                        return pages.page(request, "error.html", 400, message=foreign)

                return handle

        return PageRoute
