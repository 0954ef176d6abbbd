"""Tickets: listing, filters, updates, the status machine, closed tickets, merges, macros."""

from __future__ import annotations

import pytest

from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, ticket_setup

pytestmark = pytest.mark.anyio


async def test_pagination_filter_and_search(episode: MakeEpisode) -> None:
    api = await episode()
    first = await api.ok("GET", "/tickets?limit=10")
    assert first["limit"] == 10 and first["offset"] == 0 and len(first["data"]) == 10
    assert first["total"] >= 500
    second = await api.ok("GET", "/tickets?limit=10&offset=10")
    assert {t["id"] for t in first["data"]}.isdisjoint(t["id"] for t in second["data"])
    assert (await api.get("/tickets?limit=101")).status_code == 422

    pending = await api.ok("GET", "/tickets?status=pending&limit=100")
    assert pending["total"] > 0 and all(t["status"] == "pending" for t in pending["data"])
    tagged = await api.ok("GET", "/tickets?tag=refund&limit=100")
    assert tagged["total"] > 0 and all("refund" in t["tags"] for t in tagged["data"])
    found = await api.ok("GET", "/tickets?q=CHARGED%20TWICE")
    assert found["total"] >= 1
    assert all("charged twice" in (t["subject"] + t["description"]).lower() for t in found["data"])
    breached = await api.ok("GET", "/tickets?sla_breached=true&limit=100")
    assert breached["total"] >= 10
    assert all(
        t["sla_due_at"] < "2025-06-16T09:00:00Z" and t["status"] in ("new", "open")
        for t in breached["data"]
    )
    mine = await api.ok("GET", "/customers?limit=1&offset=5")
    requester = mine["data"][0]["id"]
    by_requester = await api.ok("GET", f"/tickets?requester_id={requester}&limit=100")
    assert all(t["requester_id"] == requester for t in by_requester["data"])
    assert (await api.get("/tickets?status=archived")).status_code == 422


