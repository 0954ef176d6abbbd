"""Zendesk's API conventions on the helpdesk: sideloads, both pagings with absolute links (the
proxy's public base), the ``.json`` suffix, Zendesk's error bodies, unknown attributes, and
the search API and views end to end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from replicas.runtime.clock import WORLD_START, iso
from tests.replicas.helpdesk.conftest import BASE, Api
from tests.replicas.helpdesk.helpdesk_support import (
    ORDER_NUMBER,
    MakeEpisode,
    fields_of,
    ticket_setup,
)

pytestmark = pytest.mark.anyio
NOT_FOUND = {"error": "RecordNotFound", "description": "Not found"}
UNSOLVED = {"new", "open", "pending", "hold"}


def local(link: str) -> str:
    """An absolute link the API gave, as a path on this app."""
    assert link.startswith(f"{BASE}/api/v2/"), link
    return link.removeprefix(BASE)


# ---------------------------------------------------------------------------
# Sideloads
# ---------------------------------------------------------------------------


async def test_sideloads_bring_the_records_a_page_names(episode: MakeEpisode) -> None:
    api = await episode()
    found = await api.ok("GET", "/api/v2/tickets?per_page=20&include=users,groups")
    named = {t[k] for t in found["tickets"] for k in ("requester_id", "submitter_id",
                                                      "assignee_id") if t[k] is not None}
    assert sorted(u["id"] for u in found["users"]) == sorted(named)
    assert {g["id"] for g in found["groups"]} == {t["group_id"] for t in found["tickets"]
                                                  if t["group_id"] is not None}
    assert "organizations" not in found
    # Anything else (zenpy sends include=None) is ignored.
    plain = await api.ok("GET", "/api/v2/tickets?per_page=20&include=None")
    assert set(plain) == {"tickets", "count", "next_page", "previous_page"}
    assert plain["tickets"] == found["tickets"]
    one = await api.ok("GET", "/api/v2/tickets/20?include=users,organizations,slas")
    assert set(one) == {"ticket", "users", "organizations"}
    assert one["ticket"]["requester_id"] in {u["id"] for u in one["users"]}
    assert all({"metric", "stage", "breach_at"} <= set(m)
               for m in one["ticket"]["slas"]["policy_metrics"])
    assert "slas" not in (await api.ok("GET", "/api/v2/tickets/20"))["ticket"]
    users = await api.ok("GET", "/api/v2/users/1?include=groups,identities")
    assert [g["id"] for g in users["groups"]] == [users["user"]["default_group_id"]]
    assert [i["value"] for i in users["identities"]] == ["ai.agent@helpdesk.example"]


# ---------------------------------------------------------------------------
# Paging
# ---------------------------------------------------------------------------


async def test_offset_paging_with_absolute_links(episode: MakeEpisode) -> None:
    api = await episode()
    first = await api.ok("GET", "/api/v2/tickets?per_page=100")
    total = first["count"]
    assert total >= 500 and len(first["tickets"]) == 100 and first["previous_page"] is None
    assert first["next_page"] == f"{BASE}/api/v2/tickets.json?page=2&per_page=100"
    seen = [t["id"] for t in first["tickets"]]
    link = first["next_page"]
    while link is not None:
        page = await api.ok("GET", local(link))
        assert page["count"] == total and page["previous_page"] is not None
        seen += [t["id"] for t in page["tickets"]]
        link = page["next_page"]
    assert len(seen) == total and seen == sorted(set(seen))  # every ticket once, by id
    # The links keep the query; without the proxy's base they are relative.
    kept = await api.ok("GET", "/api/v2/tickets?per_page=5&page=2&sort_by=updated_at")
    assert kept["next_page"] == \
        f"{BASE}/api/v2/tickets.json?sort_by=updated_at&page=3&per_page=5"
    bare = await api.ok("GET", "/api/v2/tickets?per_page=5&page=2", base=None)
    assert bare["previous_page"] == "/api/v2/tickets.json?page=1&per_page=5"
    assert bare["tickets"][0]["url"] == f"/api/v2/tickets/{bare['tickets'][0]['id']}.json"
    other = await api.ok("GET", "/api/v2/tickets?per_page=5", base="https://elsewhere.test/x")
    assert other["next_page"].startswith("https://elsewhere.test/x/api/v2/tickets.json?")
    for query, field in (("per_page=0", "per_page"), ("page=0", "page"),
                         ("sort_by=colour", "sort_by")):
        body = await api.refused("GET", f"/api/v2/tickets?{query}")
        assert body["error"] == "RecordInvalid" and list(body["details"]) == [field]


async def test_cursor_paging_walks_every_ticket_once(episode: MakeEpisode) -> None:
    api = await episode()
    total = (await api.ok("GET", "/api/v2/tickets?per_page=1"))["count"]
    page = await api.ok("GET", "/api/v2/tickets?page[size]=100")
    assert set(page) == {"tickets", "meta", "links"}
    seen = [t["id"] for t in page["tickets"]]
    pages = [page]
    while page["meta"]["has_more"]:
        page = await api.ok("GET", local(page["links"]["next"]))
        pages.append(page)
        seen += [t["id"] for t in page["tickets"]]
    assert len(seen) == total and seen == sorted(set(seen))
    # The last page: has_more false and no next link (test_helpdesk_zendesk_fidelity.py).
    assert page["links"]["next"] is None and not page["meta"]["has_more"]
    back = await api.ok("GET", local(pages[1]["links"]["prev"]))
    assert [t["id"] for t in back["tickets"]] == [t["id"] for t in pages[0]["tickets"]]
    after = pages[0]["meta"]["after_cursor"]
    again = await api.ok("GET", f"/api/v2/tickets?page[size]=100&page[after]={after}")
    assert again["tickets"] == pages[1]["tickets"]
    body = await api.refused("GET", "/api/v2/tickets?page[after]=not-a-cursor")
    assert list(body["details"]) == ["page[after]"]
    # Other lists page the same way.
    users = await api.ok("GET", "/api/v2/users?page[size]=2")
    assert len(users["users"]) == 2 and users["meta"]["has_more"]


async def test_a_json_suffix_is_the_same_resource(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    assert await api.ok("GET", f"/api/v2/tickets/{tid}.json") == \
        await api.ok("GET", f"/api/v2/tickets/{tid}")
    saved = await api.ok("PUT", f"/api/v2/tickets/{tid}.json",
                         {"ticket": {"priority": "high"}})
    assert saved["ticket"]["priority"] == "high"
    assert (await api.ok("GET", "/api/v2/users/me.json"))["user"]["id"] == 1
    found = await api.ok("GET", "/api/v2/search.json?query=type:group")
    assert found["count"] == 4
    assert (await api.refused("GET", "/api/v2/tickets/99999999.json", status=404)) == NOT_FOUND


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


async def test_zendesk_error_bodies(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    for path in ("/api/v2/tickets/99999999", "/api/v2/users/99999999",
                 "/api/v2/organizations/99999", "/api/v2/groups/99", "/api/v2/views/99",
                 "/api/v2/macros/99", "/api/v2/help_center/articles/999",
                 f"/api/v2/tickets/{tid}/macros/99/apply", "/api/v2/satisfaction_ratings/99999",
                 "/api/v2/nowhere"):
        assert await api.refused("GET", path, status=404) == NOT_FOUND, path
    before = await api.state()
    # A refused rule: RecordInvalid, the details keyed by the field, naming the rule.
    body = await api.refused("PUT", f"/api/v2/tickets/{tid}", {"ticket": {"status": "new"}})
    assert body == {"error": "RecordInvalid", "description": "Record validation errors",
                    "details": {"status": [{
                        "description": "Status: a ticket cannot be set back to new",
                        "error": "status_not_new"}]}}
    # A record named in the body that does not exist is the body's fault: 422, not 404.
    body = await api.refused("PUT", f"/api/v2/tickets/{tid}", {"ticket": {"group_id": 99}})
    assert body["details"]["group_id"][0]["error"] == "group_not_found"
    # Invalid values and unknown attributes, named (at any depth).
    for path, sent, field in (
        (f"/api/v2/tickets/{tid}", {"ticket": {"priority": "critical"}}, "priority"),
        (f"/api/v2/tickets/{tid}", {"ticket": {"status": "on-hold"}}, "status"),
        (f"/api/v2/tickets/{tid}", {"ticket": {"colour": "red"}}, "colour"),
        (f"/api/v2/tickets/{tid}", {"ticket": {"add_tags": ["x"]}}, "add_tags"),
        (f"/api/v2/tickets/{tid}", {"ticket": {"comment": {"body": "x", "colour": 1}}},
         "comment"),
        (f"/api/v2/tickets/{tid}", {"ticket": {"comment": {"body": ""}}}, "comment"),
        (f"/api/v2/tickets/{tid}", {"ticket": {}, "extra": 1}, "extra"),
        ("/api/v2/users/1", {"user": {"favourite_colour": "red"}}, "favourite_colour"),
        ("/api/v2/users/1", {"user": {"user_fields": {"tier": "diamond"}}}, "user_fields"),
    ):
        body = await api.refused("PUT", path, sent)
        assert body["error"] == "RecordInvalid" and list(body["details"]) == [field], sent
        assert body["details"][field][0]["description"]
    assert await api.state() == before
    # A method the path does not have.
    assert (await api.refused("PATCH", f"/api/v2/tickets/{tid}", {}, status=405))["error"] \
        == "InvalidEndpoint"


# ---------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------


async def search(api: Api, query: str, **params: Any) -> dict[str, Any]:
    found: dict[str, Any] = await api.ok("GET", "/api/v2/search",
                                         params={"query": query, **params})
    count = await api.ok("GET", "/api/v2/search/count", params={"query": query})
    assert count == {"count": found["count"]}, query
    return found


async def test_search_end_to_end(episode: MakeEpisode) -> None:
    api = await episode()
    pending = await search(api, "type:ticket status:pending", per_page=100)
    assert pending["count"] > 0 and len(pending["results"]) == pending["count"]
    assert {(r["result_type"], r["status"]) for r in pending["results"]} == {
        ("ticket", "pending")}
    unsolved = await search(api, "type:ticket status<solved tags:double_charge", per_page=100)
    assert unsolved["count"] >= 3
    assert all(r["status"] in UNSOLVED and "double_charge" in r["tags"]
               for r in unsolved["results"])
    # An order number, by its key or by the custom field's id.
    every = (await api.ok("GET", "/api/v2/tickets?per_page=100"))["tickets"]
    number = next(fields_of(t)[ORDER_NUMBER] for t in every if fields_of(t)[ORDER_NUMBER])
    by_key = await search(api, f"type:ticket order_number:{number}")
    by_id = await search(api, f"type:ticket custom_field_{ORDER_NUMBER}:{number}")
    assert by_key["count"] >= 1 and by_key["results"] == by_id["results"]
    assert all(fields_of(r)[ORDER_NUMBER] == number for r in by_key["results"])
    # A group by its name in quotes, free text, a requester by email.
    tier2 = await search(api, 'type:ticket group:"Tier 2" status:open', per_page=100)
    assert tier2["count"] > 0 and {(r["group_id"], r["status"]) for r in tier2["results"]} \
        == {(3, "open")}
    phrase = await search(api, '"charged twice"')  # subject, description or a comment
    assert phrase["count"] >= 1
    for found in phrase["results"]:
        thread = (await api.ok("GET", f"/api/v2/tickets/{found['id']}/comments"))["comments"]
        text = " ".join([found["subject"], *(c["body"] for c in thread)])
        assert "charged twice" in text.lower(), found["id"]
    requester = (await api.ok("GET", f"/api/v2/users/{every[-1]['requester_id']}"))["user"]
    theirs = await search(api, f"type:ticket requester:{requester['email']}", per_page=100)
    assert every[-1]["id"] in {r["id"] for r in theirs["results"]}
    assert {r["requester_id"] for r in theirs["results"]} == {requester["id"]}
    # Users, with their result_type; results across types by default.
    users = await search(api, f"type:user email:{requester['email']}")
    assert [(r["result_type"], r["id"]) for r in users["results"]] == [("user", requester["id"])]
    mixed = await search(api, "Support", per_page=100)
    assert {"ticket"} <= {r["result_type"] for r in mixed["results"]}
    groups = await search(api, "type:group", per_page=100)
    assert [r["name"] for r in groups["results"]] == ["Support", "Billing", "Tier 2",
                                                      "Trust & Safety"]
    # Sorted, paged by offset with absolute links.
    newest = await search(api, "type:ticket", sort_by="created_at", sort_order="desc",
                          per_page=10)
    stamps = [r["created_at"] for r in newest["results"]]
    assert stamps == sorted(stamps, reverse=True) and stamps[0] <= iso(WORLD_START)
    assert newest["next_page"].startswith(f"{BASE}/api/v2/search.json?")
    second = await api.ok("GET", local(newest["next_page"]))
    assert {r["id"] for r in second["results"]}.isdisjoint(r["id"] for r in newest["results"])
    filtered = await api.ok("GET", "/api/v2/search", params={
        "query": "status:pending", "filter[type]": "ticket"})
    assert filtered["count"] == pending["count"]


async def test_search_refuses_a_query_it_cannot_read(episode: MakeEpisode) -> None:
    api = await episode()
    for query in ("status:", "status:archived", "type:invoice", "created>yesterdayish"):
        for path in ("/api/v2/search", "/api/v2/search/count"):
            body = await api.refused("GET", path, params={"query": query})
            assert body["error"] == "RecordInvalid" and list(body["details"]) == ["query"], (
                query, body)
    assert list((await api.refused("GET", "/api/v2/search"))["details"]) == ["query"]


# ---------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------


async def test_views_list_count_and_execute_their_tickets(episode: MakeEpisode) -> None:
    api = await episode()
    views = {v["title"]: v for v in (await api.ok("GET", "/api/v2/views"))["views"]}
    assert {"All unsolved tickets", "Pending tickets", "SLA breached",
            "Unassigned tickets"} <= set(views)
    assert [v["id"] for v in (await api.ok("GET", "/api/v2/views/active"))["views"]] == \
        [v["id"] for v in views.values()]
    fits: Callable[[dict[str, Any]], bool]
    for title, fits in (
        ("All unsolved tickets", lambda t: t["status"] in UNSOLVED),
        ("Pending tickets", lambda t: t["status"] == "pending"),
        ("Unassigned tickets", lambda t: t["assignee_id"] is None and t["status"] in UNSOLVED),
        ("Your unsolved tickets", lambda t: t["assignee_id"] == 1 and t["status"] in UNSOLVED),
    ):
        view = views[title]
        assert (await api.ok("GET", f"/api/v2/views/{view['id']}"))["view"] == view
        count = (await api.ok("GET", f"/api/v2/views/{view['id']}/count"))["view_count"]
        listed = await api.ok("GET", f"/api/v2/views/{view['id']}/tickets?per_page=100")
        assert count["value"] == listed["count"], title
        assert all(fits(t) for t in listed["tickets"]), title
        key = view["execution"]["sort_by"]
        order = [t[key] for t in listed["tickets"]]
        assert order == sorted(order, reverse=view["execution"]["sort_order"] == "desc"), title
        table = await api.ok("GET", f"/api/v2/views/{view['id']}/execute?per_page=100")
        assert table["count"] == count["value"]
        assert [r["ticket"]["id"] for r in table["rows"]] == [t["id"]
                                                              for t in listed["tickets"]]
        assert {c["id"] for c in table["columns"]} >= {"subject", "status"}
    # The SLA breached view: unsolved tickets past a breach of their SLA.
    breached = views["SLA breached"]
    listed = await api.ok("GET", f"/api/v2/views/{breached['id']}/tickets?per_page=100")
    assert listed["count"] >= 10
    now = iso(WORLD_START)
    for ticket in listed["tickets"][:10]:
        assert ticket["status"] in UNSOLVED
        metrics = (await api.ok("GET", f"/api/v2/tickets/{ticket['id']}?include=slas")
                   )["ticket"]["slas"]["policy_metrics"]
        assert any(m["breach_at"] and m["breach_at"] < now and m["stage"] == "active"
                   for m in metrics), ticket["id"]
    executed = await api.ok("GET", f"/api/v2/views/{breached['id']}/execute?per_page=100")
    stamps = [r["sla_next_breach_at"] for r in executed["rows"]]
    assert all(stamps) and stamps == sorted(stamps) and stamps[-1] < now
