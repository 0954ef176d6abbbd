"""People and knowledge through Zendesk's API: users (search, create, update, identities,
merging end users), organizations, groups and memberships, the help center's articles and
satisfaction ratings."""

from __future__ import annotations

from typing import Any

import pytest

from tests.replicas.helpdesk.conftest import BASE, Api
from tests.replicas.helpdesk.helpdesk_support import (
    SUPPORT,
    MakeEpisode,
    ticket_setup,
    user_setup,
)

pytestmark = pytest.mark.anyio
U = "/api/v2/users"
NOT_FOUND = {"error": "RecordNotFound", "description": "Not found"}


def refusal(body: dict[str, Any]) -> tuple[str, str]:
    assert body["error"] == "RecordInvalid", body
    [(field, [entry])] = body["details"].items()
    return field, entry["error"]


async def identities(api: Api, user_id: int) -> list[tuple[str, str, bool]]:
    found = (await api.ok("GET", f"{U}/{user_id}/identities"))["identities"]
    return [(i["type"], i["value"], i["primary"]) for i in found]


# ---------------------------------------------------------------------------
# Users
# ---------------------------------------------------------------------------


async def test_find_users(episode: MakeEpisode) -> None:
    api = await episode(setup=user_setup(phone="+1 555 0100", legacy_id="DK-77"))
    customer = api.vars["customer"]
    me = (await api.ok("GET", f"{U}/me"))["user"]
    assert (me["id"], me["name"], me["role"], me["default_group_id"]) == (
        1, "AI Agent", "agent", SUPPORT)
    for query in ("tess@example.com", "TESS@EXAMPLE.COM", "email:tess@example.com",
                  "Ticketson", "name:tess tick", "555 0100"):
        found = await api.ok("GET", f"{U}/search", params={"query": query})
        assert customer["id"] in [u["id"] for u in found["users"]], query
    exact = await api.ok("GET", f"{U}/search", params={"query": "tess@example.com"})
    assert [u["id"] for u in exact["users"]] == [customer["id"]]
    by_legacy = await api.ok("GET", f"{U}/search", params={"external_id": "DK-77"})
    assert [(u["id"], u["external_id"]) for u in by_legacy["users"]] == [
        (customer["id"], "DK-77")]
    assert refusal(await api.refused("GET", f"{U}/search"))[0] == "query"
    found = (await api.ok("GET", f"{U}/{customer['id']}"))["user"]
    assert found["url"] == f"{BASE}/api/v2/users/{customer['id']}.json"
    assert (found["role"], found["user_fields"]["tier"], found["active"]) == (
        "end-user", "silver", True)
    # Staff and end users are one resource, by role.
    for role in ("agent", "admin", "end-user"):
        listed = await api.ok("GET", f"{U}?role={role}&per_page=100")
        assert listed["users"] and {u["role"] for u in listed["users"]} == {role}
    agents = (await api.ok("GET", f"{U}/search?query=role:agent&per_page=100"))["users"]
    assert {u["role"] for u in agents} == {"agent"}
    many = await api.ok("GET", f"{U}/show_many?ids=1,{customer['id']},99999999")
    assert [u["id"] for u in many["users"]] == [1, customer["id"]]


