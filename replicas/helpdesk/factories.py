"""The helpdesk's row factories, for task setup (replicas/runtime/factories.py)::

    - {factory: customer, bind: customer, tier: gold}
    - {factory: customer, bind: customer, email: $checkout.customer.email}
    - {factory: ticket, bind: ticket, requester_id: $customer.id,
       order_number: $checkout.order.number}
    - {factory: comment, ticket_id: $ticket.id, body: "Any news?", author: agent}

Rows look like the world's (the same draws: world.py). New end users and organizations are
the seed's identity's, past every world's share (or, given ``email``, the identity's person
another app made), with their email and phone identities. A foreign key not given is a
random existing row (a requester for a ticket, an open ticket for a comment). Orders are
the checkout's: a ticket names one in its custom field (``order_number``). A ticket's and a
comment's SLA metric events follow (rules/sla.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import orjson

from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.factories import Factory, FactoryContext

from .rules import sla
from .rules.common import ACTING_AGENT_ID
from .rules.triggers import creation_schedule
from .world import (
    CHANNEL_WEIGHTS,
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
    """An end user no world has (one of the identity's new people, ``ctx.new_people``), or
    given ``email`` the identity's
    person with that address (another app's customer, e.g. ``email:
    $checkout.customer.email``): their name, email, locale and phone; their company's
    organization when it exists. Their email and phone become their identities."""

    table = "users"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r = ctx.rng
        person = ctx.identity.person_with(given["email"]) if given.get("email") else ctx.unused(
            ctx.new_people(), "users", "email", lambda p: p.email)
        organization = None
        if person.company is not None:
            found = ctx.db.execute("SELECT id FROM organizations WHERE domain = ?",
                                   (ctx.identity.company(person.company).domain,)).fetchone()
            organization = found["id"] if found else None
        created = ctx.ago(days=r.randint(30, 1500), hours=r.random() * 24)
        return {
            "name": person.name, "email": person.email, "phone": person.phone,
            "role": "end-user", "organization_id": organization, "default_group_id": None,
            "tier": weighted(r, TIER_WEIGHTS), "locale": person.locale, "active": 1,
            "notes": "", "created_at": iso(created),
            "updated_at": iso(min(ctx.now, created + timedelta(days=r.randint(0, 400)))),
        }

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        for kind, column in (("email", "email"), ("phone_number", "phone")):
            if row[column]:
                ctx.insert("user_identities", {
                    "user_id": row["id"], "type": kind, "value": row[column], "is_primary": 1,
                    "verified": 1, "created_at": row["created_at"]})


class TicketFactory(Factory):
    """An open ticket of a requester (given, else a random end user), on a topic that fits
    (about the checkout order ``order_number`` if one is given), routed and assigned like
    the world's, its SLA running. Its description is its first comment, by the requester."""

    table = "tickets"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r, w = ctx.rng, data()
        topics = w["topics"]
        requester = ctx.row("users", given.get("requester_id") or ctx.pick(
            "users", "role = 'end-user'"))
        number = given.get("order_number")
        names = [n for n, t in topics.items()
                 if bool(t["order"]) == (number is not None) and n != "double_charge"]
        name = r.choices(names, [topics[n]["weight"] for n in names])[0]
        topic = topics[name]
        fill = placeholders(requester["name"].split(" ")[0], number, None)
        subject, description = ticket_text(r, topic, "en", fill)
        priority = given.get("priority") or weighted(r, PRIORITY_WEIGHTS)
        created = iso(parse_iso(given["created_at"]) if given.get("created_at") else ctx.ago(
            hours=r.uniform(1, 20)))
        group = ctx.pick("groups", "name = ?", (topic["group"],))
        assignee = ctx.pick(
            "users", "default_group_id = ? AND active AND role = 'agent' AND id != ?",
            (group, ACTING_AGENT_ID))
        return {
            "subject": subject, "description": description, "status": "open",
            "priority": priority, "type": topic["type"], "channel": weighted(r, CHANNEL_WEIGHTS),
            "tags": orjson.dumps(topic["tags"]).decode(),
            "requester_id": requester["id"], "submitter_id": requester["id"],
            "assignee_id": assignee, "group_id": group,
            "organization_id": requester["organization_id"], "schedule_id": None,
            "order_number": number, "product": None,
            "contact_reason": w["contact_reasons"][name], "merged_into_id": None,
            "via_followup_source_id": None, "due_at": None, "status_updated_at": created,
            "created_at": created, "updated_at": created, "solved_at": None,
        }

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        ctx.insert("comments", {"ticket_id": row["id"], "author_id": row["requester_id"],
                                "body": row["description"], "public": 1,
                                "created_at": row["created_at"]})
        if row["schedule_id"] is None and (
                schedule := creation_schedule(ctx.db, dict(row), ctx.now)) is not None:
            ctx.db.execute("UPDATE tickets SET schedule_id = ? WHERE id = ?",
                           (schedule, row["id"]))
        sla.sync(ctx.db, row["id"], ctx.now)


class CommentFactory(Factory):
    """A public comment on a ticket (given, else a random open one), by its requester
    (``author: agent``: by its assignee, else user 1), a few minutes ago (never before the
    ticket); the ticket's ``updated_at`` follows it."""

    table = "comments"
    options = frozenset({"author"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r, w = ctx.rng, data()
        ticket = ctx.row("tickets", given.get("ticket_id") or ctx.pick(
            "tickets", "status IN ('new', 'open', 'pending')"))
        requester = ctx.row("users", ticket["requester_id"])
        fill = placeholders(requester["name"].split(" ")[0], ticket["order_number"], None)
        if given.get("author", "requester") not in ("requester", "agent"):
            raise ValueError(f"author: requester or agent, not {given['author']!r}")
        if given.get("author", "requester") == "requester":
            author, body = requester["id"], r.choice(w["customer_followups"]).format(**fill)
        else:
            author = ticket["assignee_id"] or ACTING_AGENT_ID
            body = r.choice(w["agent_replies"]).format(**fill)
        at = max(ctx.ago(hours=r.uniform(0.1, 1)),
                 parse_iso(ticket["created_at"]) + timedelta(minutes=1))
        return {"ticket_id": ticket["id"], "author_id": author, "body": body, "public": 1,
                "created_at": iso(at)}

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        ctx.db.execute("UPDATE tickets SET updated_at = max(updated_at, ?) WHERE id = ?",
                       (row["created_at"], row["ticket_id"]))
        sla.sync(ctx.db, row["ticket_id"], ctx.now)


FACTORIES: dict[str, Factory] = {
    "organization": OrganizationFactory(),
    "customer": CustomerFactory(),
    "ticket": TicketFactory(),
    "comment": CommentFactory(),
}

# The world going on around a task's setup (replicas/runtime/setup.py): another customer's
# new ticket, and the team's first reply on it.
ACTIVITY: tuple[dict[str, Any], ...] = (
    {"factory": "customer", "bind": "requester"},
    {"factory": "ticket", "bind": "ticket", "requester_id": "$requester.id",
     "created_at": "$activity.at"},
    {"factory": "comment", "ticket_id": "$ticket.id", "author": "agent"},
)
