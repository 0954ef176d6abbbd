"""The helpdesk's OpenAPI document: Zendesk's operations, each documented, and real responses
matching what it documents. (Every app's document: tests/replicas/test_contract.py.)"""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from jsonschema import Draft202012Validator
from pydantic import TypeAdapter

from replicas.helpdesk import schemas
from replicas.helpdesk.routes import TAGS
from tests.replicas.helpdesk.conftest import Api
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, ticket_setup, user_setup

pytestmark = pytest.mark.anyio

# The endpoints of README.md's map (Zendesk's reference for each).
OPERATIONS = {
    "list_tickets", "show_many_tickets", "show_ticket", "create_ticket", "update_ticket",
    "update_many_tickets", "merge_tickets", "list_ticket_comments", "list_ticket_audits",
    "list_ticket_tags", "add_ticket_tags", "set_ticket_tags", "remove_ticket_tags",
    "show_ticket_after_macro", "show_macro_changes", "show_job_status",
    "list_ticket_metric_events", "list_metric_events", "list_requested_tickets",
    "list_assigned_tickets", "list_organization_tickets", "list_users", "show_user",
    "show_many_users", "show_current_user", "search_users", "create_user", "update_user",
    "merge_users", "list_user_identities", "create_user_identity", "show_user_identity",
    "delete_user_identity", "make_user_identity_primary", "list_organizations",
    "show_organization", "list_organization_users", "search_organizations", "list_groups",
    "show_group", "list_memberships_of_group", "list_group_users", "list_group_memberships",
    "show_group_membership", "list_user_group_memberships", "list_user_groups",
    "list_ticket_fields", "show_ticket_field", "list_macros", "list_active_macros",
    "show_macro", "list_views", "list_active_views", "show_view", "count_view",
    "list_view_tickets", "execute_view", "search", "search_count", "list_triggers",
    "list_active_triggers", "show_trigger", "list_automations", "list_active_automations",
    "show_automation", "list_sla_policies", "show_sla_policy", "list_schedules",
    "show_schedule", "list_schedule_holidays", "list_satisfaction_ratings",
    "show_satisfaction_rating", "list_articles", "show_article", "search_articles",
    "list_articles_by_locale",
    # An admin's writes (routes/records.py), bulk creates, uploads, incremental exports.
    "create_organization", "update_organization", "delete_organization", "create_group",
    "update_group", "delete_group", "create_macro", "update_macro", "delete_macro",
    "create_view", "update_view", "delete_view", "create_trigger", "update_trigger",
    "delete_trigger", "delete_user", "create_many_tickets", "create_many_users",
    "upload_files", "delete_upload", "show_attachment",
    "export_tickets_cursor", "export_tickets_time", "export_users_cursor",
    "export_users_time",
}
# What a list's items are, by the list's key.
ITEMS: dict[str, Any] = {"tickets": schemas.TicketOut, "users": schemas.UserOut,
                         "comments": schemas.CommentOut, "audits": schemas.AuditOut}


def operations(app: FastAPI) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, methods in app.openapi()["paths"].items()
            for method, op in methods.items()]


def test_the_operations_are_zendesks_and_documented(app: FastAPI) -> None:
    found = operations(app)
    assert {op["operationId"] for _, _, op in found} == OPERATIONS
    tags = {t["name"] for t in TAGS}
    for method, path, op in found:
        assert path.startswith("/api/v2/"), path
        assert len(op["tags"]) == 1 and op["tags"][0] in tags, op["operationId"]
        assert op["summary"] and len(op["description"]) > 10, op["operationId"]
        success = [s for s in op["responses"] if s.startswith("2")]
        assert len(success) == 1, op["operationId"]
        if success[0] != "204":
            assert "application/json" in op["responses"][success[0]]["content"]
        body = op.get("requestBody", {}).get("content", {}).get("application/json")
        writes = method in ("POST", "PUT") and op["operationId"] not in (
            "make_user_identity_primary", "upload_files")  # upload_files: a binary body
        if op["operationId"] == "upload_files":
            assert "application/octet-stream" in op["requestBody"]["content"]
        assert (body is not None) == (writes or op["operationId"] == "remove_ticket_tags"), \
            op["operationId"]
    # The shop's money and accounts are the checkout's; the old API is gone.
    paths = " ".join(app.openapi()["paths"])
    for gone in ("/orders", "/charges", "/refunds", "/approvals", "/account-actions",
                 "email-change", "password-reset", "2fa-reset", "/customers", "/agents"):
        assert gone not in paths
    assert not any(re.search(r"\bpatch\b", m, re.I) for m, _, _ in found)