async def test_create_and_update_a_user(episode: MakeEpisode) -> None:
    api = await episode(setup=user_setup())
    customer = api.vars["customer"]["id"]
    created = (await api.ok("POST", U, {"user": {
        "name": "Grace Hopper", "email": "grace@example.com", "phone": "+1 555 0199",
        "user_fields": {"tier": "gold"}}}, status=201))["user"]
    assert (created["role"], created["user_fields"]["tier"], created["locale"]) == (
        "end-user", "gold", "en-US")
    assert await identities(api, created["id"]) == [
        ("email", "grace@example.com", True), ("phone_number", "+1 555 0199", True)]
    taken = await api.refused("POST", U, {"user": {"name": "Imposter",
                                                    "email": "TESS@example.com"}})
    assert refusal(taken) == ("email", "duplicate_value")
    assert refusal(await api.refused("POST", U, {"user": {"email": "x@example.com"}}))[0] == \
        "name"

    # Only what is sent changes; a phone replaces the primary phone number.
    updated = (await api.ok("PUT", f"{U}/{customer}", {"user": {
        "phone": "+44 7700 900123", "notes": "Prefers email.", "organization_id": 1,
        "user_fields": {"tier": "platinum"}}}))["user"]
    assert (updated["phone"], updated["notes"], updated["organization_id"],
            updated["user_fields"]["tier"], updated["name"]) == (
        "+44 7700 900123", "Prefers email.", 1, "platinum", "Tess Ticketson")
    await api.ok("PUT", f"{U}/{customer}", {"user": {"phone": "+44 7700 900999"}})
    assert await identities(api, customer) == [
        ("email", "tess@example.com", True), ("phone_number", "+44 7700 900999", True)]
    bad_org = await api.refused("PUT", f"{U}/{customer}", {"user": {"organization_id": 99999}})
    assert refusal(bad_org) == ("organization_id", "organization_not_found")
    # Read-only attributes a client sends back are ignored.
    read = (await api.ok("GET", f"{U}/{customer}"))["user"]
    again = (await api.ok("PUT", f"{U}/{customer}", {"user": read}))["user"]
    assert again["phone"] == "+44 7700 900999"


async def test_an_email_change_goes_through_identities(episode: MakeEpisode) -> None:
    api = await episode(setup=user_setup() + user_setup(
        "other", name="Otto Other", email="otto@example.com"))
    customer, other = api.vars["customer"]["id"], api.vars["other"]["id"]
    # Updating the email only adds it, as a secondary identity.
    user = (await api.ok("PUT", f"{U}/{customer}", {"user": {
        "email": "tess.new@example.com"}}))["user"]
    assert user["email"] == "tess@example.com"
    assert await identities(api, customer) == [
        ("email", "tess@example.com", True), ("email", "tess.new@example.com", False)]
    found = (await api.ok("GET", f"{U}/{customer}/identities"))["identities"]
    primary, new = found
    assert new["url"] == f"{BASE}/api/v2/users/{customer}/identities/{new['id']}.json"
    assert (await api.ok("GET", f"{U}/{customer}/identities/{new['id']}"))["identity"] == new
    # The primary email cannot be deleted; another user's identity is not this user's.
    before = await api.state()
    body = await api.refused("DELETE", f"{U}/{customer}/identities/{primary['id']}")
    assert body["details"][next(iter(body["details"]))][0]["error"] == "primary_identity"
    assert await api.refused("GET", f"{U}/{other}/identities/{new['id']}", status=404) == \
        NOT_FOUND
    assert await api.refused("DELETE", f"{U}/{other}/identities/{new['id']}", status=404) \
        == NOT_FOUND
    taken = await api.refused("POST", f"{U}/{customer}/identities", {"identity": {
        "type": "email", "value": "otto@example.com"}})
    assert refusal(taken)[1] == "duplicate_value"
    assert await api.state() == before
    # Made primary, the new address is the user's email; the old one can then go.
    made = await api.ok("PUT", f"{U}/{customer}/identities/{new['id']}/make_primary")
    assert [(i["value"], i["primary"]) for i in made["identities"]] == [
        ("tess@example.com", False), ("tess.new@example.com", True)]
    assert (await api.ok("GET", f"{U}/{customer}"))["user"]["email"] == "tess.new@example.com"
    assert await api.ok("DELETE", f"{U}/{customer}/identities/{primary['id']}",
                        status=204) is None
    assert await identities(api, customer) == [("email", "tess.new@example.com", True)]
    old = await api.ok("GET", f"{U}/search", params={"query": "tess@example.com"})
    assert old["users"] == []
    # A phone number added to a user without one is their primary phone.
    phone = (await api.ok("POST", f"{U}/{customer}/identities", {"identity": {
        "type": "phone_number", "value": "+1 555 0142"}}, status=201))["identity"]
    assert phone["primary"] is True
    assert (await api.ok("GET", f"{U}/{customer}"))["user"]["phone"] == "+1 555 0142"


