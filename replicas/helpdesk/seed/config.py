"""The account's configuration, from world.yaml: ticket fields, schedules (business hours
and holidays), SLA policies, views, triggers and automations. The same in every world; the
rules that read them (rules/) check them when they load."""

from __future__ import annotations

import orjson

from replicas.runtime.clock import iso

from ..world import PRIORITIES
from .common import Generation, Row

DAY = 24 * 60


def _json(value: object) -> str:
    return orjson.dumps(value).decode()


def build(g: Generation) -> None:
    w, since = g.w, iso(g.ago(days=400))
    g.tables["ticket_fields"] = [
        {"id": id, "key": key, "title": title, "type": kind, "active": 1, "position": i,
         "options": _json([{"name": o.replace("_", " ").capitalize(), "value": o}
                           for o in options])}
        for i, (id, key, title, kind, options) in enumerate(w["ticket_fields"], start=1)]
    g.tables["schedules"] = [
        {"id": i, "name": s["name"], "time_zone": s["time_zone"],
         "intervals": _json([{"start_time": day * DAY + s["hours"][0] * 60,
                              "end_time": day * DAY + s["hours"][1] * 60}
                             for day in range(1, 6)]),
         "holidays": _json(s["holidays"])}
        for i, s in enumerate(w["schedules"], start=1)]
    g.tables["sla_policies"] = [
        {"id": i, "title": p["title"], "description": p["description"], "position": i,
         "filter": _json(p["filter"]), "policy_metrics": _json(_metrics(p)),
         "created_at": since, "updated_at": since}
        for i, p in enumerate(w["sla_policies"], start=1)]
    g.tables["views"] = [
        {"id": i, "title": v["title"], "active": 1, "position": i,
         "conditions": _json(v["conditions"]),
         "execution": _json({"sort_by": v["sort"][0], "sort_order": v["sort"][1]}),
         "created_at": since, "updated_at": since}
        for i, v in enumerate(w["views"], start=1)]
    for table in ("triggers", "automations"):
        g.tables[table] = [_rule(i, r, since) | ({"description": r["description"]}
                                                  if table == "triggers" else {})
                           for i, r in enumerate(w[table], start=1)]


def _metrics(policy: Row) -> list[Row]:
    return [{"priority": priority, "metric": metric, "target": targets[i],
             # Urgent tickets run around the clock under every policy.
             "business_hours": policy["business_hours"] and priority != "urgent"}
            for metric, targets in policy["metrics"].items()
            for i, priority in enumerate(PRIORITIES)]


def _rule(i: int, rule: Row, since: str) -> Row:
    return {"id": i, "title": rule["title"], "active": 1, "position": i,
            "conditions": _json(rule["conditions"]), "actions": _json(rule["actions"]),
            "created_at": since, "updated_at": since}
