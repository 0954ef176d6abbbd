"""The helpdesk's row factories, for task setup (replicas/runtime/factories.py)::

    - {factory: customer, bind: customer, tier: gold}
    - {factory: customer, bind: customer, email: $checkout.customer.email}
    - {factory: ticket, bind: ticket, requester_id: $customer.id,
       order_number: $checkout.order.number}
    - {factory: comment, ticket_id: $ticket.id, body: "Any news?"}

Rows look like the world's (the same draws: world.py). New customers and organizations are
the seed's identity's, past every world's share (or, given ``email``, the identity's person
another app made). A foreign key not given is a random existing row (a requester for a
ticket, an open ticket for a comment). Orders are the checkout's: a ticket names one by its
number.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import orjson

from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.factories import Factory, FactoryContext

from .rules.common import ACTING_AGENT_ID
from .world import (
    CHANNEL_WEIGHTS,
    PRIORITY_HOURS,
    PRIORITY_WEIGHTS,
    TIER_WEIGHTS,
    data,
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
            "locale": person.locale, "notes": "",
            "created_at": iso(created),
            "updated_at": iso(min(ctx.now, created + timedelta(days=r.randint(0, 400)))),
        }


class TicketFactory(Factory):
    """An open ticket of a requester (given, else a random customer), on a topic that fits
    (about the checkout order ``order_number`` if one is given), routed and assigned like
    the world's, its SLA running. Its description is not a comment: add one with the comment
    factory."""

    table = "tickets"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r, topics = ctx.rng, data()["topics"]
        customer = ctx.row("customers", given.get("requester_id") or ctx.pick("customers"))
        number = given.get("order_number")
        names = [n for n, t in topics.items()
                 if bool(t["order"]) == (number is not None) and n != "double_charge"]
        topic = topics[r.choices(names, [topics[n]["weight"] for n in names])[0]]
        fill = placeholders(customer["name"].split(" ")[0], number, None)
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
            "order_number": number, "merged_into_id": None,
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
        fill = placeholders(requester["name"].split(" ")[0], ticket["order_number"], None)
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
    "ticket": TicketFactory(),
    "comment": CommentFactory(),
}
