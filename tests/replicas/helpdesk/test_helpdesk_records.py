"""An admin's writes through Zendesk's API: organizations, groups, macros, views and
triggers created, changed and deleted, users deleted (soft), tickets and users created in
bulk (jobs). Each test cites the Zendesk reference (ZD = developer.zendesk.com/api-reference)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, ticket_setup

pytestmark = pytest.mark.anyio


def refusal(body: dict[str, Any]) -> tuple[str, str]:
    assert body["error"] == "RecordInvalid", body
    [(field, [entry])] = body["details"].items()
    return field, entry["error"]


async def test_organizations_are_created_changed_and_deleted(episode: MakeEpisode) -> None:
    """ZD/ticketing/organizations/organizations/#create-organization, #update-organization,
    #delete-organization: a unique name ("Name: has already been taken"); DELETE is 204 and
    the organization's people are left without one."""
    api = await episode()
    taken = (await api.ok("GET", "/api/v2/organizations/1"))["organization"]["name"]
    assert refusal(await api.refused("POST", "/api/v2/organizations", json={
        "organization": {"name": taken.lower()}})) == ("name", "duplicate_value")
    assert refusal(await api.refused("POST", "/api/v2/organizations", json={
        "organization": {"notes": "no name"}})) == ("name", "blank")
    made = (await api.ok("POST", "/api/v2/organizations", status=201, json={
        "organization": {"name": "Acme Widgets", "domain_names": ["acme.example"]}}
    ))["organization"]
    assert (made["name"], made["domain_names"]) == ("Acme Widgets", ["acme.example"])
    org = made["id"]
    changed = (await api.ok("PUT", f"/api/v2/organizations/{org}.json", json={
        "organization": {**made, "notes": "Key account"}}))["organization"]
    assert (changed["name"], changed["notes"]) == ("Acme Widgets", "Key account")
    people = (await api.ok("GET", "/api/v2/organizations/1/users"))["users"]
    await api.ok("DELETE", "/api/v2/organizations/1", status=204)
    await api.refused("GET", "/api/v2/organizations/1", status=404)
    after = (await api.ok("GET", f"/api/v2/users/{people[0]['id']}"))["user"]
    assert after["organization_id"] is None


async def test_a_deleted_group_is_kept_and_refuses_tickets(episode: MakeEpisode) -> None:
    """ZD/ticketing/groups/groups/#create-group, #delete-group: a deleted group is kept
    (``deleted``: true) and out of the list; its memberships end. Ours: the default group
    cannot be deleted, and a ticket cannot be routed to a deleted group."""
    api = await episode(setup=ticket_setup())
    made = (await api.ok("POST", "/api/v2/groups", status=201, json={
        "group": {"name": "VIP", "description": "Platinum customers"}}))["group"]
    assert refusal(await api.refused("POST", "/api/v2/groups", json={
        "group": {"name": "vip"}})) == ("name", "duplicate_value")
    assert refusal(await api.refused("POST", "/api/v2/groups", json={
        "group": {"name": ""}}))[0] == "name"  # the attribute, not its envelope
    renamed = (await api.ok("PUT", f"/api/v2/groups/{made['id']}", json={
        "group": {"name": "VIP care"}}))["group"]
    assert renamed["name"] == "VIP care"
    assert refusal(await api.refused("DELETE", "/api/v2/groups/1")) == ("id", "default_group")
    await api.ok("DELETE", "/api/v2/groups/3", status=204)
    assert (await api.ok("GET", "/api/v2/groups/3"))["group"]["deleted"] is True
    assert 3 not in [g["id"] for g in (await api.ok("GET", "/api/v2/groups"))["groups"]]
    assert (await api.ok("GET", "/api/v2/groups/3/memberships"))["group_memberships"] == []
    ticket = api.vars["ticket"]["id"]
    assert refusal(await api.refused("PUT", f"/api/v2/tickets/{ticket}", json={
        "ticket": {"group_id": 3, "assignee_id": None}})) == ("group_id", "group_deleted")


async def test_a_new_macro_applies_like_the_seeded_ones(episode: MakeEpisode) -> None:
    """ZD/ticketing/business-rules/macros/#create-macro: title and actions required;
    an unknown action is refused naming ``actions``; #delete-macro answers 204."""
    api = await episode(setup=ticket_setup())
    assert refusal(await api.refused("POST", "/api/v2/macros", json={
        "macro": {"title": "Nothing"}})) == ("actions", "blank")
    assert refusal(await api.refused("POST", "/api/v2/macros", json={
        "macro": {"title": "Odd", "actions": [{"field": "colour", "value": "red"}]}}
    )) == ("actions", "invalid_action")
    made = (await api.ok("POST", "/api/v2/macros", status=201, json={"macro": {
        "title": "Descaling how-to", "actions": [
            {"field": "comment_value", "value": "Run two descaling cycles."},
            {"field": "status", "value": "pending"}]}}))["macro"]
    ticket = api.vars["ticket"]["id"]
    preview = await api.ok("GET", f"/api/v2/tickets/{ticket}/macros/{made['id']}/apply")
    assert preview["result"]["ticket"]["status"] == "pending"
    assert preview["result"]["ticket"]["comment"]["body"] == "Run two descaling cycles."
    off = (await api.ok("PUT", f"/api/v2/macros/{made['id']}", json={
        "macro": {"active": False}}))["macro"]
    assert off["active"] is False and off["title"] == "Descaling how-to"
    await api.ok("DELETE", f"/api/v2/macros/{made['id']}", status=204)
    await api.refused("GET", f"/api/v2/macros/{made['id']}", status=404)


