"""One company per seed: every app's world draws the same people, companies and order
numbers from the seed's identity, and factories draw new ones past every world's share."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from replicas.checkout.seed import seed as checkout_seed
from replicas.checkout.seed.orders import N_ORDERS
from replicas.helpdesk.seed import seed as helpdesk_seed
from replicas.helpdesk.seed.people import N_CUSTOMERS
from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import connect_memory
from replicas.runtime.identity import (
    WORLD_COMPANIES,
    WORLD_ORDERS,
    WORLD_PEOPLE,
    Identity,
    identity,
)


@pytest.fixture(scope="module")
def helpdesk() -> sqlite3.Connection:
    conn = connect_memory()
    helpdesk_seed(conn, 5, WORLD_START)
    return conn


@pytest.fixture(scope="module")
def checkout() -> sqlite3.Connection:
    conn = connect_memory()
    checkout_seed(conn, 5, WORLD_START)
    return conn


def test_same_seed_same_streams_whatever_is_asked_first() -> None:
    late = Identity(5)  # asked for the 300th person before any other
    assert late.person(299) == Identity(5).people(300)[299]
    assert late.people(300) == identity(5).people(300)
    assert Identity(5).companies(30) == identity(5).companies(30)
    assert Identity(5).order_numbers(50) == identity(5).order_numbers(50)


def test_different_seeds_differ() -> None:
    assert identity(5).people(20) != identity(6).people(20)
    assert identity(5).companies(WORLD_COMPANIES) != identity(6).companies(WORLD_COMPANIES)
    assert identity(5).order_numbers(20) != identity(6).order_numbers(20)


def test_emails_companies_and_order_numbers_are_unique() -> None:
    people = identity(5).people(WORLD_PEOPLE + 200)
    assert len({p.email for p in people}) == len(people)
    companies = identity(5).companies(300)  # the list, then its regional branches
    assert len({c.name for c in companies}) == len({c.domain for c in companies}) == 300
    numbers = identity(5).order_numbers(WORLD_ORDERS + 10)
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert all(n.startswith("A-1") and len(n) == 7 for n in numbers)


def test_people_are_coherent() -> None:
    for person in identity(5).people(200):
        assert person.email.count("@") == 1 and " " not in person.email
        assert person.currency == {"US": "USD", "GB": "GBP", "JP": "JPY"}.get(
            person.country, "EUR")
        if person.company is not None:
            assert person.email.endswith("@" + identity(5).company(person.company).domain)


def _first_end_user(helpdesk: sqlite3.Connection) -> int:
    """The id of the helpdesk's first end user: its people follow its staff (one users table)."""
    first: int = helpdesk.execute(
        "SELECT min(id) AS id FROM users WHERE role = 'end-user'").fetchone()["id"]
    return first


def test_the_helpdesk_end_users_are_the_identitys_people(helpdesk: sqlite3.Connection) -> None:
    first = _first_end_user(helpdesk)
    assert not helpdesk.execute("SELECT id FROM users WHERE id >= ? AND role != 'end-user'",
                                (first,)).fetchall()  # the staff all come first
    end_users = helpdesk.execute(
        "SELECT name, email, locale, phone, organization_id FROM users WHERE id >= ? "
        "AND id < ? ORDER BY id", (first, first + N_CUSTOMERS)).fetchall()
    people = identity(5).people(N_CUSTOMERS)
    assert [(c["name"], c["email"], c["locale"]) for c in end_users] == [
        (p.name, p.email, p.locale) for p in people]
    assert all(c["phone"] in (None, p.phone) for c, p in zip(end_users, people, strict=True))
    assert [c["organization_id"] for c in end_users] == [
        None if p.company is None else p.company + 1 for p in people]
    # The near-duplicates after them are the helpdesk's mess: nobody's identity.
    emails = {p.email for p in identity(5).people(WORLD_PEOPLE)}
    duplicates = helpdesk.execute("SELECT email FROM users WHERE id >= ?",
                                  (first + N_CUSTOMERS,)).fetchall()
    assert duplicates and not emails & {d["email"] for d in duplicates}
    everyone = [r["email"] for r in helpdesk.execute("SELECT email FROM users")]
    assert len(set(everyone)) == len(everyone)
    # Each user's email is their primary identity.
    primary = {r["user_id"]: r["value"] for r in helpdesk.execute(
        "SELECT user_id, value FROM user_identities WHERE type = 'email' AND is_primary = 1")}
    assert primary == {r["id"]: r["email"] for r in helpdesk.execute("SELECT id, email FROM users")}


def test_the_helpdesk_organizations_are_the_identitys(helpdesk: sqlite3.Connection) -> None:
    organizations = helpdesk.execute("SELECT name, domain FROM organizations ORDER BY id")
    assert [(o["name"], o["domain"]) for o in organizations] == [
        (c.name, c.domain) for c in identity(5).companies(WORLD_COMPANIES)]
    placed = {p.number: p for p in identity(5).world_orders}
    about = helpdesk.execute("SELECT order_number AS n, requester_id FROM tickets "
                             "WHERE order_number IS NOT NULL").fetchall()
    first = _first_end_user(helpdesk)
    assert about and all(placed[t["n"]].buyer + first == t["requester_id"] for t in about)


def test_the_worlds_orders_are_placed_in_number_order() -> None:
    orders = identity(5).world_orders
    assert [p.number for p in orders] == identity(5).order_numbers(WORLD_ORDERS)
    assert [p.days_ago for p in orders] == sorted((p.days_ago for p in orders), reverse=True)
    assert sum(p.twice for p in orders) == 6 and all(p.paid for p in orders if p.twice)
    assert 0.03 < sum(not p.paid for p in orders) / len(orders) < 0.12


def test_the_checkouts_order_numbers_are_the_identitys(checkout: sqlite3.Connection) -> None:
    """The checkouts since the move carry the identity's first order numbers in the order
    they were placed (the old shop's imported orders keep their own WC- numbers)."""
    paid_for = checkout.execute(
        "SELECT json_extract(metadata, '$.order') AS n FROM payment_intents "
        "WHERE n IS NOT NULL ORDER BY created, id").fetchall()
    numbers = identity(5).order_numbers(N_ORDERS)
    assert list(dict.fromkeys(p["n"] for p in paid_for)) == numbers  # retries repeat one
    orders = [o["number"] for o in checkout.execute(
        "SELECT number FROM orders WHERE legacy_id IS NULL ORDER BY placed_at, id")]
    assert orders and orders == sorted(orders) and set(orders) <= set(numbers)


def test_new_people_are_past_every_worlds_share() -> None:
    assert next(identity(5).new_people()) == identity(5).person(WORLD_PEOPLE)
    assert next(identity(5).new_companies()) == identity(5).company(WORLD_COMPANIES)
    assert next(identity(5).new_order_numbers()) == identity(5).order_number(WORLD_ORDERS)


def test_the_identity_is_a_function_of_the_seed_alone() -> None:
    """Another process (another hash seed) draws the same people."""
    code = ("from replicas.runtime.identity import identity; "
            "print(identity(5).people(50)[-1], identity(5).company(3), "
            "identity(5).order_number(7), identity(5).world_orders[9])")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(hash_seed)}).stdout
            for hash_seed in (1, 2)}
    assert runs == {f"{identity(5).people(50)[-1]} {identity(5).company(3)} "
                    f"{identity(5).order_number(7)} {identity(5).world_orders[9]}\n"}