def test_every_success_response_has_a_schema(app: FastAPI) -> None:
    bare = [op["operationId"] for _, _, op in operations(app)
            if op["responses"].get("200", {}).get("content", {}).get(
                "application/json", {}).get("schema") == {}]
    assert bare == []


def _fill(path: str, ids: dict[str, Any]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(ids[m.group(1)]), path)


QUERIES = {
    "show_many_tickets": {"ids": "1,2,3"}, "show_many_users": {"ids": "1,2"},
    "search_users": {"query": "tess"}, "search": {"query": "type:ticket status:open"},
    "search_count": {"query": "type:ticket"}, "search_articles": {"query": "refund"},
    "search_organizations": {"name": "nobody"}, "list_ticket_metric_events": {
        "start_time": "1750000000"},
    **{f"export_{kind}": {"start_time": "1750000000"} for kind in (
        "tickets_cursor", "tickets_time", "users_cursor", "users_time")},
}
# The records an admin makes (routes/records.py), each then changed and deleted.
RECORDS = {
    "organization": {"name": "Documented Co"}, "group": {"name": "Documented"},
    "macro": {"title": "Documented", "actions": [{"field": "status", "value": "open"}]},
    "view": {"title": "Documented", "all": [
        {"field": "status", "operator": "is", "value": "open"}]},
    "trigger": {"title": "Documented", "conditions": {"all": [
        {"field": "status", "operator": "is", "value": "open"}]},
        "actions": [{"field": "priority", "value": "high"}]},
}


async def _check(api: Api, app: FastAPI, route: APIRoute, response: Any,
                 validators: dict[str, Draft202012Validator]) -> None:
    """The response against the operation's documented schema and its response model (and
    a list's items against theirs)."""
    name = route.operation_id
    assert name is not None
    body = response.json()
    errors = list(validators[name].iter_errors(body))
    assert not errors, (name, errors[0].message)
    if route.response_model is not None:
        TypeAdapter(route.response_model).validate_python(body)
    for key, model in ITEMS.items():
        for item in body.get(key) if isinstance(body.get(key), list) else []:
            model.model_validate(item)
    for item in body.get("results", []):
        if item.get("result_type") in ("ticket", "user"):
            ITEMS[item["result_type"] + "s"].model_validate(item)


def _validators(app: FastAPI) -> dict[str, Draft202012Validator]:
    doc = app.openapi()
    out = {}
    for _, _, op in operations(app):
        success = next(s for s in op["responses"] if s.startswith("2"))
        schema = op["responses"][success].get("content", {}).get(
            "application/json", {}).get("schema", {})
        out[op["operationId"]] = Draft202012Validator({**schema,
                                                       "components": doc["components"]})
    return out