async def test_a_new_view_lists_and_a_new_trigger_fires(episode: MakeEpisode) -> None:
    """ZD/ticketing/business-rules/views/#create-view (``all``/``any`` conditions at the
    top level, ``output``) and ZD/ticketing/business-rules/triggers/#create-trigger
    (conditions and actions): they take effect at once."""
    api = await episode(setup=ticket_setup())
    assert refusal(await api.refused("POST", "/api/v2/views", json={
        "view": {"title": "Empty"}})) == ("conditions", "blank")
    assert refusal(await api.refused("POST", "/api/v2/views", json={"view": {
        "title": "Bad", "all": [{"field": "status", "operator": "near", "value": "open"}]}}
    )) == ("conditions", "invalid_condition")
    view = (await api.ok("POST", "/api/v2/views", status=201, json={"view": {
        "title": "Grinder tickets", "all": [
            {"field": "current_tags", "operator": "includes", "value": "grinder"},
            {"field": "status", "operator": "less_than", "value": "solved"}],
        "output": {"sort_by": "created_at", "sort_order": "desc"}}}))["view"]
    ticket = api.vars["ticket"]["id"]
    shown = (await api.ok("GET", f"/api/v2/views/{view['id']}/tickets"))["tickets"]
    assert ticket in [t["id"] for t in shown]
    renamed = (await api.ok("PUT", f"/api/v2/views/{view['id']}", json={
        "view": {"title": "Grinders"}}))["view"]
    assert renamed["execution"] == view["execution"] == {"sort_by": "created_at",
                                                         "sort_order": "desc"}
    trigger = (await api.ok("POST", "/api/v2/triggers", status=201, json={"trigger": {
        "title": "Grinders are urgent", "conditions": {"all": [
            {"field": "current_tags", "operator": "includes", "value": "grinder"}]},
        "actions": [{"field": "priority", "value": "urgent"}]}}))["trigger"]
    assert trigger["position"] > 1
    saved = (await api.ok("PUT", f"/api/v2/tickets/{ticket}", json={
        "ticket": {"comment": {"body": "Looking into it.", "public": False}}}))["ticket"]
    assert saved["priority"] == "urgent"
    await api.ok("DELETE", f"/api/v2/triggers/{trigger['id']}", status=204)
    await api.ok("DELETE", f"/api/v2/views/{view['id']}", status=204)
    await api.refused("GET", f"/api/v2/views/{view['id']}", status=404)


async def test_deleting_a_user_is_a_soft_delete(episode: MakeEpisode) -> None:
    """ZD/ticketing/users/users/#delete-user: the user is returned with ``active`` false;
    their tickets stay. Ours: you cannot delete yourself; a deleted user cannot be changed."""
    api = await episode(setup=ticket_setup())
    customer = api.vars["customer"]["id"]
    gone = (await api.ok("DELETE", f"/api/v2/users/{customer}"))["user"]
    assert gone["active"] is False
    assert (await api.ok("GET", f"/api/v2/tickets/{api.vars['ticket']['id']}")
            )["ticket"]["requester_id"] == customer
    assert refusal(await api.refused("DELETE", f"/api/v2/users/{customer}")) == (
        "id", "user_deleted")
    assert refusal(await api.refused("DELETE", "/api/v2/users/1")) == ("id", "self_delete")
    await api.refused("DELETE", "/api/v2/users/999999", status=404)


async def test_create_many_is_a_job_with_each_result(episode: MakeEpisode) -> None:
    """ZD/ticketing/tickets/tickets/#create-many-tickets and
    ZD/ticketing/users/users/#create-many-users: up to 100 in a job; the job status
    (ZD/ticketing/ticket-management/job_statuses/#show-job-status) gives each item's index
    and new id, or its error."""
    api = await episode(setup=ticket_setup())
    customer = api.vars["customer"]["id"]
    job = (await api.ok("POST", "/api/v2/tickets/create_many", json={"tickets": [
        {"subject": "Call 1", "comment": {"body": "Caller asked about shipping."},
         "requester_id": customer},
        {"subject": "Call 2", "comment": {"body": "Caller asked about returns."},
         "requester_id": customer, "assignee_id": 999999}]}))["job_status"]
    polled = (await api.ok("GET", f"/api/v2/job_statuses/{job['id']}"))["job_status"]
    assert polled["status"] == "completed" and polled["total"] == 2
    first, second = polled["results"]
    assert (first["index"], first["success"], second["index"], second["success"]) == (
        0, True, 1, False)
    made = (await api.ok("GET", f"/api/v2/tickets/{first['id']}"))["ticket"]
    assert (made["subject"], made["requester_id"]) == ("Call 1", customer)
    too_many = {"tickets": [{"comment": {"body": f"n{i}"}} for i in range(101)]}
    assert refusal(await api.refused("POST", "/api/v2/tickets/create_many", json=too_many)
                   )[0] == "tickets"
    users = (await api.ok("POST", "/api/v2/users/create_many", json={"users": [
        {"name": "Ann Bulk", "email": "ann.bulk@example.com"},
        {"name": "Dup", "email": "ann.bulk@example.com"}]}))["job_status"]
    assert [r["success"] for r in users["results"]] == [True, False]
