"""Tickets, their conversations and satisfaction ratings, with the deliberate mess (breached
SLAs, mixed-language subjects, inconsistent tag case, legacy imports)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import orjson

from replicas.runtime.clock import iso
from replicas.runtime.identity import Placed

from ..world import (
    CHANNEL_WEIGHTS,
    PRIORITY_HOURS,
    PRIORITY_WEIGHTS,
    placeholders,
    ticket_text,
    weighted,
)
from .common import LEGACY_DATE_FORMATS, Generation, Row
from .people import N_CUSTOMERS, N_LEGACY_CUSTOMERS

N_TICKETS = 560
N_LEGACY_TICKETS = 15

# (topic, requester, the checkout order it is about, created): created is None when drawn
# with the ticket.
Plan = tuple[str, Row, Placed | None, datetime | None]
# (author_type, author_id, body, public, when)
Comment = tuple[str, int | None, str, bool, datetime]


def build(g: Generation) -> None:
    tickets: list[Row] = []
    conversations: list[list[Comment]] = []
    ratings: list[Row] = []
    for tid, plan in enumerate(_plans(g), start=1):
        ticket, conversation, rating = _ticket(g, tid, plan)
        tickets.append(ticket)
        conversations.append(conversation)
        if rating is not None:
            ratings.append(rating)
    _write_in_time_order(g, tickets, conversations, ratings)


def _plans(g: Generation) -> list[Plan]:
    """The tickets to write: one per order charged twice (mess), drawn topics (an order
    topic about one of the requester's orders since the shop moved: the identity's, which
    the checkout has too), then legacy imports."""
    r, topics = g.rng, g.w["topics"]
    customers = g.tables["customers"]
    orders_of: dict[int, list[Placed]] = {}
    for placed in g.identity.world_orders:
        if placed.paid and placed.buyer < N_CUSTOMERS:  # customer id = person index + 1
            orders_of.setdefault(placed.buyer + 1, []).append(placed)
    # One ticket about each order charged twice whose buyer is a customer here.
    plans: list[Plan] = [("double_charge", customers[p.buyer], p, g.ago(hours=r.randint(2, 60)))
                         for p in g.identity.world_orders if p.twice and p.buyer < N_CUSTOMERS]
    names = list(topics)
    weights = [topics[n]["weight"] for n in names]
    while len(plans) < N_TICKETS - N_LEGACY_TICKETS:
        topic = r.choices(names, weights)[0]
        if topic == "double_charge":  # only about orders that were
            continue
        customer = r.choice(customers)
        order = None
        if topics[topic]["order"]:
            mine = orders_of.get(customer["id"])
            if not mine:
                continue
            order = r.choice(mine)
        plans.append((topic, customer, order, None))
    for _ in range(N_LEGACY_TICKETS):
        plans.append(("legacy", r.choice(customers[:N_LEGACY_CUSTOMERS]), None, None))
    return plans


def _created(g: Generation, legacy: bool, order: Placed | None) -> datetime:
    r = g.rng
    if legacy:
        return datetime(2019, 6, 1, tzinfo=g.now.tzinfo) + timedelta(
            days=r.randint(0, 550), minutes=r.randint(0, 1439))
    created = g.ago(days=(r.random() ** 2) * 180, hours=r.random() * 6)
    if order is not None and created < (placed := g.ago(days=order.days_ago)):
        created = min(g.now - timedelta(minutes=30), placed + timedelta(days=r.randint(1, 10)))
    return created


def _status(g: Generation, topic: str, age: float) -> str:
    r = g.rng
    if topic == "legacy":
        return "closed"
    if topic == "double_charge":
        return r.choice(["new", "open"])
    if age < 2:
        return r.choices(["new", "open", "pending", "on-hold"], [35, 45, 15, 5])[0]
    if age < 14:
        return r.choices(["new", "open", "pending", "on-hold", "solved"], [5, 25, 20, 5, 45])[0]
    return r.choices(["open", "pending", "on-hold", "solved", "closed"], [5, 3, 2, 25, 65])[0]


def _ticket(g: Generation, tid: int, plan: Plan) -> tuple[Row, list[Comment], Row | None]:
    """A ticket, its conversation and its rating (if its requester gave one)."""
    r, topics = g.rng, g.w["topics"]
    topic_name, customer, order, created = plan
    first = customer["name"].split(" ")[0]
    legacy = topic_name == "legacy"
    topic = topics[r.choice(["login", "product_question", "feedback"])] if legacy else (
        topics[topic_name])
    code = customer["locale"][:2]
    # MESS: mixed-language subjects (half of non-English customers write natively).
    lang = code if code != "en" and r.random() < 0.5 else "en"
    fill = placeholders(first, order.number if order else None, order.sku if order else None)
    subject, description = ticket_text(r, topic, lang, fill)
    if created is None:
        created = _created(g, legacy, order)
    age = (g.now - created).total_seconds() / 86400
    status = _status(g, topic_name, age)
    priority = weighted(r, PRIORITY_WEIGHTS)
    if topic_name in ("fraud", "double_charge") and priority in ("low", "normal"):
        priority = "high"
    hours = PRIORITY_HOURS[priority]
    group_id: int | None = g.group_ids[topic["group"]]
    if status == "new" and r.random() < 0.3:
        group_id = None
    assignee: int | None = None
    if status != "new" or r.random() < 0.2:
        if group_id is None:
            group_id = g.group_ids["Support"]
        assignee = r.choice(g.group_agents[group_id])
    tags = [g.tag(t) for t in topic["tags"]]
    if customer["tier"] == "platinum":
        tags.append(g.tag("vip"))
    if legacy:
        tags.append("legacy_import")
    tags = list(dict.fromkeys(tags))

    # SLA: next reply due; paused for pending/on-hold; MESS: some already breached.
    updated = min(g.now, created + timedelta(hours=r.random() * max(1.0, age * 24)))
    sla_due: datetime | None = created + timedelta(hours=hours)
    solved_at = None
    if status in ("new", "open"):
        if r.random() < 0.3 or topic_name == "double_charge":
            updated = max(created, g.now - timedelta(hours=hours + r.uniform(0.5, 48)))
            sla_due = updated + timedelta(hours=hours)
            if sla_due >= g.now:
                sla_due = g.now - timedelta(minutes=r.randint(10, 300))
        else:
            updated = max(created, g.now - timedelta(hours=r.uniform(0, hours * 0.8)))
            sla_due = updated + timedelta(hours=hours)
    elif status in ("pending", "on-hold"):
        sla_due = None
    elif status in ("solved", "closed"):
        solved_at = updated
    ticket = {
        "id": tid,
        "subject": subject,
        "description": description,
        "status": status,
        "priority": priority,
        "type": topic["type"],
        "channel": weighted(r, CHANNEL_WEIGHTS),
        "tags": orjson.dumps(tags).decode(),
        "requester_id": customer["id"],
        "assignee_id": assignee,
        "group_id": group_id,
        "organization_id": customer["organization_id"],
        "order_number": order.number if order else None,
        "merged_into_id": None,
        "sla_due_at": iso(sla_due) if sla_due else None,
        "created_at": iso(created),
        "updated_at": iso(updated),
        "solved_at": iso(solved_at) if solved_at else None,
        "legacy_id": None,
        "legacy_created": None,
    }
    if legacy:
        # MESS: legacy ticket dates as raw text in mixed formats.
        ticket["legacy_id"] = f"DK-T-{40000 + tid * 11}"
        ticket["legacy_created"] = created.strftime(r.choice(LEGACY_DATE_FORMATS))
    conversation = _conversation(g, ticket, fill, created, updated, hours)
    rating = None
    if status in ("solved", "closed") and r.random() < 0.4 and not legacy:
        rating = {
            "ticket_id": tid,
            "score": "good" if r.random() < 0.8 else "bad",
            "comment": r.choice(g.w["csat_comments"]),
            "created_at": iso(min(g.now, updated + timedelta(hours=r.uniform(1, 30)))),
        }
    return ticket, conversation, rating


def _conversation(g: Generation, ticket: Row, fill: dict[str, Any], created: datetime,
                  updated: datetime, hours: int) -> list[Comment]:
    """The description (the first public comment), then replies, notes and follow-ups."""
    r, w = g.rng, g.w
    requester, assignee, status = ticket["requester_id"], ticket["assignee_id"], ticket["status"]
    conversation: list[Comment] = [("customer", requester, ticket["description"], True, created)]
    if status == "new":
        return conversation
    t = created
    steps = r.randint(1, 3)
    for step in range(steps):
        t = min(updated, t + timedelta(hours=r.uniform(0.2, hours)))
        conversation.append(("agent", assignee, r.choice(w["agent_replies"]).format(**fill),
                             True, t))
        if r.random() < 0.2:
            conversation.append(("agent", assignee, r.choice(w["internal_notes"]), False, t))
        if step < steps - 1 or status == "open":
            t = min(updated, t + timedelta(hours=r.uniform(0.5, 20)))
            follow = r.choice(w["customer_followups"]).format(**fill)
            conversation.append(("customer", requester, follow, True, t))
    if status in ("solved", "closed"):
        conversation.append(("agent", assignee, r.choice(w["solve_replies"]).format(**fill),
                             True, updated))
    return conversation


def _write_in_time_order(g: Generation, tickets: list[Row],
                         conversations: list[list[Comment]], ratings: list[Row]) -> None:
    """Ticket ids grow with creation time, as in a real helpdesk: renumber tickets (and what
    refers to them); comments and ratings get ids in their own order."""
    by_time = sorted(range(len(tickets)), key=lambda i: (tickets[i]["created_at"], i))
    new_id = {tickets[i]["id"]: n for n, i in enumerate(by_time, start=1)}
    for row in tickets:
        row["id"] = new_id[row["id"]]
    tickets.sort(key=lambda row: row["id"])
    comments = [
        {"ticket_id": new_id[old_id], "author_type": author_type, "author_id": author_id,
         "body": body, "public": int(public), "created_at": iso(when)}
        for old_id, conversation in enumerate(conversations, start=1)
        for author_type, author_id, body, public, when in conversation
    ]
    comments.sort(key=lambda c: (c["created_at"], c["ticket_id"]))
    for rating in ratings:
        rating["ticket_id"] = new_id[rating["ticket_id"]]
    ratings.sort(key=lambda x: x["ticket_id"])
    g.tables["tickets"] = tickets
    g.tables["comments"] = [{"id": i, **c} for i, c in enumerate(comments, start=1)]
    g.tables["satisfaction_ratings"] = [{"id": i, **x} for i, x in enumerate(ratings, start=1)]
