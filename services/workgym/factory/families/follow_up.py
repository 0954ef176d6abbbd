"""``follow-up``: find a record by what a person knows of it and log a follow-up task on it
(a to-do of a type, a subject and a due time, associated with the record).

Read from the rules' ``follow_ups`` section: the task table, the types with subjects for
them, the record tables a task can be on (with the association type), the call creating an
associated task (``act``), the call creating one alone (``unlinked``) and the call
associating it afterwards (``link``). One candidate per (record table, type): the reference
finds the record and creates the task on it; alternatives find it another way, or create
the task and then associate it; near misses log it on the other record, log another type,
leave it unassociated, or log it twice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..synthesis import AppRules, Candidate
from ..task_rules import Act, Step
from .common import find, slug, with_article
from .sections import section

DUE = ["@now+2d", "@now+3d", "@now+6d"]


class FollowUps(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: str
    types: dict[str, list[str]]
    attach: dict[str, int]
    act: Act
    unlinked: Step
    link: Act


class FollowUp:
    name = "follow-up"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        raw = section(app.app, "follow_ups")
        if not raw:
            return
        spec = FollowUps.model_validate(raw)
        for table, type_id in sorted(spec.attach.items()):
            record = app.rules.records[table]
            for kind in sorted(spec.types):
                name = slug(self.name, kind, "on", record.noun).lower()
                yield Candidate(f"{app.app}/{name}", self.name,
                                self.body(app, spec, table, type_id, kind))

    def body(self, app: AppRules, spec: FollowUps, table: str, type_id: int,
             kind: str) -> dict[str, Any]:
        record = app.rules.records[table]
        lookup = sorted(record.find)[0]
        finder = record.find[lookup]
        found = find(app, finder)
        n = len(found)
        names = {"subject": "{subject}", "due": "{due}", "record": f"{{{{ {record.bind}.id }}}}",
                 "type_id": type_id, "table": table}

        def create(type_: str = kind) -> dict[str, Any]:
            return app.call(spec.act, type=type_, **names)

        unlinked = app.call(spec.unlinked, type=kind, **names)
        link = app.call(spec.link, **names)
        decoy = [app.call(s) for s in record.find_decoy]
        other = next(t for t in sorted(spec.types) if t != kind)
        due = {"bind": "fu", "draw": {"subject": {"choice": spec.types[kind]},
                                      "due": {"choice": DUE}}}
        wanted = {"hs_task_subject": "$fu.subject", "hs_task_type": kind,
                  "hs_timestamp": {"same_day": "$fu.due"}}
        on_record = {"from_type": spec.table, "to_type": table, "to_id": f"${record.bind}.id"}
        back = {"from_type": table, "from_id": f"${record.bind}.id", "to_type": spec.table}
        return {
            "title": f"Log a follow-up task on {with_article(record.noun)}",
            "difficulty": "easy",
            "tags": ["factory", self.name, record.noun, kind.lower()],
            "instruction": (f'Log a {kind} task "{{{{ fu.subject }}}}" on {finder.says}, due '
                            "{{ fu.due }}. Change nothing else."),
            "setup": [*record.make, due],
            "reference": {"given": {**finder.given, "subject": r'task "([^"]+)"',
                                    "due": r"due (\S+Z)\."},
                          "steps": [*found, create()]},
            "alternatives": [
                *({"name": f"finds-it-another-way-{i}", "steps": [*find(app, finder, i),
                                                                  create()]}
                  for i in range(1, len(finder.routes))),
                {"name": "creates-it-then-associates-it", "replace": {n: unlinked},
                 "append": [link]}],
            "near_misses": [
                {"name": f"logs-it-on-the-other-{record.noun}", "before": {n: decoy}},
                {"name": f"logs-a-{other.lower()}-task", "replace": {n: create(other)}},
                {"name": "leaves-it-unassociated", "replace": {n: unlinked}},
                {"name": "logs-it-twice", "append": [create()]}],
            "verifier": [
                {"name": "task_logged", "check": "row_exists", "table": spec.table,
                 "where": wanted},
                {"name": f"on_the_{record.noun}", "check": "row_exists",
                 "table": "associations", "where": on_record},
                {"name": "one_task", "check": "count_changed", "table": spec.table, "by": 1},
                {"name": "no_collateral_damage", "check": "only_changes", "allow": [
                    {"table": spec.table, "op": "insert", "where": wanted},
                    {"table": "associations", "op": "insert", "where": on_record},
                    {"table": "associations", "op": "insert", "where": back}]}],
        }
