"""A task's setup written with the helpdesk's row factories: realistic rows, the overrides
given, new people from the seed's identity (with their identities), a ticket whose first
comment is its description and whose SLA runs, the same rows for the same seed and setup."""

from __future__ import annotations

from typing import Any

import pytest

from replicas.runtime.identity import WORLD_PEOPLE, identity
from tests.replicas.helpdesk.helpdesk_support import ORDER_NUMBER, MakeEpisode, fields_of

pytestmark = pytest.mark.anyio

# A new gold customer of a new company, a ticket about their checkout order (by number), the
# customer's follow-up and the assignee's reply.
SETUP: list[dict[str, Any]] = [
    {"factory": "organization", "bind": "org"},
    {"factory": "customer", "bind": "customer", "tier": "gold",
     "organization_id": "$org.id"},
    {"factory": "ticket", "bind": "ticket", "requester_id": "$customer.id",
     "order_number": "A-20011", "priority": "urgent"},
    {"factory": "comment", "bind": "followup", "ticket_id": "$ticket.id"},
    {"factory": "comment", "bind": "reply", "ticket_id": "$ticket.id", "author": "agent"},
]


async def test_a_setup_of_factories_makes_a_coherent_story(episode: MakeEpisode) -> None:
    api = await episode(seed=3, setup=SETUP)
    bound = api.vars
    customer = bound["customer"]
    person = identity(3).person_with(customer["email"])  # a new person of the identity's
    assert person not in identity(3).people(WORLD_PEOPLE)
    assert (customer["name"], customer["email"], customer["tier"], customer["role"]) == (
        person.name, person.email, "gold", "end-user")
    assert customer["organization_id"] == bound["org"]["id"]
    found = (await api.ok("GET", f"/api/v2/users/{customer['id']}/identities"))["identities"]
    assert [(i["type"], i["value"], i["primary"]) for i in found] == [
        ("email", person.email, True), ("phone_number", customer["phone"], True)]

    ticket = bound["ticket"]
    assert (ticket["requester_id"], ticket["submitter_id"], ticket["order_number"],
            ticket["status"]) == (customer["id"], customer["id"], "A-20011", "open")
    assert "A-20011" in ticket["subject"] + ticket["description"]
    assert ticket["priority"] == "urgent" and ticket["assignee_id"] is not None
    assert ticket["organization_id"] == bound["org"]["id"] and ticket["contact_reason"]
    groups = (await api.ok("GET", f"/api/v2/users/{ticket['assignee_id']}/groups"))["groups"]
    assert ticket["group_id"] in {g["id"] for g in groups}
    # The description is the first comment, by the requester; then the follow-up by the
    # requester and the reply by the assignee.
    thread = (await api.ok("GET", f"/api/v2/tickets/{ticket['id']}/comments"))["comments"]
    assert [(c["author_id"], c["body"], c["public"]) for c in thread] == [
        (customer["id"], ticket["description"], True),
        (customer["id"], bound["followup"]["body"], True),
        (ticket["assignee_id"], bound["reply"]["body"], True)]
    assert thread[0]["created_at"] == ticket["created_at"] < bound["followup"]["created_at"]
    # Its SLA runs from its creation (urgent: around the clock) and the reply met it.
    events = (await api.ok("GET", f"/api/v2/tickets/{ticket['id']}/metric_events")
              )["ticket_metric_events"]
    first = [(e["type"], e["time"]) for e in events
             if e["metric"] == "reply_time" and e["instance_id"] == 1]
    assert ("apply_sla", ticket["created_at"]) in first
    assert ("fulfill", bound["reply"]["created_at"]) in first
    breach = next(e for e in events if e["metric"] == "reply_time" and e["type"] == "breach")
    assert breach["time"] > ticket["created_at"] and breach["deleted"] is True

    # The agent finds it all through the API, as it would the world's.
    users = await api.ok("GET", "/api/v2/users/search", params={"query": person.email})
    assert [u["id"] for u in users["users"]] == [customer["id"]]
    about = await api.ok("GET", "/api/v2/search",
                         params={"query": "type:ticket order_number:A-20011"})
    assert [t["id"] for t in about["results"]] == [ticket["id"]]
    shown = (await api.ok("GET", f"/api/v2/tickets/{ticket['id']}"))["ticket"]
    assert (shown["group_id"], fields_of(shown)[ORDER_NUMBER]) == (ticket["group_id"],
                                                                   "A-20011")


async def test_another_apps_person_by_email(episode: MakeEpisode) -> None:
    """The checkout's new customer (the identity's next person) is the same person here."""
    person = identity(3).person(WORLD_PEOPLE + 5)
    api = await episode(seed=3, setup=[{"factory": "customer", "bind": "customer",
                                        "email": person.email}])
    assert (api.vars["customer"]["name"], api.vars["customer"]["locale"]) == (
        person.name, person.locale)
    with pytest.raises(AssertionError, match="no person of the seed's identity"):
        await episode(seed=3, setup=[{"factory": "customer", "email": "nobody@example.com"}])


async def test_a_ticket_with_given_text_and_time(episode: MakeEpisode) -> None:
    setup = [{"factory": "customer", "bind": "customer"},
             {"factory": "ticket", "bind": "ticket", "requester_id": "$customer.id",
              "subject": "New phone number", "description": "Please call me on +1 555 0100.",
              "status": "new", "created_at": "@now-30m", "tags": '["account"]'}]
    api = await episode(setup=setup)
    ticket = api.vars["ticket"]
    assert (ticket["subject"], ticket["status"]) == ("New phone number", "new")
    [first] = (await api.ok("GET", f"/api/v2/tickets/{ticket['id']}/comments"))["comments"]
    assert (first["body"], first["created_at"]) == ("Please call me on +1 555 0100.",
                                                    ticket["created_at"])
    assert (await api.ok("GET", f"/api/v2/tickets/{ticket['id']}/tags"))["tags"] == ["account"]


async def test_same_seed_and_setup_same_rows(episode: MakeEpisode) -> None:
    first, again = await episode(seed=3, setup=SETUP), await episode(seed=3, setup=SETUP)
    other = await episode(seed=4, setup=SETUP)
    assert first.vars == again.vars
    assert first.vars["customer"]["email"] != other.vars["customer"]["email"]


async def test_options_and_overrides_are_checked(episode: MakeEpisode) -> None:
    for setup, message in (
        ([{"factory": "customer", "loyalty": "gold"}], "no column 'loyalty'"),
        ([{"factory": "comment", "author_type": "agent"}], "no column 'author_type'"),
        ([{"factory": "comment", "author": "customer"}], "author: requester or agent"),
        ([{"factory": "invoice"}], "no factory 'invoice'"),
        ([{"factory": "order"}], "no factory 'order'"),  # orders are the checkout's
        ([{"insert": "customers", "values": {"name": "x"}}], "no table 'customers'"),
    ):
        with pytest.raises(AssertionError, match=message):
            await episode(setup=setup)
