"""``assign``: find a record by what a person knows of it and hand it to another owner,
found by their email.

Read from the rules' ``assigns`` section: the owner column, the select drawing the owner
(``pick``, after the setup ops ``draw`` it may refer to), the select drawing the record's
current owner (``held``; default: the pick's), how an owner is found (a finder: ``says``,
``given``, ``routes``) and per record table the call setting the owner. One candidate per
(record table with a call, lookup; the table's first lookup named by the table alone): the
record and the party's other record belong to a third owner; the reference finds the record
and the owner and sets it; alternatives find either another way; near misses hand over the
other record, or both."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..synthesis import AppRules, Candidate
from ..task_rules import Act, Finder
from .common import find, slug, with_article
from .lookup_act import allowed_columns
from .sections import section


class Assigns(BaseModel):
    model_config = ConfigDict(extra="forbid")

    column: str
    draw: list[dict[str, Any]] = []
    pick: dict[str, Any]
    held: dict[str, Any] | None = None
    find: Finder
    acts: dict[str, Act]


class Assign:
    name = "assign"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        raw = section(app.app, "assigns")
        if not raw:
            return
        spec = Assigns.model_validate(raw)
        for table in sorted(spec.acts):
            record = app.rules.records[table]
            first, *others = sorted(record.find)
            yield Candidate(f"{app.app}/{slug(self.name, record.noun)}", self.name,
                            self.body(app, spec, table, first))
            for lookup in others:
                yield Candidate(f"{app.app}/{slug(self.name, record.noun, 'by', lookup)}",
                                self.name, self.body(app, spec, table, lookup))

    def body(self, app: AppRules, spec: Assigns, table: str, lookup: str) -> dict[str, Any]:
        record = app.rules.records[table]
        finder = record.find[lookup]
        found = [*find(app, finder), *find(app, spec.find)]
        n = len(found)
        act = app.call(spec.acts[table])
        decoy = [app.call(s) for s in record.find_decoy]
        held = {spec.column: "$before.id"}
        held_by = spec.held or spec.pick
        setup = [*spec.draw, {**spec.pick, "bind": "owner"},
                 {**held_by, "exclude": {**held_by.get("exclude", {}), "id": "$owner.id"},
                  "bind": "before"},
                 *({**op, **held} if op.get("bind") in (record.bind, record.decoy) else op
                   for op in record.make)]
        return {
            "title": f"Hand {with_article(record.noun)} to another owner",
            "difficulty": "easy",
            "tags": ["factory", self.name, record.noun, spec.column],
            "instruction": (f"Assign {finder.says} to {spec.find.says}. Change nothing "
                            "else."),
            "setup": setup,
            "reference": {"given": {**finder.given, **spec.find.given},
                          "steps": [*found, act]},
            "alternatives": [
                *({"name": f"finds-it-another-way-{i}",
                   "steps": [*find(app, finder, i), *find(app, spec.find), act]}
                  for i in range(1, len(finder.routes))),
                *({"name": f"finds-the-owner-another-way-{i}",
                   "steps": [*find(app, finder), *find(app, spec.find, i), act]}
                  for i in range(1, len(spec.find.routes)))],
            "near_misses": [
                {"name": f"assigns-the-other-{record.noun}", "before": {n: decoy}},
                {"name": f"assigns-both-{record.noun}s", "append": [*decoy, act]}],
            "verifier": [
                {"name": f"{record.noun}_assigned", "check": "field_changed", "table": table,
                 "where": {"id": f"${record.bind}.id"}, "field": spec.column,
                 "to": "$owner.id"},
                {"name": f"other_{record.noun}_kept", "check": "field_unchanged",
                 "table": table, "where": {"id": f"${record.decoy}.id"},
                 "fields": [spec.column]},
                allowed_columns(table, record, [spec.column])],
        }
