"""The OpenAPI document agents' tools are generated from: complete and described."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi import FastAPI
from helpdesk_support import MakeEpisode
from pydantic import TypeAdapter

from replicas.helpdesk import schemas
from replicas.runtime.paging import Page

pytestmark = pytest.mark.anyio


def test_every_operation_is_named_and_described(app: FastAPI) -> None:
    spec = app.openapi()
    ids = []
    for path, methods in spec["paths"].items():
        assert not path.startswith("/_env")
        for method, op in methods.items():
            assert re.fullmatch(r"[a-z][a-z0-9_]*", op["operationId"]), (method, path)
            assert op.get("summary") and op.get("description"), op["operationId"]
            for param in op.get("parameters", []):
                assert param.get("description"), (op["operationId"], param["name"])
            ids.append(op["operationId"])
    assert len(ids) == len(set(ids))
    assert {
        "list_tickets",
        "get_ticket",
        "update_ticket",
        "add_comment",
        "merge_tickets",
        "list_customers",
        "get_customer",
        "update_customer",
        "list_orders",
        "get_order",
        "list_charges",
        "create_refund",
        "list_refunds",
        "create_approval_request",
    } <= set(ids)


def test_every_schema_property_is_described(app: FastAPI) -> None:
    missing = []
    for name, schema in app.openapi()["components"]["schemas"].items():
        for prop, body in schema.get("properties", {}).items():
            if not body.get("description"):
                missing.append(f"{name}.{prop}")
    assert not missing


async def test_responses_match_their_models(episode: MakeEpisode) -> None:
    api = await episode()
    checks: list[tuple[str, Any]] = [
        ("/tickets?limit=50", Page[schemas.TicketOut]),
        ("/tickets/3", schemas.TicketOut),
        ("/tickets/3/comments", Page[schemas.CommentOut]),
        ("/customers?limit=100", Page[schemas.CustomerOut]),
        ("/orders?limit=100", Page[schemas.OrderOut]),
        ("/orders/5", schemas.OrderDetailOut),
        ("/charges?limit=100", Page[schemas.ChargeOut]),
        ("/refunds?limit=100", Page[schemas.RefundOut]),
        ("/approvals", Page[schemas.ApprovalOut]),
        ("/account-actions?limit=100", Page[schemas.AccountActionOut]),
        ("/agents?limit=100", Page[schemas.AgentOut]),
        ("/groups", Page[schemas.GroupOut]),
        ("/organizations?limit=100", Page[schemas.OrganizationOut]),
        ("/articles?limit=100", Page[schemas.ArticleOut]),
        ("/macros", Page[schemas.MacroOut]),
        ("/satisfaction-ratings?limit=100", Page[schemas.SatisfactionRatingOut]),
    ]
    for path, model in checks:
        TypeAdapter(model).validate_python(await api.ok("GET", path))
