"""Tickets through Zendesk's API: create (the first comment is the description), update with
a public reply or an internal note, the status rules, assignment, bulk updates as jobs,
follow-ups of closed tickets, merges, macros as previews saved by an update, the tags
endpoints, audits and safe updates. (Business rules on the clock, SLA events in depth:
test_helpdesk_business_rules.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from tests.replicas.helpdesk.conftest import BASE, Api
from tests.replicas.helpdesk.helpdesk_support import (
    BILLING,
    CONTACT_REASON,
    ORDER_NUMBER,
    SUPPORT,
    TIER_2,
    MakeEpisode,
    events_of,
    fields_of,
    ticket_setup,
    user_setup,
)

pytestmark = pytest.mark.anyio
T = "/api/v2/tickets"


async def show(api: Api, ticket_id: int) -> dict[str, Any]:
    found: dict[str, Any] = (await api.ok("GET", f"{T}/{ticket_id}"))["ticket"]
    return found


async def comments(api: Api, ticket_id: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = (await api.ok("GET", f"{T}/{ticket_id}/comments"))["comments"]
    return found


async def audits(api: Api, ticket_id: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = (await api.ok("GET", f"{T}/{ticket_id}/audits"))["audits"]
    return found


def refusal(body: dict[str, Any]) -> tuple[str, str]:
    """(the field, the rule) of a 422 RecordInvalid with one refusal."""
    assert body["error"] == "RecordInvalid" and body["description"], body
    [(field, [entry])] = body["details"].items()
    assert entry["description"], body
    return field, entry["error"]


async def agent_of(api: Api, group_id: int, *, active: bool = True) -> int:
    """An agent (not user 1) of ``group_id`` only (leads also cover Support's queue)."""
    users = (await api.ok("GET", "/api/v2/users?role=agent"))["users"]
    for user in users:
        if user["default_group_id"] == group_id and user["active"] is active and user["id"] != 1:
            groups = await api.ok("GET", f"/api/v2/users/{user['id']}/groups")
            if [g["id"] for g in groups["groups"]] == [group_id]:
                return int(user["id"])
    raise AssertionError(f"no agent of group {group_id} only")


# ---------------------------------------------------------------------------
# Create
# ---------------------------------------------------------------------------


async def test_create_a_ticket_for_a_new_requester(episode: MakeEpisode) -> None:
    api = await episode()
    body = {"ticket": {
        "subject": "Broken grinder", "comment": {"body": "My grinder arrived broken."},
        "requester": {"email": "ada.lovelace@example.com", "name": "Ada Lovelace"},
        "priority": "high", "tags": ["Damaged", "returns", "damaged"],
        "custom_fields": [{"id": ORDER_NUMBER, "value": "A-99999"},
                          {"id": CONTACT_REASON, "value": "shipping"}]}}
    created = await api.ok("POST", T, body, status=201)
    assert set(created) == {"ticket", "audit"}
    ticket, audit = created["ticket"], created["audit"]
    assert ticket["url"] == f"{BASE}/api/v2/tickets/{ticket['id']}.json"
    assert (ticket["subject"], ticket["status"], ticket["priority"], ticket["type"]) == (
        "Broken grinder", "new", "high", "question")
    assert ticket["description"] == "My grinder arrived broken."
    assert ticket["tags"] == ["damaged", "returns"]  # lowercased, each once
    assert fields_of(ticket) == {ORDER_NUMBER: "A-99999", 360002: None,
                                 CONTACT_REASON: "shipping"}
    assert ticket["fields"] == ticket["custom_fields"]
    assert ticket["via"]["channel"] == "api"
    # The requester by email is a new end user, their email a primary identity.
    requester = await api.ok("GET", f"/api/v2/users/{ticket['requester_id']}?include=identities")
    assert (requester["user"]["name"], requester["user"]["email"], requester["user"]["role"]) \
        == ("Ada Lovelace", "ada.lovelace@example.com", "end-user")
    assert [(i["type"], i["value"], i["primary"]) for i in requester["identities"]] == [
        ("email", "ada.lovelace@example.com", True)]
    # The description is the first comment, public.
    [first] = await comments(api, ticket["id"])
    assert (first["body"], first["public"]) == ("My grinder arrived broken.", True)
    # The audit of the creation: the comment, the fields, the requester's notification.
    assert audit["ticket_id"] == ticket["id"] and audit["via"]["channel"] == "api"
    assert audit["events"][0]["type"] == "Comment"
    assert audit["events"][0]["body"] == first["body"]
    created_fields = {e["field_name"]: e["value"] for e in events_of([audit], "Create")}
    assert created_fields["status"] == "new" and created_fields["priority"] == "high"
    assert created_fields["tags"] == ["damaged", "returns"]
    assert created_fields[str(ORDER_NUMBER)] == "A-99999"
    [notified] = events_of([audit], "Notification")
    assert notified["recipients"] == [ticket["requester_id"]]
    assert notified["via"]["channel"] == "rule"
    assert await audits(api, ticket["id"]) == [audit]

    # The same email again is the same user, not a new one.
    again = await api.ok("POST", T, {"ticket": {
        "comment": {"body": "Also, the lid is cracked.\nSecond line."},
        "requester": {"email": "ADA.LOVELACE@example.com"}}}, status=201)
    assert again["ticket"]["requester_id"] == ticket["requester_id"]
    assert again["ticket"]["subject"] == "Also, the lid is cracked."  # from the comment
    found = await api.ok("GET", "/api/v2/users/search?query=ada.lovelace@example.com")
    assert [u["id"] for u in found["users"]] == [ticket["requester_id"]]


async def test_create_refuses_what_zendesk_refuses(episode: MakeEpisode) -> None:
    api = await episode(setup=user_setup())
    customer = api.vars["customer"]["id"]
    before = await api.state()
    for body, expected in (
        ({"subject": "No description", "requester_id": customer},
         ("description", "description_required")),
        ({"comment": {"body": "x"}, "custom_fields": [{"id": 999, "value": "x"}]},
         ("custom_fields", "ticket_field_not_found")),
        ({"comment": {"body": "x"}, "custom_fields": [{"id": CONTACT_REASON, "value": "love"}]},
         ("custom_fields", "invalid_option")),
        ({"comment": {"body": "x"}, "requester_id": 99_999_999},
         ("requester_id", "user_not_found")),
        ({"comment": {"body": "x"}, "group_id": 99}, ("group_id", "group_not_found")),
        ({"comment": {"body": "x"}, "status": "solved"},
         ("assignee_id", "solve_needs_assignee")),
    ):
        assert refusal(await api.refused("POST", T, {"ticket": body})) == expected, body
    assert await api.state() == before


# ---------------------------------------------------------------------------
# Update: fields and a comment in one request
# ---------------------------------------------------------------------------


async def test_a_public_reply_and_a_status_change_in_one_update(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    saved = await api.ok("PUT", f"{T}/{tid}", {"ticket": {
        "status": "pending", "comment": {"body": "Could you send a photo?", "public": True}}})
    ticket, audit = saved["ticket"], saved["audit"]
    assert ticket["status"] == "pending"
    assert ticket["updated_at"] > api.vars["ticket"]["updated_at"]
    assert await show(api, tid) == ticket
    thread = await comments(api, tid)
    assert [(c["author_id"], c["public"], c["body"]) for c in thread] == [
        (customer, True, "It squeaks."), (1, True, "Could you send a photo?")]
    assert [e["type"] for e in audit["events"]] == ["Comment", "Change", "Notification"]
    change = events_of([audit], "Change")[0]
    assert (change["field_name"], change["previous_value"], change["value"]) == (
        "status", "open", "pending")
    assert events_of([audit], "Notification")[0]["body"] == "Could you send a photo?"

    # An internal note: only agents see it, nobody is notified.
    note = await api.ok("PUT", f"{T}/{tid}", {"ticket": {
        "comment": {"body": "Customer sounds upset.", "public": False}}})
    assert [e["type"] for e in note["audit"]["events"]] == ["Comment"]
    assert note["ticket"]["status"] == "pending"  # an agent's note reopens nothing
    last = (await comments(api, tid))[-1]
    assert (last["author_id"], last["public"], last["body"]) == (1, False,
                                                                 "Customer sounds upset.")


async def test_tags_priority_and_custom_fields_change_as_sent(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    saved = await api.ok("PUT", f"{T}/{tid}", {"ticket": {
        "priority": "urgent", "additional_tags": ["VIP", "Escalated"], "remove_tags": ["grinder"],
        "custom_fields": [{"id": ORDER_NUMBER, "value": "A-10423"}]}})
    ticket = saved["ticket"]
    assert (ticket["priority"], ticket["tags"]) == ("urgent", ["vip", "escalated"])
    assert fields_of(ticket)[ORDER_NUMBER] == "A-10423"
    changed = {e["field_name"]: (e["previous_value"], e["value"])
               for e in events_of([saved["audit"]], "Change")}
    assert changed == {"priority": ("normal", "urgent"),
                       "tags": (["grinder"], ["vip", "escalated"]),
                       str(ORDER_NUMBER): (None, "A-10423")}
    # tags replaces them all; only the attributes sent change.
    replaced = (await api.ok("PUT", f"{T}/{tid}", {"ticket": {"tags": ["Refund"]}}))["ticket"]
    assert replaced["tags"] == ["refund"] and replaced["priority"] == "urgent"
    assert fields_of(replaced)[ORDER_NUMBER] == "A-10423"
    # Nothing new: no change, the ticket stays as it was.
    same = (await api.ok("PUT", f"{T}/{tid}", {"ticket": {"priority": "urgent"}}))
    assert same["ticket"]["updated_at"] == replaced["updated_at"]
    assert events_of([same["audit"]], "Change") == []


# ---------------------------------------------------------------------------
# Status rules
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("start", "target"), [
    ("new", "open"), ("new", "pending"), ("open", "pending"), ("open", "hold"),
    ("pending", "hold"), ("pending", "solved"), ("hold", "open"), ("solved", "open"),
    ("solved", "closed"),
])
async def test_status_changes_an_agent_may_make(episode: MakeEpisode, start: str,
                                                target: str) -> None:
    api = await episode(setup=ticket_setup(start))
    tid = api.vars["ticket"]["id"]
    saved = await api.ok("PUT", f"{T}/{tid}", {"ticket": {"status": target}})
    assert saved["ticket"]["status"] == target
    row = (await api.db()).execute("SELECT * FROM tickets WHERE id = ?", (tid,)).fetchone()
    assert row["status_updated_at"] == saved["audit"]["created_at"]
    assert (row["solved_at"] is not None) == (target in ("solved", "closed"))


@pytest.mark.parametrize("start", ["open", "pending", "hold", "solved"])
async def test_a_ticket_never_goes_back_to_new(episode: MakeEpisode, start: str) -> None:
    api = await episode(setup=ticket_setup(start))
    tid = api.vars["ticket"]["id"]
    before = await api.state()
    body = await api.refused("PUT", f"{T}/{tid}", {"ticket": {"status": "new"}})
    assert refusal(body) == ("status", "status_not_new")
    assert await api.state() == before


async def test_assigning_a_new_ticket_opens_it(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("new", assignee_id=None, group_id=None))
    tid = api.vars["ticket"]["id"]
    ticket = (await api.ok("PUT", f"{T}/{tid}", {"ticket": {"assignee_id": 1}}))["ticket"]
    # The assignee brings their default group; the ticket is open.
    assert (ticket["status"], ticket["assignee_id"], ticket["group_id"]) == ("open", 1, SUPPORT)


async def test_solving_needs_an_assignee(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open", assignee_id=None))
    tid = api.vars["ticket"]["id"]
    before = await api.state()
    body = await api.refused("PUT", f"{T}/{tid}", {"ticket": {
        "status": "solved", "comment": {"body": "Fixed!"}}})
    assert refusal(body) == ("assignee_id", "solve_needs_assignee")
    assert await api.state() == before  # not even the comment
    solved = await api.ok("PUT", f"{T}/{tid}", {"ticket": {"status": "solved",
                                                            "assignee_id": 1}})
    assert solved["ticket"]["status"] == "solved"
    # Unassigning a solved ticket is refused the same way.
    body = await api.refused("PUT", f"{T}/{tid}", {"ticket": {"assignee_id": None}})
    assert refusal(body) == ("assignee_id", "solve_needs_assignee")


@pytest.mark.parametrize("start", ["pending", "hold", "solved"])
async def test_an_end_users_comment_reopens_the_ticket(episode: MakeEpisode,
                                                       start: str) -> None:
    api = await episode(setup=ticket_setup(start))
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    # An agent's reply leaves the status alone...
    kept = await api.ok("PUT", f"{T}/{tid}", {"ticket": {"comment": {"body": "Any news?"}}})
    assert kept["ticket"]["status"] == start
    # ...the requester's word reopens it.
    saved = await api.ok("PUT", f"{T}/{tid}", {"ticket": {
        "comment": {"body": "It still squeaks.", "author_id": customer}}})
    assert saved["ticket"]["status"] == "open"
    assert saved["audit"]["author_id"] == customer
    assert (await comments(api, tid))[-1]["author_id"] == customer


async def test_a_closed_ticket_refuses_every_change(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("closed") + ticket_setup(
        "open", bind="other", with_requester=False))
    tid, other = api.vars["ticket"]["id"], api.vars["other"]["id"]
    preview = (await api.ok("GET", f"{T}/{tid}/macros/1/apply"))["result"]["ticket"]
    before = await api.state()
    for method, path, body in (
        ("PUT", f"{T}/{tid}", {"ticket": {"priority": "high"}}),
        ("PUT", f"{T}/{tid}", {"ticket": {"status": "open"}}),
        ("PUT", f"{T}/{tid}", {"ticket": {"comment": {"body": "hello"}}}),
        ("PUT", f"{T}/{tid}", {"ticket": {"comment": {
            "body": "It broke again", "author_id": api.vars["customer"]["id"]}}}),
        ("PUT", f"{T}/{tid}", {"ticket": preview}),  # a macro's result, saved
        ("PUT", f"{T}/{tid}/tags", {"tags": ["again"]}),
        ("POST", f"{T}/{tid}/tags", {"tags": ["again"]}),
        ("DELETE", f"{T}/{tid}/tags", {"tags": ["grinder"]}),
        ("POST", f"{T}/{tid}/merge", {"ids": [other]}),
    ):
        found = await api.refused(method, path, body)
        assert found["details"]["status"][0]["error"] == "ticket_closed", (path, body)
        assert found["details"]["status"][0]["description"] == \
            "Status: closed prevents ticket update"
    assert await api.state() == before


# ---------------------------------------------------------------------------
# Assignment
# ---------------------------------------------------------------------------


async def test_the_assignee_must_be_an_active_agent_of_the_group(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    billing, inactive = await agent_of(api, BILLING), await agent_of(api, SUPPORT, active=False)
    before = await api.state()
    for change, expected in (
        ({"group_id": BILLING}, ("group_id", "assignee_not_in_group")),
        ({"assignee_id": billing, "group_id": SUPPORT}, ("assignee_id", "assignee_not_in_group")),
        ({"assignee_id": inactive}, ("assignee_id", "assignee_inactive")),
        ({"assignee_id": customer}, ("assignee_id", "assignee_not_agent")),
        ({"assignee_id": 99_999_999}, ("assignee_id", "user_not_found")),
        ({"group_id": 99}, ("group_id", "group_not_found")),
    ):
        body = await api.refused("PUT", f"{T}/{tid}", {"ticket": change})
        assert refusal(body) == expected, change
    assert await api.state() == before
    # An assignee alone brings their default group; re-routing unassigned is fine.
    moved = (await api.ok("PUT", f"{T}/{tid}", {"ticket": {"assignee_id": billing}}))["ticket"]
    assert (moved["group_id"], moved["assignee_id"]) == (BILLING, billing)
    escalated = (await api.ok("PUT", f"{T}/{tid}", {"ticket": {
        "group_id": TIER_2, "assignee_id": None}}))["ticket"]
    assert (escalated["group_id"], escalated["assignee_id"]) == (TIER_2, None)
    by_email = (await api.ok("PUT", f"{T}/{tid}", {"ticket": {
        "assignee_email": "ai.agent@helpdesk.example", "group_id": SUPPORT}}))["ticket"]
    assert (by_email["group_id"], by_email["assignee_id"]) == (SUPPORT, 1)


# ---------------------------------------------------------------------------
# Bulk updates, follow-ups, merges
# ---------------------------------------------------------------------------


async def test_update_many_as_a_job_with_per_item_results(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open") + ticket_setup(
        "closed", bind="closed", with_requester=False) + ticket_setup(
        "pending", bind="pending", with_requester=False))
    tid, closed, pending = (api.vars[k]["id"] for k in ("ticket", "closed", "pending"))
    # One change for the tickets in ?ids=: the closed and the unknown one fail alone.
    job = (await api.ok("PUT", f"{T}/update_many?ids={tid},{closed},99999999",
                        {"ticket": {"priority": "high", "additional_tags": ["bulk"]}}))
    status = job["job_status"]
    assert status["url"] == f"{BASE}/api/v2/job_statuses/{status['id']}.json"
    assert (status["status"], status["total"], status["progress"]) == ("completed", 3, 3)
    results = {r["id"]: r for r in status["results"]}
    assert results[tid]["success"] is True and results[tid]["status"] == "Updated"
    assert (results[closed]["success"], results[closed]["error"]) == (False, "ticket_closed")
    assert (results[99999999]["success"], results[99999999]["error"]) == (
        False, "ticket_not_found")
    assert await api.ok("GET", f"/api/v2/job_statuses/{status['id']}") == job
    assert (await show(api, tid))["tags"] == ["grinder", "bulk"]
    assert (await show(api, closed))["priority"] == "normal"

    # Each ticket its own change: one refusal does not stop the other.
    job = await api.ok("PUT", f"{T}/update_many", {"tickets": [
        {"id": tid, "status": "pending", "comment": {"body": "Waiting on you."}},
        {"id": pending, "status": "new"}]})
    results = {r["id"]: r for r in job["job_status"]["results"]}
    assert results[tid]["success"] and not results[pending]["success"]
    assert results[pending]["error"] == "status_not_new"
    assert (await show(api, tid))["status"] == "pending"
    assert (await comments(api, tid))[-1]["body"] == "Waiting on you."
    assert (await show(api, pending))["status"] == "pending"

    # A body without tickets, or a change without ids, says what to send.
    body = await api.refused("PUT", f"{T}/update_many", {"ticket": {"priority": "low"}})
    assert refusal(body) == ("tickets", "update_many_body")
    body = await api.refused("PUT", f"{T}/update_many?ids=1,x", {"ticket": {"priority": "low"}})
    assert refusal(body)[0] == "ids"
    assert (await api.get("/api/v2/job_statuses/V3-nope")).json() == {
        "error": "RecordNotFound", "description": "Not found"}


async def test_a_follow_up_of_a_closed_ticket(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("closed", tags='["grinder", "vip"]'))
    closed, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    created = await api.ok("POST", T, {"ticket": {
        "via_followup_source_id": closed, "comment": {"body": "It squeaks again."}}},
        status=201)
    followup = created["ticket"]
    assert followup["via_followup_source_id"] == closed
    assert (followup["requester_id"], followup["tags"], followup["status"]) == (
        customer, ["grinder", "vip"], "new")
    assert followup["subject"] == "Help with my grinder"
    assert (await show(api, closed))["status"] == "closed"  # the source stays closed
    body = await api.refused("POST", T, {"ticket": {
        "via_followup_source_id": 99_999_999, "comment": {"body": "x"}}})
    assert refusal(body) == ("via_followup_source_id", "ticket_not_found")


async def test_merge_refusals_change_nothing(episode: MakeEpisode) -> None:
    setup = (ticket_setup("open")
             + ticket_setup("new", bind="target", with_requester=False, assignee_id=None)
             + ticket_setup("closed", bind="closed", with_requester=False)
             + ticket_setup("solved", bind="solved", with_requester=False)
             + user_setup("other", name="Otto Other", email="otto@example.com")
             + ticket_setup("open", bind="stranger", requester="other", with_requester=False))
    api = await episode(setup=setup)
    source, target = api.vars["ticket"]["id"], api.vars["target"]["id"]
    closed, solved, stranger = (api.vars[k]["id"] for k in ("closed", "solved", "stranger"))
    before = await api.state()
    for into, ids, expected in (
        (source, [source], ("ids", "merge_into_self")),
        (closed, [source], ("status", "ticket_closed")),
        (target, [closed], ("ids", "merge_source_solved")),
        (target, [solved], ("ids", "merge_source_solved")),
        (target, [stranger], ("ids", "merge_requester_mismatch")),
        (target, [99_999_999], ("ids", "ticket_not_found")),
        (target, [source, stranger], ("ids", "merge_requester_mismatch")),  # all or nothing
    ):
        body = await api.refused("POST", f"{T}/{into}/merge", {"ids": ids})
        assert refusal(body) == expected, (into, ids)
    assert (await api.refused("POST", f"{T}/99999999/merge", {"ids": [source]}, status=404)
            ) == {"error": "RecordNotFound", "description": "Not found"}
    assert refusal(await api.refused("POST", f"{T}/{target}/merge", {"ids": []}))[0] == "ids"
    assert await api.state() == before


async def test_merge_closes_the_sources_into_the_target(episode: MakeEpisode) -> None:
    setup = (ticket_setup("open", tags='["grinder", "vip"]')
             + ticket_setup("pending", bind="second", with_requester=False)
             + ticket_setup("new", bind="target", with_requester=False, assignee_id=None,
                            subject="Grinder again"))
    api = await episode(setup=setup)
    first, second, target = (api.vars[k]["id"] for k in ("ticket", "second", "target"))
    job = (await api.ok("POST", f"{T}/{target}/merge", {"ids": [first, second]}))["job_status"]
    assert (job["job_type"], job["status"]) == ("merge", "completed")
    assert [(r["id"], r["success"]) for r in job["results"]] == [(first, True), (second, True)]
    assert (await api.ok("GET", f"/api/v2/job_statuses/{job['id']}"))["job_status"] == job
    db = await api.db()
    for source in (first, second):
        ticket = await show(api, source)
        assert ticket["status"] == "closed" and ticket["tags"][-1] == "closed_by_merge"
        row = db.execute("SELECT merged_into_id FROM tickets WHERE id = ?", (source,)).fetchone()
        assert row["merged_into_id"] == target
        thread = await comments(api, source)
        assert thread[0]["body"] == "It squeaks."  # the source's comments stay
        assert (thread[-1]["author_id"], thread[-1]["public"]) == (1, False)
        assert f"#{target}" in thread[-1]["body"]
    assert (await show(api, first))["tags"] == ["grinder", "vip", "closed_by_merge"]
    kept = await show(api, target)
    assert kept["status"] == "new" and "closed_by_merge" not in kept["tags"]
    note = (await comments(api, target))[-1]
    assert not note["public"] and f"#{first}" in note["body"] and f"#{second}" in note["body"]


async def test_merge_comments_as_given(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open") + ticket_setup(
        "open", bind="target", with_requester=False))
    source, target = api.vars["ticket"]["id"], api.vars["target"]["id"]
    await api.ok("POST", f"{T}/{target}/merge", {
        "ids": [source], "target_comment": "Merged your duplicate request.",
        "source_comment": "Closed as a duplicate.", "target_comment_is_public": True})
    assert [(c["body"], c["public"]) for c in (await comments(api, target))[-1:]] == [
        ("Merged your duplicate request.", True)]
    assert [(c["body"], c["public"]) for c in (await comments(api, source))[-1:]] == [
        ("Closed as a duplicate.", False)]


# ---------------------------------------------------------------------------
# Macros: a preview, saved with an update
# ---------------------------------------------------------------------------


async def test_a_macro_preview_saves_nothing_and_is_saved_by_an_update(
        episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    before = await api.state()
    result = (await api.ok("GET", f"{T}/{tid}/macros/1/apply"))["result"]
    preview = result["ticket"]
    assert preview["id"] == tid and preview["status"] == "pending"  # "Ask for the order number"
    assert preview["comment"]["public"] is True
    assert preview["comment"]["body"].startswith("Hi Tess, could you send me your order number?")
    assert await api.state() == before  # nothing saved
    assert (await show(api, tid))["status"] == "open"

    # Saved back as read, nulls and read-only attributes included (what zenpy sends).
    saved = await api.ok("PUT", f"{T}/{tid}", {"ticket": preview})
    assert saved["ticket"]["status"] == "pending"
    last = (await comments(api, tid))[-1]
    assert (last["author_id"], last["public"], last["body"]) == (
        1, True, preview["comment"]["body"])
    assert [e["type"] for e in saved["audit"]["events"]] == ["Comment", "Change",
                                                             "Notification"]

    # A macro that solves and tags, on the same ticket.
    refund = (await api.ok("GET", f"{T}/{tid}/macros/2/apply"))["result"]["ticket"]
    assert (refund["status"], refund["tags"]) == ("solved", ["grinder", "refund_issued"])
    solved = await api.ok("PUT", f"{T}/{tid}", {"ticket": refund})
    assert (solved["ticket"]["status"], solved["ticket"]["tags"]) == (
        "solved", ["grinder", "refund_issued"])


async def test_a_macros_changes_and_refusals(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    changes = (await api.ok("GET", "/api/v2/macros/3/apply"))["result"]["ticket"]
    assert changes["group_id"] == BILLING and changes["comment"]["public"] is False
    assert "Escalated to Billing." in changes["comment"]["body"]
    inactive = await api.refused("GET", f"{T}/{tid}/macros/8/apply")
    assert refusal(inactive) == ("macro_id", "macro_inactive")
    assert (await api.refused("GET", f"{T}/{tid}/macros/999/apply", status=404))["error"] == \
        "RecordNotFound"
    macros = (await api.ok("GET", "/api/v2/macros"))["macros"]
    assert [m["id"] for m in macros if not m["active"]] == [8]
    active = (await api.ok("GET", "/api/v2/macros/active"))["macros"]
    assert 8 not in {m["id"] for m in active} and len(active) == len(macros) - 1
    assert all({"field", "value"} <= set(a) for m in macros for a in m["actions"])


# ---------------------------------------------------------------------------
# Tags, audits, safe updates
# ---------------------------------------------------------------------------


async def test_the_tags_endpoints(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    assert await api.ok("GET", f"{T}/{tid}/tags") == {"tags": ["grinder"]}
    added = await api.ok("PUT", f"{T}/{tid}/tags", {"tags": ["VIP", "Rush order", "grinder"]})
    assert added == {"tags": ["grinder", "vip", "rush", "order"]}  # spaces split tags
    assert await api.ok("POST", f"{T}/{tid}/tags", {"tags": ["Refund", "b"]}) == {
        "tags": ["refund", "b"]}
    assert await api.ok("DELETE", f"{T}/{tid}/tags", {"tags": ["REFUND"]}) == {"tags": ["b"]}
    assert (await show(api, tid))["tags"] == ["b"]
    tag_changes = [(e["previous_value"], e["value"]) for e in events_of(
        await audits(api, tid), "Change") if e["field_name"] == "tags"]
    assert tag_changes[-1] == (["refund", "b"], ["b"])
    assert refusal(await api.refused("PUT", f"{T}/{tid}/tags", {"tags": []}))[0] == "tags"


async def test_audits_say_who_changed_what_through_which_channel(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("new", assignee_id=None, group_id=None))
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    await api.ok("PUT", f"{T}/{tid}", {"ticket": {"assignee_id": 1, "priority": "high"}})
    await api.ok("PUT", f"{T}/{tid}", {"ticket": {
        "comment": {"body": "Is it the burr?"}, "status": "pending"}})
    await api.ok("PUT", f"{T}/{tid}", {"ticket": {
        "comment": {"body": "Yes.", "author_id": customer}}})
    found = await audits(api, tid)
    assert [a["author_id"] for a in found] == [1, 1, customer]
    assert all(a["via"]["channel"] == "api" and a["ticket_id"] == tid for a in found)
    assert [a["created_at"] for a in found] == sorted(a["created_at"] for a in found)
    first = {e["field_name"]: (e["previous_value"], e["value"]) for e in found[0]["events"]}
    assert first == {"assignee_id": (None, "1"), "priority": ("normal", "high"),
                     "status": ("new", "open"), "group_id": (None, str(SUPPORT))}
    assert [e["type"] for e in found[1]["events"]] == ["Comment", "Change", "Notification"]
    comment = found[1]["events"][0]
    assert (comment["author_id"], comment["body"], comment["public"]) == (
        1, "Is it the burr?", True)
    assert comment["comment_id"] == (await comments(api, tid))[1]["id"]
    reopened = [(e["type"], e.get("value")) for e in found[2]["events"]]
    assert reopened == [("Comment", None), ("Change", "open")]  # no notification to oneself
    ids = [e["id"] for a in found for e in a["events"]]
    assert len(ids) == len(set(ids))


async def test_safe_update_refuses_a_stale_stamp(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    stamp = (await show(api, tid))["updated_at"]
    await api.ok("PUT", f"{T}/{tid}", {"ticket": {"comment": {"body": "A colleague's reply"}}})
    before = await api.state()
    conflict = await api.refused("PUT", f"{T}/{tid}", {"ticket": {
        "status": "solved", "safe_update": True, "updated_stamp": stamp}}, status=409)
    assert conflict["error"] == "UpdateConflict" and conflict["description"]
    assert await api.state() == before
    fresh = (await show(api, tid))["updated_at"]
    saved = await api.ok("PUT", f"{T}/{tid}", {"ticket": {
        "status": "solved", "safe_update": True, "updated_stamp": fresh}})
    assert saved["ticket"]["status"] == "solved"