async def test_real_responses_match_what_is_documented(app: FastAPI,
                                                       episode: MakeEpisode) -> None:
    setup = (ticket_setup("open") + ticket_setup("open", bind="other", with_requester=False)
             + user_setup("dup", name="Tess Twice", email="tess.twice@example.com"))
    api = await episode(setup=setup)
    tid, other, customer = (api.vars[k]["id"] for k in ("ticket", "other", "customer"))
    identity = (await api.ok("GET", f"/api/v2/users/{customer}/identities"))["identities"][0]
    validators = _validators(app)
    routes = {r.operation_id: r for r in app.routes
              if isinstance(r, APIRoute) and r.operation_id in OPERATIONS}
    ids: dict[str, Any] = {
        "ticket_id": tid, "user_id": customer, "identity_id": identity["id"],
        "organization_id": 1, "group_id": 1, "membership_id": 1, "macro_id": 1,
        "view_id": 3, "trigger_id": 1, "automation_id": 1, "policy_id": 1, "schedule_id": 1,
        "field_id": 360001, "article_id": 1, "rating_id": 1, "locale": "en-us"}
    # Writes, each against its documented answer.
    writes: list[tuple[str, str, Any]] = [
        ("create_ticket", "/api/v2/tickets", {"ticket": {
            "comment": {"body": "Hello"}, "requester": {"email": "new@example.com"}}}),
        ("update_ticket", f"/api/v2/tickets/{tid}", {"ticket": {
            "priority": "high", "comment": {"body": "Looking into it."}}}),
        ("update_many_tickets", f"/api/v2/tickets/update_many?ids={tid}",
         {"ticket": {"additional_tags": ["checked"]}}),
        ("add_ticket_tags", f"/api/v2/tickets/{tid}/tags", {"tags": ["a"]}),
        ("set_ticket_tags", f"/api/v2/tickets/{tid}/tags", {"tags": ["a", "b"]}),
        ("remove_ticket_tags", f"/api/v2/tickets/{tid}/tags", {"tags": ["b"]}),
        ("create_user", "/api/v2/users", {"user": {"name": "Grace", "email": "g@example.com"}}),
        ("update_user", f"/api/v2/users/{customer}", {"user": {"notes": "VIP"}}),
        ("create_user_identity", f"/api/v2/users/{customer}/identities",
         {"identity": {"type": "email", "value": "tess.2@example.com"}}),
        ("make_user_identity_primary",
         f"/api/v2/users/{customer}/identities/{identity['id']}/make_primary", None),
        ("merge_users", f"/api/v2/users/{api.vars['dup']['id']}/merge",
         {"user": {"id": customer}}),
        ("merge_tickets", f"/api/v2/tickets/{tid}/merge", {"ids": [other]}),
        ("create_many_tickets", "/api/v2/tickets/create_many", {"tickets": [
            {"comment": {"body": "Bulk"}, "requester_id": customer}]}),
        ("create_many_users", "/api/v2/users/create_many", {"users": [{"name": "Bulk"}]}),
        *[(f"create_{kind}", f"/api/v2/{kind}s", {kind: body})
          for kind, body in RECORDS.items()],
    ]
    checked = set()
    made: dict[str, Any] = {}
    for name, path, body in writes:
        route = routes[name]
        [method] = route.methods or {"GET"}
        response = await api.request(method, path, json=body)
        assert response.status_code == route.status_code or response.status_code == 200, (
            name, response.text)
        await _check(api, app, route, response, validators)
        if name == "merge_tickets":
            ids["job_id"] = response.json()["job_status"]["id"]
        if name.removeprefix("create_") in RECORDS:
            made[name.removeprefix("create_")] = response.json()[name.removeprefix("create_")]
        checked.add(name)
    for kind, record in made.items():  # changed, as sent back whole by a client
        route = routes[f"update_{kind}"]
        response = await api.put(f"/api/v2/{kind}s/{record['id']}", json={kind: record})
        assert response.status_code == 200, (kind, response.text)
        await _check(api, app, route, response, validators)
        checked.add(f"update_{kind}")
    uploaded = await api.request("POST", "/api/v2/uploads", params={"filename": "a.txt"},
                                 content=b"file")
    assert uploaded.status_code == 201, uploaded.text
    await _check(api, app, routes["upload_files"], uploaded, validators)
    checked.add("upload_files")
    ids["attachment_id"] = uploaded.json()["upload"]["attachment"]["id"]
    # Every read, with the records made above.
    for name, route in routes.items():
        if "GET" not in (route.methods or ()):
            continue
        response = await api.get(_fill(route.path, ids), params=QUERIES.get(name))
        assert response.status_code == 200, (name, response.text)
        await _check(api, app, route, response, validators)
        checked.add(name)
    secondary = next(i for i in (await api.ok("GET", f"/api/v2/users/{customer}/identities")
                                 )["identities"] if not i["primary"] and i["type"] == "email")
    deleted = await api.delete(f"/api/v2/users/{customer}/identities/{secondary['id']}")
    assert deleted.status_code == 204 and deleted.content == b""
    checked.add("delete_user_identity")
    deletions = [*[(f"delete_{kind}", f"/api/v2/{kind}s/{r['id']}") for kind, r in made.items()],
                 ("delete_upload", f"/api/v2/uploads/{uploaded.json()['upload']['token']}"),
                 ("delete_user", f"/api/v2/users/{customer}")]
    for name, path in deletions:
        response = await api.delete(path)
        assert response.status_code in (routes[name].status_code, 200), (name, response.text)
        if response.status_code != 204:
            await _check(api, app, routes[name], response, validators)
        checked.add(name)
    assert checked == OPERATIONS
