"""Every write an app's pages take declares the API operation it performs
(``replicas.runtime.pages.performs``), and that operation is one of the app's API routes:
a write through a page can never escape the trajectory's rules by being a page."""

from __future__ import annotations

import pytest
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute

from replicas.catalog import specs
from replicas.runtime.pages import api_route, api_routes, declared
from workgym_core.asgi import READ_METHODS

# Page writes that are no API operation, and why.
NOT_API = {
    # The bank's 3-D Secure challenge: the customer's bank's page, not Stripe's API (its
    # path, under /3ds, is the challenge's own, as the route it answers).
    ("checkout", "/3ds/{intent}/answer"),
}


def _page_writes() -> list[tuple[str, APIRoute, list[BaseRoute]]]:
    found = []
    for app, spec in specs().items():
        routes = list(spec.router.routes)
        for route in api_routes(routes):
            writes = not (route.methods or set()) <= READ_METHODS
            if ".pages." in route.endpoint.__module__ and writes:
                found.append((app, route, routes))
    return found


PAGE_WRITES = _page_writes()


def test_the_apps_have_page_writes() -> None:
    assert {app for app, _, _ in PAGE_WRITES} >= {"helpdesk", "checkout", "tracker", "crm"}


@pytest.mark.parametrize(("app", "route", "routes"), PAGE_WRITES,
                         ids=[f"{app}:{route.path}" for app, route, _ in PAGE_WRITES])
def test_a_page_write_performs_an_api_operation(app: str, route: APIRoute,
                                                routes: list[BaseRoute]) -> None:
    performed = declared(route.endpoint)
    if (app, route.path) in NOT_API:
        assert performed is None
        return
    assert performed is not None, f"{app} {route.path}: declare the API operation it performs"
    api = api_route(routes, performed.operation_id)
    assert ".pages." not in api.endpoint.__module__
    page_params = set(route.param_convertors)
    assert set(performed.names.values()) <= page_params, "a renamed parameter the page has"
