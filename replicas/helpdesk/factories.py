"""The helpdesk's row factories, for task setup (replicas/runtime/factories.py)::

    - {factory: customer, bind: customer, tier: gold}
    - {factory: order, bind: order, customer_id: $customer.id, status: returned}
    - {select: charges, where: {order_id: $order.id}, bind: charge}
    - {factory: ticket, bind: ticket, requester_id: $customer.id, order_id: $order.id}
    - {factory: comment, ticket_id: $ticket.id, body: "Any news?"}

Rows look like the world's (the same draws: world.py). New customers, organizations and
order numbers are the seed's identity's, past every world's share. A foreign key not given
is a random existing row (a customer for an order, an open ticket for a comment).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.factories import Factory, FactoryContext
from replicas.runtime.identity import data as identity_data

from .rules.common import ACTING_AGENT_ID
from .world import (
    CHANNEL_WEIGHTS,
    PRIORITY_HOURS,
    PRIORITY_WEIGHTS,
    TIER_WEIGHTS,
    charge,
    data,
    draw_items,
    one_item,
    order_dates,
    placeholders,
    ticket_text,
    weighted,
)

Row = dict[str, Any]


class OrganizationFactory(Factory):
    """A company no world has (the identity's next)."""

    table = "organizations"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        company = ctx.unused(ctx.identity.new_companies(), "organizations", "domain",
                             lambda c: c.domain)
        return {"name": company.name, "domain": company.domain,
                "created_at": iso(ctx.ago(days=ctx.rng.randint(200, 2000))), "notes": ""}


class CustomerFactory(Factory):
    """A person no world has (the identity's next), or given ``email`` the identity's person
    with that address (another app's customer, e.g. ``email: $checkout.customer.email``):
    their name, email, locale and phone; their company's organization when it exists."""

    table = "customers"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r = ctx.rng
        person = ctx.identity.person_with(given["email"]) if given.get("email") else ctx.unused(
            ctx.identity.new_people(), "customers", "email", lambda p: p.email)
        organization = None
        if person.company is not None:
            found = ctx.db.execute("SELECT id FROM organizations WHERE domain = ?",
                                   (ctx.identity.company(person.company).domain,)).fetchone()
            organization = found["id"] if found else None
        created = ctx.ago(days=r.randint(30, 1500), hours=r.random() * 24)
        return {
            "name": person.name, "email": person.email, "phone": person.phone,
            "tier": weighted(r, TIER_WEIGHTS), "organization_id": organization,
            "locale": person.locale, "email_verified": 1,
            "two_factor_enabled": int(r.random() < 0.3), "pending_email": None, "notes": "",
            "created_at": iso(created),
            "updated_at": iso(min(ctx.now, created + timedelta(days=r.randint(0, 400)))),
        }


class OrderFactory(Factory):
    """An order of a customer (given, else a random one), in their currency, numbered by
    the identity; fulfilled by default. Options: ``charge``: ``captured`` (default),
    ``failed`` (one declined attempt) or ``none``; ``sku`` (with ``quantity``, default 1):
    that one product instead of a drawn basket."""

    table = "orders"
    options = frozenset({"charge", "sku", "quantity"})
    CHARGES = ("captured", "failed", "none")

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r = ctx.rng
        if given.get("charge", "captured") not in self.CHARGES:
            raise ValueError(f"charge must be one of {', '.join(self.CHARGES)}")
        customer = ctx.row("customers", given.get("customer_id") or ctx.pick("customers"))
        currency = given.get("currency") or identity_data()["locales"][
            customer["locale"]]["currency"]
        items, total = (draw_items(r, currency) if given.get("sku") is None else
                        one_item(str(given["sku"]), int(given.get("quantity") or 1), currency))
        status = given.get("status", "fulfilled")
        placed = given.get("placed_at") or iso(ctx.ago(days=r.randint(3, 20),
                                                         hours=r.random() * 24))
        fulfilled_at, cancelled_at = order_dates(r, status, parse_iso(placed), ctx.now)
        number = ctx.unused(ctx.identity.new_order_numbers(), "orders", "number", str)
        return {"number": number, "customer_id": customer["id"], "currency": currency,
                "total": total, "status": status, "items": items, "placed_at": placed,
                "fulfilled_at": fulfilled_at, "cancelled_at": cancelled_at}

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        status = given.get("charge", "captured")
        if status == "none":
            return
        at = parse_iso(row["placed_at"]) + timedelta(seconds=ctx.rng.randint(2, 40))
        reason = "card_declined" if status == "failed" else None
        sql.insert(ctx.db, "charges", charge(ctx.rng, dict(row), at, status, reason))


class TicketFactory(Factory):
    """An open ticket of a requester (given, else a random customer), on a topic that fits
    (about its order if one is given), routed and assigned like the world's, its SLA
    running. Its description is not a comment: add one with the comment factory."""

    table = "tickets"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r, topics = ctx.rng, data()["topics"]
        customer = ctx.row("customers", given.get("requester_id") or ctx.pick("customers"))
        order = ctx.row("orders", given["order_id"]) if given.get("order_id") else None
        names = [n for n, t in topics.items()
                 if bool(t["order"]) == (order is not None) and n != "double_charge"]
        topic = topics[r.choices(names, [topics[n]["weight"] for n in names])[0]]
        fill = placeholders(customer["name"].split(" ")[0], order)
        subject, description = ticket_text(r, topic, "en", fill)
        priority = given.get("priority") or weighted(r, PRIORITY_WEIGHTS)
        created = parse_iso(given["created_at"]) if given.get("created_at") else ctx.ago(
            hours=r.uniform(1, 20))
        group = ctx.pick("groups", "name = ?", (topic["group"],))
        assignee = ctx.pick("agents", "group_id = ? AND active AND role != 'manager' AND id != ?",
                            (group, ACTING_AGENT_ID))
        return {
            "subject": subject, "description": description, "status": "open",
            "priority": priority, "type": topic["type"], "channel": weighted(r, CHANNEL_WEIGHTS),
            "tags": orjson.dumps(topic["tags"]).decode(),
            "requester_id": customer["id"], "assignee_id": assignee, "group_id": group,
            "organization_id": customer["organization_id"],
            "order_id": order["id"] if order else None,
            "order_number": order["number"] if order else given.get("order_number"),
            "merged_into_id": None,
            "sla_due_at": iso(created + timedelta(hours=PRIORITY_HOURS[priority])),
            "created_at": iso(created), "updated_at": iso(created), "solved_at": None,
        }


class CommentFactory(Factory):
    """A public comment on a ticket (given, else a random open one), by its requester
    (``author_type: agent``: by its assignee, else agent 1), a few minutes ago."""

    table = "comments"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r, w = ctx.rng, data()
        ticket = ctx.row("tickets", given.get("ticket_id") or ctx.pick(
            "tickets", "status IN ('new', 'open', 'pending')"))
        author_type = given.get("author_type", "customer")
        requester = ctx.row("customers", ticket["requester_id"])
        order = ctx.row("orders", ticket["order_id"]) if ticket["order_id"] else None
        fill = placeholders(requester["name"].split(" ")[0], order)
        if author_type == "customer":
            author, body = requester["id"], r.choice(w["customer_followups"]).format(**fill)
        else:
            author = ticket["assignee_id"] or ACTING_AGENT_ID
            body = r.choice(w["agent_replies"]).format(**fill)
        return {"ticket_id": ticket["id"], "author_type": author_type, "author_id": author,
                "body": body, "public": 1,
                "created_at": iso(ctx.ago(hours=r.uniform(0.1, 1)))}


FACTORIES: dict[str, Factory] = {
    "organization": OrganizationFactory(),
    "customer": CustomerFactory(),
    "order": OrderFactory(),
    "ticket": TicketFactory(),
    "comment": CommentFactory(),
}
