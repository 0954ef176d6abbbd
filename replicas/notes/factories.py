"""The notes app's row factories, for task setup (replicas/runtime/factories.py)::

    - {factory: person, bind: person}
    - {factory: note, person_id: $person.id, title: "Prefers email"}
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.factories import Factory, FactoryContext

from .world import data


class PersonFactory(Factory):
    """A person no world has (one of the identity's new people, ``ctx.new_people``)."""

    table = "people"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> dict[str, Any]:
        person = ctx.unused(ctx.new_people(), "people", "email", lambda p: p.email)
        company = (ctx.identity.company(person.company).name if person.company is not None
                   else None)
        return {"name": person.name, "email": person.email, "locale": person.locale,
                "company": company, "created_at": iso(ctx.ago(days=ctx.rng.randint(30, 900)))}


class NoteFactory(Factory):
    """A note about a person (given, else a random one), from the world's material."""

    table = "notes"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> dict[str, Any]:
        title, body = ctx.rng.choice(data()["notes"])
        created = (parse_iso(given["created_at"]) if given.get("created_at")
                   else ctx.ago(days=ctx.rng.randint(1, 300)))
        return {"person_id": given.get("person_id") or ctx.pick("people"), "title": title,
                "body": body, "pinned": 0, "created_at": iso(created),
                "updated_at": iso(min(ctx.now, created + timedelta(
                    hours=ctx.rng.randint(0, 48))))}


FACTORIES: dict[str, Factory] = {"person": PersonFactory(), "note": NoteFactory()}

# The world going on around a task's setup (replicas/runtime/setup.py): a note about someone
# new.
ACTIVITY: tuple[dict[str, Any], ...] = (
    {"factory": "person", "bind": "person"},
    {"factory": "note", "person_id": "$person.id", "created_at": "$activity.at"},
)
