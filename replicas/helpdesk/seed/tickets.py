"""Tickets, their conversations and satisfaction ratings, with the deliberate mess (breached
SLAs, mixed-language subjects, legacy imports). Tags are stored lowercase, as Zendesk does.
The SLA's metric events and what the automations have done by ``now`` are the rules' (run
on the written world: seed/__init__.py)."""

from __future__ import annotations

from datetime import datetime, timedelta
from random import Random
from typing import Any

import orjson

from replicas.runtime.clock import WORLD_START, iso
from replicas.runtime.identity import Placed

from ..rules.conditions import Context, evaluate
from ..world import (
    CHANNEL_WEIGHTS,
    PRIORITIES,
    PRIORITY_WEIGHTS,
    catalogue_name,
    data,
    placeholders,
    ticket_text,
    weighted,
)
from .common import LEGACY_DATE_FORMATS, Generation, Row
from .people import N_CUSTOMERS, N_LEGACY_CUSTOMERS

N_TICKETS = 560
N_LEGACY_TICKETS = 15
# Of non-English customers' tickets, the share written in their own language (MESS: the
# others are in English).
NATIVE_SHARE = 0.7
MINUTE = timedelta(minutes=1)

# (topic, requester, the checkout order it is about, created): created is None when drawn
# with the ticket.
Plan = tuple[str, Row, Placed | None, datetime | None]
# (author_id, body, public, when)
Comment = tuple[int, str, bool, datetime]


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
    customers = g.customers  # end user i is the identity's person i
    orders_of: dict[int, list[Placed]] = {}
    for placed in g.identity.world_orders:
        if placed.paid and placed.buyer < N_CUSTOMERS:
            orders_of.setdefault(customers[placed.buyer]["id"], []).append(placed)
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
        return r.choices(["new", "open", "pending", "hold"], [35, 45, 15, 5])[0]
    if age < 14:
        return r.choices(["new", "open", "pending", "hold", "solved"], [5, 25, 20, 5, 45])[0]
    return r.choices(["open", "pending", "hold", "solved", "closed"], [5, 3, 2, 25, 65])[0]


def _ticket(g: Generation, tid: int, plan: Plan) -> tuple[Row, list[Comment], Row | None]:
    """A ticket, its conversation and its rating (if its requester gave one)."""
    r, topics = g.rng, g.w["topics"]
    topic_name, customer, order, created = plan
    first = customer["name"].split(" ")[0]
    legacy = topic_name == "legacy"
    topic = topics[r.choice(["login", "product_question", "feedback"])] if legacy else (
        topics[topic_name])
    code = customer["locale"][:2]
    # MESS: mixed languages: most non-English customers write in their own language, the
    # rest in English (the whole public thread follows the ticket's language).
    lang = code if code != "en" and r.random() < NATIVE_SHARE else "en"
    fill = placeholders(first, order.number if order else None, order.sku if order else None)
    if legacy:
        # MESS: Desk.com's import kept the subject (in any language) but an English
        # description of another ticket, and a conversation of canned lines.
        subject = r.choice(topic["texts"][lang])[0].format(**fill)
        description = r.choice(topic["texts"]["en"])[1].format(**fill)
    else:
        subject, description = ticket_text(r, topic, lang, fill)
    if created is None:
        created = _created(g, legacy, order)
    age = (g.now - created).total_seconds() / 86400
    status = _status(g, topic_name, age)
    priority = weighted(r, PRIORITY_WEIGHTS)
    if topic_name in ("fraud", "double_charge") and priority in ("low", "normal"):
        priority = "high"
    hours = _pace(customer["tier"], priority)
    group_id: int | None = g.group_ids[topic["group"]]
    if status == "new" and r.random() < 0.3:
        group_id = None
    assignee: int | None = None
    if status != "new" or r.random() < 0.2:
        if group_id is None:
            group_id = g.group_ids["Support"]
        assignee = r.choice(g.group_agents[group_id])
    tags = list(topic["tags"])
    if customer["tier"] == "platinum":
        tags.append("vip")
    if legacy:
        tags.append("legacy_import")
    tags = list(dict.fromkeys(tags))

    # SLA: the next reply is due `hours` after the customer's last unanswered comment (the
    # description for a new ticket); paused for pending/on-hold. MESS: some already breached.
    breached = status in ("new", "open") and (r.random() < 0.3 or topic_name == "double_charge")
    created = _fit_created(g, created, status, breached, hours, order)
    steps = _steps(r, status, legacy)
    last: datetime | None = None  # when the last comment must be (None: as it falls)
    if status == "open":
        n = len(steps) + 2
        if breached:
            last = g.now - timedelta(hours=hours + r.uniform(0.5, 48))
            if last < created + n * MINUTE * 2:
                last = created + (g.now - created) * r.uniform(0.3, 0.7)
        else:
            last = max(g.now - timedelta(hours=r.uniform(0.05, 0.8) * hours),
                       created + (g.now - created) * r.uniform(0.5, 0.95))
    conversation = _conversation(g, steps, topic, lang, fill, description, customer, assignee,
                                 group_id, created, last, hours)
    updated = conversation[-1][3]
    solved_at = None
    if status in ("solved", "closed"):
        solved_at = min(g.now, updated + timedelta(minutes=r.randint(1, 10)))
        updated = solved_at
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
        "submitter_id": customer["id"],
        "assignee_id": assignee,
        "group_id": group_id,
        "organization_id": customer["organization_id"],
        "schedule_id": None,
        "order_number": order.number if order else None,
        "product": catalogue_name(order.sku) if order else None,
        "contact_reason": None if legacy else g.w["contact_reasons"][topic_name],
        "merged_into_id": None,
        "via_followup_source_id": None,
        "due_at": None,
        # The status was last set by the last word (or the solve).
        "status_updated_at": iso(updated if status != "new" else created),
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
    rating = None
    if status in ("solved", "closed") and r.random() < 0.4 and not legacy:
        score = "good" if r.random() < 0.8 else "bad"
        rating = {
            "ticket_id": tid,
            "requester_id": customer["id"],
            "assignee_id": assignee,
            "group_id": group_id,
            "score": score,
            "comment": r.choice(g.w["csat_comments"][score]),
            "created_at": iso(min(g.now, updated + timedelta(hours=r.uniform(1, 30)))),
        }
    return ticket, conversation, rating


