"""The helpdesk's OpenAPI document: its operations, and real responses matching it."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from pydantic import TypeAdapter

from replicas.helpdesk import schemas
from replicas.runtime.paging import Page
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode

pytestmark = pytest.mark.anyio


def test_the_helpdesk_operations_are_there(app: FastAPI) -> None:
    """(Every app's operations are named and described: tests/replicas/test_contract.py.)"""
    ids = {op["operationId"] for methods in app.openapi()["paths"].values()
           for op in methods.values()}
    assert {
        "list_tickets",
        "get_ticket",
        "update_ticket",
        "add_comment",
        "merge_tickets",
        "list_customers",
        "get_customer",
        "update_customer",
    } <= ids
    # The shop's money and accounts are the checkout's: no billing or account route here.
    paths = " ".join(app.openapi()["paths"])
    for gone in ("/orders", "/charges", "/refunds", "/approvals", "/account-actions",
                 "email-change", "password-reset", "2fa-reset"):
        assert gone not in paths


async def test_responses_match_their_models(episode: MakeEpisode) -> None:
    api = await episode()
    checks: list[tuple[str, Any]] = [
        ("/tickets?limit=50", Page[schemas.TicketOut]),
        ("/tickets/3", schemas.TicketOut),
        ("/tickets/3/comments", Page[schemas.CommentOut]),
        ("/customers?limit=100", Page[schemas.CustomerOut]),
        ("/agents?limit=100", Page[schemas.AgentOut]),
        ("/groups", Page[schemas.GroupOut]),
        ("/organizations?limit=100", Page[schemas.OrganizationOut]),
        ("/articles?limit=100", Page[schemas.ArticleOut]),
        ("/macros", Page[schemas.MacroOut]),
        ("/satisfaction-ratings?limit=100", Page[schemas.SatisfactionRatingOut]),
    ]
    for path, model in checks:
        TypeAdapter(model).validate_python(await api.ok("GET", path))
