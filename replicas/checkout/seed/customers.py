"""Customers (the seed's first people: the same people as every app's) and their cards, with
the mess: customers imported from the old shop (missing fields, its ids in metadata) and
customers who checked out again as guests (a second customer, the same email)."""

from __future__ import annotations

from ..cards import BY_NAME
from ..rules.common import dumps
from ..world import card_name, card_values, customer_values
from .common import Generation

N_CUSTOMERS = 320
N_LEGACY = 40  # people 0-39 came from the old shop
N_GUESTS = 6
# The shop moved to this platform (Stripe, the A- order numbers) this many days ago; the old
# shop's customers and orders were imported from before it.
MOVED_DAYS = 330
OLDEST_DAYS = 900


def build(g: Generation) -> None:
    r = g.rng
    people = g.identity.people(N_CUSTOMERS)
    g.people, g.country_of = [], {}
    # A customer since before their first order (the identity's).
    first: dict[int, float] = {}
    for placed in g.identity.world_orders:
        first.setdefault(placed.buyer, placed.days_ago)
    for i, person in enumerate(people):
        since = max(r.uniform(20, OLDEST_DAYS), first.get(i, 0.0) + r.uniform(1, 30))
        values = customer_values(person, g.unix_ago(since))
        if i < N_LEGACY:
            # MESS: imported from the old shop: its id in metadata, no phone, no locale, some
            # without a name.
            values |= {"created": g.unix_ago(r.uniform(MOVED_DAYS + 240, OLDEST_DAYS)),
                       "phone": None, "preferred_locales": "[]",
                       "name": None if r.random() < 0.25 else person.name,
                       "metadata": dumps({"legacy_id": f"wc_cust_{1003 + 17 * i}"})}
        customer = g.new("customers", values)
        g.people.append((person, customer))
        g.country_of[customer["stripe_id"]] = person.country
        for _ in range(r.choice([1, 1, 1, 2])):
            test = BY_NAME[card_name(r, person.country)]
            g.new("payment_methods", card_values(r, test, customer["stripe_id"],
                                                 customer["created"], person.name))
    # MESS: the same person twice (a guest checkout made a second customer, same email).
    for person, _ in r.sample(g.people[N_LEGACY:], N_GUESTS):
        again = customer_values(person, g.unix_ago(r.uniform(20, MOVED_DAYS - 10)))
        guest = g.new("customers", {**again, "metadata": '{"source": "guest_checkout"}'})
        g.country_of[guest["stripe_id"]] = person.country
        g.new("payment_methods", card_values(r, BY_NAME[card_name(r, person.country)],
                                             guest["stripe_id"], guest["created"],
                                             person.name))