def _pace(tier: str, priority: str) -> float:
    """How many hours agents take at most to answer: the first reply target of the SLA
    policy a ticket of this requester and priority falls under (a target in business hours
    read as calendar hours, so never later)."""
    requester = {"tier": tier}
    for policy in data()["sla_policies"]:
        if evaluate(policy["filter"], {"priority": priority},
                    Context(now=WORLD_START, requester=requester)):
            return float(policy["metrics"]["first_reply_time"][PRIORITIES.index(priority)]) / 60
    raise AssertionError("the last SLA policy applies to every ticket")


def _fit_created(g: Generation, created: datetime, status: str, breached: bool, hours: float,
                 order: Placed | None) -> datetime:
    """When a ticket was created, moved so that its status and SLA can be true: a new ticket
    within its first-reply target (or past it, when breached), any other old enough for its
    conversation; never before its order was placed."""
    r = g.rng
    if status == "new" and not breached:
        moved = g.now - timedelta(hours=r.uniform(0.05, 0.8) * hours)
    elif status == "new":
        moved = min(created, g.now - timedelta(hours=hours + r.uniform(0.5, 48)))
    elif g.now - created < timedelta(hours=1):
        moved = g.now - timedelta(hours=r.uniform(1, 3))
    else:
        return created
    if order is not None:
        moved = max(moved, min(created, g.ago(days=order.days_ago) + MINUTE))
    return moved


def _steps(r: Random, status: str, legacy: bool) -> list[str]:
    """What is said after the description, in order, so that the status is true: an open
    ticket's last word is the customer's, a pending one's the agent's question, an on-hold
    one's the agent's word that specialists have it (after a colleague's escalation note), a
    solved one's the agent's resolution."""
    if status == "new":
        return []
    if legacy:
        return r.choice([["reply", "follow", "solve"], ["reply", "follow", "reply", "solve"]])
    if status == "open":
        return r.choice([["ask", "answer"], ["ack", "chase"],
                         ["ask", "answer", "progress", "chase"]])
    if status == "pending":
        return r.choice([["ask"], ["ack", "chase", "ask"]])
    if status == "hold":
        return r.choice([["ask", "answer", "escalate", "hold"], ["ack", "escalate", "hold"]])
    return r.choice([["resolve"], ["ask", "answer", "resolve"], ["ack", "chase", "resolve"],
                     ["ask", "answer", "progress", "resolve"]])