async def test_merging_end_users_moves_their_tickets(episode: MakeEpisode) -> None:
    setup = (user_setup()
             + user_setup("dup", name="Tess T. Ticketson", email="tess.t@example.com")
             + ticket_setup("open", bind="open", requester="dup", with_requester=False)
             + ticket_setup("closed", bind="closed", requester="dup", with_requester=False))
    api = await episode(setup=setup)
    keep, dup = api.vars["customer"]["id"], api.vars["dup"]["id"]
    before = await api.state()
    for source, target, expected in (
        (5, keep, ("id", "merge_end_users_only")),
        (keep, 5, ("id", "merge_end_users_only")),
        (keep, keep, ("id", "merge_into_self")),
    ):
        body = await api.refused("PUT", f"{U}/{source}/merge", {"user": {"id": target}})
        assert refusal(body) == expected, (source, target)
    assert await api.refused("PUT", f"{U}/99999999/merge", {"user": {"id": keep}},
                             status=404) == NOT_FOUND
    # A user named in the body that does not exist is the body's fault: 422, as elsewhere.
    body = await api.refused("PUT", f"{U}/{dup}/merge", {"user": {"id": 99_999_999}})
    assert refusal(body) == ("id", "user_not_found")
    assert await api.state() == before

    survivor = (await api.ok("PUT", f"{U}/{dup}/merge", {"user": {"id": keep}}))["user"]
    assert survivor["id"] == keep and survivor["email"] == "tess@example.com"
    moved = (await api.ok("GET", f"{U}/{keep}/tickets/requested"))["tickets"]
    assert sorted(t["id"] for t in moved) == sorted([api.vars["open"]["id"],
                                                     api.vars["closed"]["id"]])
    assert (await api.ok("GET", f"{U}/{dup}/tickets/requested"))["tickets"] == []
    assert ("email", "tess.t@example.com", False) in await identities(api, keep)
    assert (await api.ok("GET", f"{U}/{dup}"))["user"]["active"] is False
    found = await api.ok("GET", f"{U}/search", params={"query": "tess.t@example.com"})
    assert [u["id"] for u in found["users"]] == [keep]
    # A merged user is gone: no more changes or merges.
    body = await api.refused("PUT", f"{U}/{dup}", {"user": {"notes": "x"}})
    assert refusal(body)[1] == "user_deleted"


# ---------------------------------------------------------------------------
# Organizations, groups, memberships
# ---------------------------------------------------------------------------


async def test_organizations(episode: MakeEpisode) -> None:
    api = await episode()
    listed = (await api.ok("GET", "/api/v2/organizations?per_page=100"))["organizations"]
    assert len(listed) >= 20 and all(o["domain_names"] for o in listed)
    first = (await api.ok("GET", "/api/v2/organizations/1"))["organization"]
    assert first == listed[0]
    found = await api.ok("GET", "/api/v2/organizations/search",
                         params={"name": first["name"].upper()})
    assert [o["id"] for o in found["organizations"]] == [1]
    assert (await api.ok("GET", "/api/v2/organizations/search?name=No Such Co")
            )["organizations"] == []
    people = (await api.ok("GET", "/api/v2/organizations/1/users?per_page=100"))["users"]
    assert people and {u["organization_id"] for u in people} == {1}
    tickets = (await api.ok("GET", "/api/v2/organizations/1/tickets?per_page=100"))["tickets"]
    assert tickets and {t["organization_id"] for t in tickets} == {1}
    assert {t["requester_id"] for t in tickets} <= {u["id"] for u in people}


