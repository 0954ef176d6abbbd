"""A task's setup written with the helpdesk's row factories: realistic rows, the overrides
given, new people from the seed's identity, the same rows for the same seed and setup."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from replicas.runtime.identity import WORLD_PEOPLE, identity
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode

pytestmark = pytest.mark.anyio

# A returned order of a new gold customer, its charge, a ticket about it and a follow-up.
SETUP: list[dict[str, Any]] = [
    {"factory": "organization", "bind": "org"},
    {"factory": "customer", "bind": "customer", "tier": "gold",
     "organization_id": "$org.id"},
    {"factory": "order", "bind": "order", "customer_id": "$customer.id", "status": "returned",
     "placed_at": "@now-9d"},
    {"select": "charges", "where": {"order_id": "$order.id"}, "bind": "charge"},
    {"factory": "ticket", "bind": "ticket", "requester_id": "$customer.id",
     "order_id": "$order.id", "priority": "urgent"},
    {"factory": "comment", "bind": "followup", "ticket_id": "$ticket.id"},
]


async def test_a_setup_of_factories_makes_a_coherent_story(episode: MakeEpisode) -> None:
    api = await episode(seed=3, setup=SETUP)
    bound = api.vars
    person = identity(3).person(WORLD_PEOPLE)
    customer, order, charge = bound["customer"], bound["order"], bound["charge"]
    assert (customer["name"], customer["email"], customer["tier"]) == (
        person.name, person.email, "gold")
    assert customer["organization_id"] == bound["org"]["id"]
    assert order["customer_id"] == customer["id"] and order["currency"] == person.currency
    assert order["status"] == "returned" and order["fulfilled_at"] > order["placed_at"]
    items = orjson.loads(order["items"])
    assert order["total"] == sum(i["quantity"] * i["unit_price"] for i in items) > 0
    assert (charge["status"], charge["amount"], charge["currency"]) == (
        "captured", order["total"], order["currency"])
    ticket = bound["ticket"]
    assert (ticket["requester_id"], ticket["order_id"], ticket["status"]) == (
        customer["id"], order["id"], "open")
    assert ticket["priority"] == "urgent" and ticket["assignee_id"] is not None
    assert ticket["sla_due_at"] > ticket["created_at"]
    assert bound["followup"]["author_type"] == "customer"
    assert bound["followup"]["author_id"] == customer["id"]
    # The agent finds it all through the API, as it would the world's.
    found = await api.ok("GET", f"/customers?email={person.email}")
    assert found["data"][0]["id"] == customer["id"]
    shown = await api.ok("GET", f"/orders/{order['id']}")
    assert [c["id"] for c in shown["charges"]] == [charge["id"]]
    assert (await api.ok("GET", f"/tickets/{ticket['id']}"))["group_id"] == ticket["group_id"]


async def test_same_seed_and_setup_same_rows(episode: MakeEpisode) -> None:
    first, again = await episode(seed=3, setup=SETUP), await episode(seed=3, setup=SETUP)
    other = await episode(seed=4, setup=SETUP)
    assert first.vars == again.vars
    assert first.vars["customer"]["email"] != other.vars["customer"]["email"]


async def test_options_and_overrides_are_checked(episode: MakeEpisode) -> None:
    api = await episode(setup=[{"factory": "order", "bind": "order", "charge": "none"}])
    assert (await api.ok("GET", f"/orders/{api.vars['order']['id']}"))["charges"] == []
    for setup, field in (
        ([{"factory": "customer", "loyalty": "gold"}], "setup.0.values.loyalty"),
        ([{"factory": "invoice"}], "setup.0.factory"),
    ):
        with pytest.raises(AssertionError, match=field):
            await episode(setup=setup)
    with pytest.raises(AssertionError, match="charge must be one of"):
        await episode(setup=[{"factory": "order", "charge": "pending"}])
