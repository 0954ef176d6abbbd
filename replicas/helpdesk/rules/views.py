"""Views as Zendesk runs them: the tickets a view's conditions select, in its order (or in
an order the agent picks from a view's column headers)."""

from __future__ import annotations

from typing import Any

import orjson

from replicas.runtime.db import rows
from replicas.runtime.episode import Episode

from . import sla
from .conditions import PRIORITY_ORDER, STATUS_ORDER, Context, evaluate
from .triggers import as_evaluated

_RANKS = {"status": STATUS_ORDER, "priority": PRIORITY_ORDER}


def _statuses(conditions: dict[str, Any]) -> list[str]:
    """The statuses the view's "all" status conditions leave (every one if none): a filter
    the database applies before the conditions are checked on each ticket."""
    ranks = {status: i for i, status in enumerate(STATUS_ORDER)}
    keep = set(STATUS_ORDER)
    for c in conditions.get("all") or []:
        if c.get("field") != "status" or c.get("value") not in ranks:
            continue
        rank = ranks[c["value"]]
        keep &= {s for s, r in ranks.items() if {
            "is": r == rank, "is_not": r != rank, "less_than": r < rank,
            "greater_than": r > rank}.get(c.get("operator"), True)}
    return sorted(keep)


def view_tickets(episode: Episode, view: dict[str, Any], sort_by: str | None = None,
                 sort_order: str | None = None) -> list[dict[str, Any]]:
    """The tickets the view shows, in its order (its execution's sort, unless ``sort_by`` /
    ``sort_order`` name another)."""
    db, now = episode.db, episode.now()
    conditions = orjson.loads(view["conditions"])
    execution = orjson.loads(view["execution"])
    breaches = sla.next_breaches(db)
    users = {u["id"]: u for u in rows(db, "SELECT * FROM users WHERE role = 'end-user'")}
    statuses = _statuses(conditions)
    shown = []
    for ticket in rows(db, f"SELECT * FROM tickets WHERE status IN "
                       f"({','.join('?' * len(statuses))}) ORDER BY id", statuses):
        seen = {**as_evaluated(ticket), "sla_next_breach_at": breaches.get(ticket["id"])}
        if evaluate(conditions, seen, Context(now=now, requester=users.get(
                ticket["requester_id"]))):
            shown.append(seen)
    key = sort_by or execution["sort_by"]
    ranks = _RANKS.get(key)
    shown.sort(key=lambda t: t["id"])
    shown.sort(key=lambda t: (t.get(key) is None,
                              ranks.index(t[key]) if ranks else t.get(key) or ""),
               reverse=(sort_order or execution["sort_order"]) == "desc")
    return shown