async def test_groups_and_memberships(episode: MakeEpisode) -> None:
    api = await episode()
    groups = (await api.ok("GET", "/api/v2/groups"))["groups"]
    assert [(g["id"], g["name"]) for g in groups] == [
        (1, "Support"), (2, "Billing"), (3, "Tier 2"), (4, "Trust & Safety")]
    assert (await api.ok("GET", "/api/v2/groups/2"))["group"] == groups[1]
    staff = {u["id"]: u for role in ("agent", "admin") for u in (
        await api.ok("GET", f"{U}?role={role}&per_page=100"))["users"]}
    every = (await api.ok("GET", "/api/v2/group_memberships?per_page=100"))["group_memberships"]
    assert {m["user_id"] for m in every} == set(staff)  # every staff member, no end user
    defaults = {m["user_id"]: m["group_id"] for m in every if m["default"]}
    assert defaults == {uid: u["default_group_id"] for uid, u in staff.items()}
    for group in groups:
        found = await api.ok("GET", f"/api/v2/groups/{group['id']}/memberships?include=users")
        members = {m["user_id"] for m in found["group_memberships"]}
        assert members and {m["group_id"] for m in found["group_memberships"]} == {group["id"]}
        assert {u["id"] for u in found["users"]} == members
        users = (await api.ok("GET", f"/api/v2/groups/{group['id']}/users"))["users"]
        assert {u["id"] for u in users} == members
    mine = await api.ok("GET", f"{U}/1/group_memberships?include=groups")
    assert [(m["group_id"], m["default"]) for m in mine["group_memberships"]] == [(SUPPORT, True)]
    assert [g["name"] for g in mine["groups"]] == ["Support"]
    one = every[0]
    assert (await api.ok("GET", f"/api/v2/group_memberships/{one['id']}"))[
        "group_membership"] == one


# ---------------------------------------------------------------------------
# Help center, satisfaction ratings
# ---------------------------------------------------------------------------


async def test_help_center_articles(episode: MakeEpisode) -> None:
    api = await episode()
    articles = (await api.ok("GET", "/api/v2/help_center/articles"))["articles"]
    assert len(articles) >= 10 and all(a["body"] and a["title"] for a in articles)
    found = await api.ok("GET", "/api/v2/help_center/articles/search",
                         params={"query": "Refund DAYS"})
    assert found["count"] >= 2
    for article in found["results"]:
        assert article["result_type"] == "article"
        text = (article["title"] + article["body"]).lower()
        assert "refund" in text and "days" in text
    titles = {a["title"] for a in found["results"]}
    assert {"Refund policy", "Refund windows by loyalty tier (2025)"} <= titles
    german = await api.ok("GET", "/api/v2/help_center/articles/search",
                          params={"query": "Rückerstattung", "locale": "de-de"})
    assert [a["locale"] for a in german["results"]] == ["de-de"]
    by_locale = (await api.ok("GET", "/api/v2/help_center/de-de/articles"))["articles"]
    assert [a["id"] for a in by_locale] == [a["id"] for a in german["results"]]
    newest = (await api.ok("GET", "/api/v2/help_center/articles?sort_by=updated_at&"
                                  "sort_order=desc"))["articles"]
    assert [a["updated_at"] for a in newest] == sorted((a["updated_at"] for a in articles),
                                                       reverse=True)
    one = articles[1]
    assert (await api.ok("GET", f"/api/v2/help_center/articles/{one['id']}"))["article"] == one
    assert one["url"] == f"{BASE}/api/v2/help_center/articles/{one['id']}.json"
    assert (await api.ok("GET", "/api/v2/help_center/articles/search",
                         params={"query": "zeppelin"}))["results"] == []


async def test_satisfaction_ratings(episode: MakeEpisode) -> None:
    api = await episode()
    ratings = (await api.ok("GET", "/api/v2/satisfaction_ratings?per_page=100")
               )["satisfaction_ratings"]
    assert ratings and {r["score"] for r in ratings} == {"good", "bad"}
    for score in ("good", "bad"):
        found = (await api.ok("GET", f"/api/v2/satisfaction_ratings?score={score}&per_page=100"
                              ))["satisfaction_ratings"]
        assert found and {r["score"] for r in found} == {score}
    rated = await api.ok("GET", "/api/v2/tickets/show_many?ids=" + ",".join(
        str(r["ticket_id"]) for r in ratings[:20]))
    assert {t["status"] for t in rated["tickets"]} <= {"solved", "closed"}
    by_ticket = {t["id"]: t for t in rated["tickets"]}
    assert all(by_ticket[r["ticket_id"]]["requester_id"] == r["requester_id"]
               for r in ratings[:20])
    one = ratings[0]
    assert (await api.ok("GET", f"/api/v2/satisfaction_ratings/{one['id']}"))[
        "satisfaction_rating"] == one
    assert refusal(await api.refused("GET", "/api/v2/satisfaction_ratings?score=meh"))[0] == \
        "score"