async def test_update_fields_and_tags(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    body = await api.ok(
        "PATCH",
        f"/tickets/{tid}",
        {"priority": "urgent", "add_tags": ["vip", "Escalated"], "remove_tags": ["grinder"]},
    )
    assert body["priority"] == "urgent" and body["tags"] == ["vip", "Escalated"]
    assert body["updated_at"] > api.vars["ticket"]["updated_at"]
    again = await api.ok("GET", f"/tickets/{tid}")
    assert again == body


async def test_unknown_field_is_422_naming_it(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    before = await api.state()
    response = await api.patch(f"/tickets/{tid}", {"status": "pending", "colour": "red"})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "colour"
    response = await api.patch(f"/tickets/{tid}", {"priority": "critical"})
    assert response.status_code == 422 and response.json()["error"]["field"] == "priority"
    assert await api.state() == before


@pytest.mark.parametrize(
    ("start", "target", "allowed"),
    [
        ("new", "open", True),
        ("new", "closed", False),
        ("open", "pending", True),
        ("open", "new", False),
        ("pending", "on-hold", False),
        ("pending", "solved", True),
        ("on-hold", "open", True),
        ("solved", "open", True),
        ("solved", "closed", True),
        ("solved", "pending", False),
        ("open", "closed", False),
    ],
)
async def test_status_machine(episode: MakeEpisode, start: str, target: str, allowed: bool) -> None:
    api = await episode(setup=ticket_setup(start))
    tid = api.vars["ticket"]["id"]
    before = await api.state()
    response = await api.patch(f"/tickets/{tid}", {"status": target})
    if allowed:
        assert response.status_code == 200, response.text
        assert response.json()["status"] == target
    else:
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "invalid_status_transition"
        assert await api.state() == before


async def test_closed_ticket_is_immutable(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("closed"))
    tid = api.vars["ticket"]["id"]
    before = await api.state()
    for method, path, body in (
        ("PATCH", f"/tickets/{tid}", {"priority": "high"}),
        ("PATCH", f"/tickets/{tid}", {"status": "open"}),
        ("POST", f"/tickets/{tid}/comments", {"body": "hello"}),
        ("POST", f"/tickets/{tid}/macros/1/apply", None),
    ):
        response = await api.request(method, path, json=body)
        assert response.status_code == 422, (path, response.text)
        assert response.json()["error"]["code"] == "ticket_closed"
    assert await api.state() == before


async def test_comments_public_and_internal(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    note = await api.ok(
        "POST", f"/tickets/{tid}/comments", {"body": "Checked the logs.", "public": False}, 201
    )
    assert note["author_type"] == "agent" and note["author_id"] == 1 and not note["public"]
    internal = await api.ok("GET", f"/tickets/{tid}/comments?public=false")
    assert [c["id"] for c in internal["data"]] == [note["id"]]
    assert (await api.post(f"/tickets/{tid}/comments", {"body": ""})).status_code == 422


async def test_assignee_must_be_in_group(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    billing = (await api.ok("GET", "/agents?group_id=2&role=agent&limit=1"))["data"][0]
    before = await api.state()
    response = await api.patch(f"/tickets/{tid}", {"assignee_id": billing["id"]})
    assert response.json()["error"]["code"] == "assignee_not_in_group"
    response = await api.patch(f"/tickets/{tid}", {"group_id": 2})
    assert response.json()["error"]["code"] == "assignee_not_in_group"
    assert await api.state() == before
    moved = await api.ok("PATCH", f"/tickets/{tid}", {"group_id": 2, "assignee_id": billing["id"]})
    assert moved["group_id"] == 2 and moved["assignee_id"] == billing["id"]
    escalated = await api.ok("PATCH", f"/tickets/{tid}", {"group_id": 3, "assignee_id": None})
    assert escalated["group_id"] == 3 and escalated["assignee_id"] is None


async def test_merge(episode: MakeEpisode) -> None:
    setup = ticket_setup("open") + [
        {
            "bind": "target",
            "insert": "tickets",
            "values": {
                "subject": "Grinder again",
                "description": "Still squeaks.",
                "status": "new",
                "priority": "normal",
                "type": "question",
                "channel": "chat",
                "requester_id": "$customer.id",
                "created_at": "@now-2h",
                "updated_at": "@now-2h",
            },
        },
        {
            "bind": "closed",
            "insert": "tickets",
            "values": {
                "subject": "Old one",
                "description": "x",
                "status": "closed",
                "priority": "low",
                "type": "question",
                "channel": "web",
                "requester_id": "$customer.id",
                "created_at": "@now-90d",
                "updated_at": "@now-80d",
            },
        },
        {
            "bind": "stranger",
            "insert": "tickets",
            "values": {
                "subject": "Not mine",
                "description": "x",
                "status": "open",
                "priority": "low",
                "type": "question",
                "channel": "web",
                "requester_id": 1,
                "created_at": "@now-9d",
                "updated_at": "@now-8d",
            },
        },
        {
            "insert": "comments",
            "values": {
                "ticket_id": "$ticket.id",
                "author_type": "customer",
                "author_id": "$customer.id",
                "body": "It squeaks.",
                "created_at": "@now-1d",
            },
        },
    ]
    api = await episode(setup=setup)
    source, target = api.vars["ticket"]["id"], api.vars["target"]["id"]
    before = await api.state()
    refusals = (
        (source, {"target_ticket_id": source}, "merge_into_self"),
        (source, {"target_ticket_id": api.vars["closed"]["id"]}, "ticket_closed"),
        (source, {"target_ticket_id": api.vars["stranger"]["id"]}, "requester_mismatch"),
        (api.vars["closed"]["id"], {"target_ticket_id": target}, "ticket_closed"),
    )
    for ticket_id, body, code in refusals:
        response = await api.post(f"/tickets/{ticket_id}/merge", body)
        assert response.status_code == 422 and response.json()["error"]["code"] == code
    assert (
        await api.post(f"/tickets/{source}/merge", {"target_ticket_id": 999999})
    ).status_code == 404
    assert await api.state() == before

    merged = await api.ok("POST", f"/tickets/{source}/merge", {"target_ticket_id": target})
    assert merged["status"] == "closed" and merged["merged_into_id"] == target
    source_comments = (await api.ok("GET", f"/tickets/{source}/comments"))["data"]
    assert [c["author_type"] for c in source_comments] == ["customer", "system"]
    target_comments = (await api.ok("GET", f"/tickets/{target}/comments"))["data"]
    assert target_comments[-1]["author_type"] == "system"
    assert f"#{source}" in target_comments[-1]["body"]
    assert (await api.ok("GET", f"/tickets/{target}"))["status"] == "new"


async def test_apply_macro(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    ticket = await api.ok("POST", f"/tickets/{tid}/macros/1/apply")
    assert ticket["status"] == "pending"
    comments = (await api.ok("GET", f"/tickets/{tid}/comments"))["data"]
    assert comments[-1]["body"].startswith("Hi Tess,") and comments[-1]["public"]
    inactive = await api.post(f"/tickets/{tid}/macros/8/apply")
    assert inactive.json()["error"]["code"] == "macro_inactive"
