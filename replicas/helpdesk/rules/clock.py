"""What happens on the virtual clock: automations, run on the hour as Zendesk's are, over
every ticket their conditions match (at most once per ticket per run; closed tickets
never), each change audited (via ``rule``) and the SLA's clock brought along.

:func:`run_due` runs the hourly runs an episode's clock has passed since the last one (after
each write: reads never change the world); :func:`settle` brings a freshly generated world
up to its ``now`` (each ticket on the schedule its creation's triggers give it, its SLA
events, then one run of the automations).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

import orjson

from replicas.runtime import db as sql
from replicas.runtime.db import get_row, rows

from . import audits, sla
from .common import ACTING_AGENT_ID
from .conditions import Context, evaluate
from .triggers import act, as_evaluated, creation_schedule

HOUR = timedelta(hours=1)


def run_automations(db: sqlite3.Connection, now: datetime) -> int:
    """One run at ``now``; how many tickets the automations changed."""
    automations = rows(db, "SELECT * FROM automations WHERE active ORDER BY position, id")
    changed = 0
    for ticket in rows(db, "SELECT * FROM tickets WHERE status != 'closed' ORDER BY id"):
        requester = get_row(db, "users", ticket["requester_id"])
        ctx = Context(now=now, requester=requester)
        events = []
        for automation in automations:
            current = get_row(db, "tickets", ticket["id"])
            if evaluate(orjson.loads(automation["conditions"]), as_evaluated(current), ctx):
                events += act(db, automation, "automation", current, now)
        if events:
            audits.record(db, ticket_id=ticket["id"], author_id=ACTING_AGENT_ID,
                          channel="rule", events=events, now=now)
            sla.sync(db, ticket["id"], now)
            changed += 1
    return changed


def hour_of(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def run_due(db: sqlite3.Connection, last: datetime, now: datetime) -> None:
    """The hourly runs after ``last`` up to ``now``, each at its hour."""
    hour = hour_of(last) + HOUR
    while hour <= now:
        run_automations(db, hour)
        hour += HOUR


def settle(db: sqlite3.Connection, now: datetime) -> None:
    """A generated world as the live helpdesk would have it at ``now``."""
    db.execute("BEGIN")
    for ticket in rows(db, "SELECT * FROM tickets ORDER BY id"):
        schedule = creation_schedule(db, ticket, now)
        if schedule is not None:
            sql.update(db, "tickets", ticket["id"], {"schedule_id": schedule})
        sla.sync(db, ticket["id"], now)
    run_automations(db, now)
    db.execute("COMMIT")