AGENT_STEPS = {"ack", "ask", "progress", "hold", "resolve", "reply", "solve"}


def _conversation(g: Generation, steps: list[str], topic: Row, lang: str, fill: dict[str, Any],
                  description: str, customer: Row, assignee: int | None, group_id: int | None,
                  created: datetime, last: datetime | None, hours: float) -> list[Comment]:
    """The description (the first public comment, at the ticket's creation), then what
    ``steps`` say, in the ticket's language (internal notes in English), each strictly after
    the one before: the first agent reply within the SLA target, the last at ``last`` when
    given, everything before now."""
    r, w = g.rng, g.w
    thread, common = topic["thread"][lang], w["thread_common"][lang]
    colleagues = [a for a in g.group_agents.get(group_id or 0, []) if a != assignee]
    if steps and steps[0] not in ("reply", "resolve") and r.random() < 0.2:
        steps = [steps[0], "note", *steps[1:]]  # a colleague's note after the first reply
    said: list[tuple[int, str, bool]] = []
    gaps: list[float] = []  # hours after the comment before
    answered = False  # whether the agent has replied yet
    for step in steps:
        if step == "reply":
            body = r.choice(w["agent_replies"])
        elif step == "follow":
            body = r.choice(w["customer_followups"])
        elif step == "solve":
            body = r.choice(w["solve_replies"])
        elif step in ("ask", "answer", "resolve"):
            body = thread[step]
        elif step == "note" and customer["tier"] == "platinum":
            body = "VIP customer - handle with care."
        elif step in ("escalate", "note"):
            body = r.choice(topic["notes"])
        else:
            body = r.choice(common[step])
        body = body.format(**fill)
        if step in ("escalate", "note"):
            author = r.choice(colleagues) if colleagues else assignee
            said.append((author or 1, body, False))
            gaps.append(r.uniform(0.05, 2))
        elif step in AGENT_STEPS:
            said.append((assignee or 1, body, True))
            gaps.append(r.uniform(0.1, 0.9) * hours if answered else r.uniform(0.05, 0.85) * hours)
            answered = True
        else:
            said.append((customer["id"], body, True))
            gaps.append(r.uniform(0.3, 20))
    times = _lay_out(created, gaps, last, g.now - timedelta(minutes=15))
    conversation: list[Comment] = [(customer["id"], description, True, created)]
    conversation += [(*s, t) for s, t in zip(said, times, strict=True)]
    return conversation


def _lay_out(start: datetime, gaps: list[float], last: datetime | None,
             limit: datetime) -> list[datetime]:
    """Moments ``gaps`` hours apart after ``start`` (the last one at ``last`` when given),
    squeezed if need be so that all fall before ``last``/``limit``, at least a minute apart."""
    if not gaps:
        return []
    times, t = [], start
    for gap in gaps:
        t += timedelta(hours=gap)
        times.append(t)
    end = min(last, limit) if last is not None else limit
    free = len(times) - 1 if last is not None else len(times)
    if free and times[free - 1] > start + (end - start) * 0.9:
        scale = (end - start) * 0.9 / (times[free - 1] - start)
        times[:free] = [start + (x - start) * scale for x in times[:free]]
    if last is not None:
        times[-1] = end
    before = start
    for i, x in enumerate(times):
        times[i] = before = max(x, before + MINUTE).replace(microsecond=0)
    return times


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
        {"ticket_id": new_id[old_id], "author_id": author_id, "body": body,
         "public": int(public), "created_at": iso(when)}
        for old_id, conversation in enumerate(conversations, start=1)
        for author_id, body, public, when in conversation
    ]
    comments.sort(key=lambda c: (c["created_at"], c["ticket_id"]))
    for rating in ratings:
        rating["ticket_id"] = new_id[rating["ticket_id"]]
    ratings.sort(key=lambda x: x["ticket_id"])
    g.tables["tickets"] = tickets
    g.tables["comments"] = [{"id": i, **c} for i, c in enumerate(comments, start=1)]
    g.tables["satisfaction_ratings"] = [{"id": i, **x} for i, x in enumerate(ratings, start=1)]
