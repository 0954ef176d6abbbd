"""One world per seed: the apps of an episode describe one company. The helpdesk's end users
and the notes app's people are the same people (names, emails, locales) for the same seed,
and different seeds give different people."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from replicas.catalog import spec
from replicas.runtime.snapshots import SnapshotCache, load


def _world(app: str, seed: int, where: Path) -> sqlite3.Connection:
    return load(SnapshotCache(spec(app), where / app, size=1).pristine(seed))


@pytest.mark.parametrize("seed", [0, 7])
def test_every_app_sees_the_same_people(seed: int, tmp_path: Path) -> None:
    people = [(r["name"], r["email"], r["locale"]) for r in _world("notes", seed, tmp_path)
              .execute("SELECT name, email, locale FROM people ORDER BY id")]
    end_users = [(r["name"], r["email"], r["locale"]) for r in _world("helpdesk", seed, tmp_path)
                 .execute("SELECT name, email, locale FROM users WHERE role = 'end-user' "
                          "ORDER BY id")]
    # The helpdesk's mess (near-duplicates, stale contacts) is its own, made on top of the
    # same people: its first end users (after its staff) are the notes app's people, in order.
    assert people == end_users[:len(people)]
    other = [r["email"] for r in _world("notes", seed + 1, tmp_path).execute(
        "SELECT email FROM people ORDER BY id")]
    assert other != [p[1] for p in people]


@pytest.mark.parametrize("seed", [0, 7])
def test_the_checkout_sells_to_the_same_people(seed: int, tmp_path: Path) -> None:
    """The checkout's customers and store accounts are the helpdesk's end users, and every
    order a helpdesk ticket is about is that requester's order in the checkout, placed
    before the ticket was written (the identity's orders: who, when, what first)."""
    checkout = _world("checkout", seed, tmp_path)
    helpdesk = _world("helpdesk", seed, tmp_path)
    people = [(r["email"], r["locale"]) for r in helpdesk.execute(
        "SELECT email, locale FROM users WHERE role = 'end-user' ORDER BY id LIMIT 292")]
    accounts = [(r["email"], r["locale"]) for r in checkout.execute(
        "SELECT email, locale FROM accounts ORDER BY id")]
    customers = [r["email"] for r in checkout.execute(
        "SELECT c.email FROM accounts a JOIN customers c ON c.stripe_id = a.customer "
        "ORDER BY a.id")]
    assert accounts[:len(people)] == people
    assert customers == [email for email, _ in accounts]
    tickets = helpdesk.execute(
        "SELECT t.order_number AS number, t.created_at, t.subject, c.email FROM tickets t "
        "JOIN users c ON c.id = t.requester_id WHERE t.order_number IS NOT NULL").fetchall()
    assert len(tickets) > 200
    for ticket in tickets:
        order = checkout.execute("SELECT email, placed_at FROM orders WHERE number = ?",
                                 (ticket["number"],)).fetchone()
        assert order is not None, ticket["number"]
        assert (order["email"], order["placed_at"] < ticket["created_at"]) == (
            ticket["email"], True)
    # The orders charged twice, which their buyers wrote in about.
    twice = {r["n"] for r in checkout.execute(
        "SELECT json_extract(metadata, '$.order') AS n FROM payment_intents "
        "WHERE status = 'succeeded' GROUP BY n HAVING count(*) > 1")}
    about = {r["order_number"] for r in helpdesk.execute(
        "SELECT order_number FROM tickets WHERE tags LIKE '%double_charge%' "
        "OR tags LIKE '%duplicate%'")}
    assert about and about <= twice


@pytest.mark.parametrize("seed", [0, 7])
def test_the_crm_knows_the_same_people_and_companies(seed: int, tmp_path: Path) -> None:
    """The CRM's contacts are the helpdesk's end users (its first ones, in order: names,
    emails, languages), each associated with the company the helpdesk's user belongs to."""
    crm = _world("crm", seed, tmp_path)
    helpdesk = _world("helpdesk", seed, tmp_path)
    end_users = helpdesk.execute(
        "SELECT u.name, u.email, u.locale, o.name AS organization FROM users u "
        "LEFT JOIN organizations o ON o.id = u.organization_id WHERE u.role = 'end-user' "
        "ORDER BY u.id").fetchall()
    contacts = crm.execute(
        "SELECT c.firstname || ' ' || c.lastname AS name, c.email, c.hs_language, "
        "(SELECT m.name FROM associations a JOIN companies m ON m.id = a.to_id "
        " WHERE a.from_type = 'contacts' AND a.from_id = c.id AND a.to_type = 'companies' "
        " AND a.label = 'Primary') AS company FROM contacts c ORDER BY c.id").fetchall()
    # The CRM's mess (duplicates, after the identity's people) is its own.
    people = [c for c in contacts if c["email"] == c["email"].lower()]
    assert len(people) >= 200
    assert [(c["name"], c["email"], c["hs_language"], c["company"]) for c in people] == [
        (u["name"], u["email"], u["locale"].split("-")[0], u["organization"])
        for u in end_users[:len(people)]]
