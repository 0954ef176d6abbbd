"""Customers (the seed's first people: the same people as every app's) and their cards, with
the mess: customers who checked out again as guests (a second customer, the same email)."""

from __future__ import annotations

from ..cards import BY_NAME
from ..world import card_name, card_values, customer_values
from .common import Generation

N_CUSTOMERS = 100
N_DUPLICATES = 4


def build(g: Generation) -> None:
    r = g.rng
    people = g.identity.people(N_CUSTOMERS)
    for person in people:
        created = g.ago(r.uniform(200, 900))
        customer = g.new("customers", customer_values(person, created))
        for _ in range(r.choice([1, 1, 1, 2])):
            test = BY_NAME[card_name(r, person.country)]
            g.new("payment_methods", card_values(r, test, customer["stripe_id"], created,
                                                 person.name))
    # MESS: the same person twice (a guest checkout made a second customer, same email).
    for person in r.sample(people, N_DUPLICATES):
        again = customer_values(person, g.ago(r.uniform(20, 190)))
        g.new("customers", {**again, "metadata": '{"source": "guest_checkout"}'})
