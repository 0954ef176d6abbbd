"""``link``: find two records by what a person knows of them and associate them.

Read from the rules' ``links`` section (each: the ``from`` and ``to`` tables, both with a
``records`` entry; ``act``, the call making the association; ``also``, another call making
the same; ``made``, the association's row). One candidate per (link, lookup of each end):
the reference finds both and links them; alternatives find them another way or link with
``also``; near misses link the ``to`` end's other record (``find_decoy``), link the ``from``
end's other record, or link both."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..synthesis import AppRules, Candidate
from ..task_rules import Act, Record
from .common import find, slug, with_article
from .sections import section


class Link(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: str = Field(alias="from")
    to: str
    act: Act
    also: Act
    made: dict[str, Any]


def links(app: str) -> dict[str, Link]:
    """The ``links`` section of the app's rules file (none: no links)."""
    return {name: Link.model_validate(spec)
            for name, spec in sorted(section(app, "links").items())}


def setup(ends: tuple[Record, Record]) -> list[dict[str, Any]]:
    """Both ends' setups, an op binding a name the first end bound already left out (the
    party both are made for)."""
    ops = list(ends[0].make)
    bound = {op.get("bind") for op in ops}
    return ops + [op for op in ends[1].make if op.get("bind") not in bound]


class LinkRecords:
    name = "link"

    def candidates(self, app: AppRules) -> Iterator[Candidate]:
        for name, link in links(app.app).items():
            ends = (app.rules.records[link.from_], app.rules.records[link.to])
            for a in sorted(ends[0].find):
                for b in sorted(ends[1].find):
                    task = slug(self.name, name, "by", a, "and", b).lower()
                    yield Candidate(f"{app.app}/{task}", self.name,
                                    self.body(app, link, ends, (a, b)))

    def body(self, app: AppRules, link: Link, ends: tuple[Record, Record],
             lookups: tuple[str, str]) -> dict[str, Any]:
        finders = (ends[0].find[lookups[0]], ends[1].find[lookups[1]])
        found = [*find(app, finders[0]), *find(app, finders[1])]
        n = len(found)
        made, also = app.call(link.act), app.call(link.also)

        def other(record: Record) -> list[dict[str, Any]]:
            return [app.call(step) for step in record.find_decoy]

        alternatives: list[dict[str, Any]] = [
            {"name": "links-with-the-type-named", "replace": {n: also}},
            *({"name": f"finds-the-{ends[0].noun}-another-way-{i}",
               "steps": [*find(app, finders[0], i), *find(app, finders[1]), made]}
              for i in range(1, len(finders[0].routes))),
            *({"name": f"finds-the-{ends[1].noun}-another-way-{i}",
               "steps": [*find(app, finders[0]), *find(app, finders[1], i), made]}
              for i in range(1, len(finders[1].routes)))]
        near_misses = [
            {"name": f"links-the-other-{ends[1].noun}", "before": {n: other(ends[1])}},
            {"name": f"links-the-other-{ends[0].noun}", "before": {n: other(ends[0])}},
            {"name": f"links-both-{ends[1].noun}s", "append": [*other(ends[1]), made]}]
        made_row = {"table": "associations", "where": link.made}
        pair = {k: v for k, v in link.made.items() if k in ("from_id", "to_id")}
        back = {"from_type": link.made["to_type"], "from_id": pair["to_id"],
                "to_type": link.made["from_type"], "to_id": pair["from_id"]}
        return {
            "title": f"Associate {with_article(ends[0].noun)} with {with_article(ends[1].noun)}",
            "difficulty": "easy",
            "tags": ["factory", self.name, ends[0].noun, ends[1].noun],
            "instruction": (f"Associate {finders[0].says} with {finders[1].says}. Change "
                            "nothing else."),
            "setup": setup(ends),
            "reference": {"given": {**finders[0].given, **finders[1].given}, "steps":
                          [*found, made]},
            "alternatives": alternatives,
            "near_misses": near_misses,
            "verifier": [
                {"name": "associated", "check": "row_exists", **made_row},
                {"name": f"other_{ends[1].noun}_not_associated", "check": "row_absent",
                 "table": "associations",
                 "where": {**link.made, "to_id": f"${ends[1].decoy}.id"}},
                {"name": "no_collateral_damage", "check": "only_changes", "allow": [
                    {"table": "associations", "op": "insert", "where": link.made},
                    {"table": "associations", "op": "insert", "where": back}]}],
        }
