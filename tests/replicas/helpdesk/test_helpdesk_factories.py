"""A task's setup written with the helpdesk's row factories: realistic rows, the overrides
given, new people from the seed's identity, the same rows for the same seed and setup."""

from __future__ import annotations

from typing import Any

import pytest

from replicas.runtime.identity import WORLD_PEOPLE, identity
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode

pytestmark = pytest.mark.anyio

# A new gold customer of a new company, a ticket about their checkout order (by number) and
# a follow-up; and the person the checkout made as a customer (another app's), by email.
SETUP: list[dict[str, Any]] = [
    {"factory": "organization", "bind": "org"},
    {"factory": "customer", "bind": "customer", "tier": "gold",
     "organization_id": "$org.id"},
    {"factory": "ticket", "bind": "ticket", "requester_id": "$customer.id",
     "order_number": "A-20011", "priority": "urgent"},
    {"factory": "comment", "bind": "followup", "ticket_id": "$ticket.id"},
]


async def test_a_setup_of_factories_makes_a_coherent_story(episode: MakeEpisode) -> None:
    api = await episode(seed=3, setup=SETUP)
    bound = api.vars
    person = identity(3).person(WORLD_PEOPLE)
    customer = bound["customer"]
    assert (customer["name"], customer["email"], customer["tier"]) == (
        person.name, person.email, "gold")
    assert customer["organization_id"] == bound["org"]["id"]
    ticket = bound["ticket"]
    assert (ticket["requester_id"], ticket["order_number"], ticket["status"]) == (
        customer["id"], "A-20011", "open")
    assert "A-20011" in ticket["subject"] + ticket["description"]
    assert ticket["priority"] == "urgent" and ticket["assignee_id"] is not None
    assert ticket["sla_due_at"] > ticket["created_at"]
    assert bound["followup"]["author_type"] == "customer"
    assert bound["followup"]["author_id"] == customer["id"]
    # The agent finds it all through the API, as it would the world's.
    found = await api.ok("GET", f"/customers?email={person.email}")
    assert found["data"][0]["id"] == customer["id"]
    about = await api.ok("GET", "/tickets?order_number=A-20011")
    assert [t["id"] for t in about["data"]] == [ticket["id"]]
    assert (await api.ok("GET", f"/tickets/{ticket['id']}"))["group_id"] == ticket["group_id"]


async def test_another_apps_person_by_email(episode: MakeEpisode) -> None:
    """The checkout's new customer (the identity's next person) is the same person here."""
    person = identity(3).person(WORLD_PEOPLE + 5)
    api = await episode(seed=3, setup=[{"factory": "customer", "bind": "customer",
                                        "email": person.email}])
    assert (api.vars["customer"]["name"], api.vars["customer"]["locale"]) == (
        person.name, person.locale)
    with pytest.raises(AssertionError, match="no person of the seed's identity"):
        await episode(seed=3, setup=[{"factory": "customer", "email": "nobody@example.com"}])


async def test_same_seed_and_setup_same_rows(episode: MakeEpisode) -> None:
    first, again = await episode(seed=3, setup=SETUP), await episode(seed=3, setup=SETUP)
    other = await episode(seed=4, setup=SETUP)
    assert first.vars == again.vars
    assert first.vars["customer"]["email"] != other.vars["customer"]["email"]


async def test_options_and_overrides_are_checked(episode: MakeEpisode) -> None:
    for setup, field in (
        ([{"factory": "customer", "loyalty": "gold"}], "setup.0.values.loyalty"),
        ([{"factory": "invoice"}], "setup.0.factory"),
        ([{"factory": "order"}], "setup.0.factory"),  # orders are the checkout's
    ):
        with pytest.raises(AssertionError, match=field):
            await episode(setup=setup)
