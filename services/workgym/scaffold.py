"""``workgym new-replica NAME``: a new app in the replica contract's shape (replicas/README.md).

It writes ``replicas/NAME/`` (a one-table app whose rows are the seed's identity's people:
models, world generator, rules, schemas, list/get/create/update routes on the runtime's
paging, a factory, a probe, ``actors.py``, ``brief.md``, a README skeleton),
``tests/replicas/NAME/`` (its own tests) and its one service entry in docker-compose.yml.
As generated, it passes the contract test, the fuzzer and the compose test; then make it the
product it replicates.
"""

from __future__ import annotations

import re
from pathlib import Path
from string import Template

from workgym_core.errors import InvalidRequest

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"^[a-z][a-z0-9]{1,30}$")

FILES: dict[str, str] = {
    "replicas/$name/__init__.py": '''\
"""$title: <what product this app replicates, in one line>.

Its spec is ``spec.py``'s ``SPEC`` (found by the catalogue); see README.md.
"""
''',
    "replicas/$name/spec.py": '''\
"""The $name app's :class:`ReplicaSpec`."""

from __future__ import annotations

from replicas.runtime.spec import ReplicaSpec

from .factories import FACTORIES
from .routes import TAGS, router

SPEC = ReplicaSpec(
    name="$name",
    title="$title",
    description="$title: the people it knows. Errors are JSON "
    '{"error": {code, message, field, rule}}.',
    data_version="1",
    router=router,
    probe={"update": "people", "id": 1, "values": {"locale": "xx-XX"}},
    factories=FACTORIES,
    openapi_tags=TAGS,
)
''',
    "replicas/$name/models.py": '''\
"""The $name schema: one SQLModel table class per table."""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class ${Title}Model(SQLModel, registry=registry()):
    """Base of the $name tables: its own metadata, so other apps' tables never mix in."""


class Person(${Title}Model, table=True):
    __tablename__ = "people"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    email: str = Field(unique=True)
    locale: str
    created_at: str


METADATA = ${Title}Model.metadata
''',
    "replicas/$name/seed/__init__.py": '''\
"""The seeded $name world: the seed's identity's first people (the same people every app's
world has). Deterministic per seed. The mess: <none yet: document what you add>."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta

from replicas.runtime.clock import iso
from replicas.runtime.identity import identity
from replicas.runtime.world import write_world

N_PEOPLE = 100


def seed(conn: sqlite3.Connection, seed: int, now: datetime) -> None:
    """Create the schema and write the world of ``seed`` as of ``now`` into ``conn``."""
    from ..models import METADATA

    r = random.Random(f"$name:{seed}")
    people = [{"id": i, "name": p.name, "email": p.email, "locale": p.locale,
               "created_at": iso(now - timedelta(days=r.randint(1, 900)))}
              for i, p in enumerate(identity(seed).people(N_PEOPLE), start=1)]
    write_world(conn, METADATA, {"people": people})
''',
    "replicas/$name/rules/__init__.py": '''\
"""The $name app's business rules (plain functions over a session), by area."""

from .people import create_person, update_person

__all__ = ["create_person", "update_person"]
''',
    "replicas/$name/rules/people.py": '''\
"""People: an email belongs to one person."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from workgym_core.errors import Conflict


def _email_free(db: sqlite3.Connection, email: str, but: int | None = None) -> None:
    other = sql.one(db, "SELECT id FROM people WHERE lower(email) = lower(?) AND id IS NOT ?",
                    (email, but))
    if other is not None:
        raise Conflict(f"{email} already belongs to person {other['id']}", code="email_in_use",
                       field="email", rule="email_unique")


def create_person(db: sqlite3.Connection, *, name: str, email: str, locale: str,
                  now: datetime) -> dict[str, Any]:
    _email_free(db, email)
    person_id = sql.insert(db, "people", {"name": name, "email": email, "locale": locale,
                                          "created_at": iso(now)})
    return sql.get_row(db, "people", person_id, noun="person")


def update_person(db: sqlite3.Connection, *, person_id: int,
                  changes: dict[str, Any]) -> dict[str, Any]:
    person = sql.get_row(db, "people", person_id, noun="person")
    if "email" in changes:
        _email_free(db, changes["email"], but=person_id)
    sql.update_changed(db, "people", person, changes)
    return sql.get_row(db, "people", person_id, noun="person")
''',
    "replicas/$name/schemas.py": '''\
"""Request and response models of the $name API."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from replicas.runtime.clock import ISO_DESCRIPTION

Locale = Field(pattern=r"^[a-z]{2}-[A-Z]{2}$$", description="Language and region, e.g. 'de-DE'.")


class PersonOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int = Field(description="Person id.")
    name: str = Field(description="Full name.")
    email: str = Field(description="Email address (unique).")
    locale: str = Field(description="Language and region, e.g. 'de-DE'.")
    created_at: str = Field(description=f"When they were added, {ISO_DESCRIPTION}.")


class PersonCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=120, description="Full name.")
    email: str = Field(min_length=3, max_length=200, pattern=r"^[^@\\s]+@[^@\\s]+$$",
                       description="Email address (unique).")
    locale: str = Locale


class PersonUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=120, description="A new name.")
    email: str | None = Field(None, min_length=3, max_length=200,
                              pattern=r"^[^@\\s]+@[^@\\s]+$$", description="A new email.")
    locale: str | None = Field(None, pattern=r"^[a-z]{2}-[A-Z]{2}$$",
                               description="A new locale.")
''',
    "replicas/$name/routes/__init__.py": '''\
"""The $name API, one router per area, assembled into :data:`router`."""

from __future__ import annotations

from fastapi import APIRouter

from . import people

router = APIRouter()
for module in (people,):  # flattened: nested routers cost matching time per request
    router.routes.extend(module.router.routes)

TAGS = [{"name": "people", "description": "The people $title knows."}]
''',
    "replicas/$name/routes/people.py": '''\
"""People: list, read, add, edit."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import DEFAULT_LIMIT, Filters, Limit, Offset, Page, Q, page
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import rules
from ..schemas import PersonCreate, PersonOut, PersonUpdate

router = APIRouter(tags=["people"])

PersonId = Annotated[Id, Path(description="Id of the person.")]


@router.get("/people", operation_id="list_people", summary="List people",
            response_model=Page[PersonOut])
async def list_people(
    episode: EpisodeDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0,
    email: Annotated[str | None, Query(max_length=200,
                                       description="Only this email (exact).")] = None,
    q: Q = None,
) -> Response:
    """People, by id; `q` searches name and email."""
    found = Filters()
    found.equal(email=email)
    found.search(q, "name", "email")
    return ok(page(episode.db, "people", found.where, found.params, order_by="id",
                   limit=limit, offset=offset))


@router.get("/people/{person_id}", operation_id="get_person", summary="Get a person",
            response_model=PersonOut)
async def get_person(person_id: PersonId, episode: EpisodeDep) -> Response:
    """One person."""
    return ok(get_row(episode.db, "people", person_id, noun="person"))


@router.post("/people", operation_id="create_person", summary="Add a person",
             status_code=201, response_model=PersonOut)
async def create_person(body: PersonCreate, episode: EpisodeDep) -> Response:
    """Add a person (409 email_in_use when the email is taken)."""
    return ok(rules.create_person(episode.db, name=body.name, email=body.email,
                                  locale=body.locale, now=episode.now()), 201)


@router.patch("/people/{person_id}", operation_id="update_person", summary="Edit a person",
              response_model=PersonOut)
async def update_person(person_id: PersonId, body: PersonUpdate,
                        episode: EpisodeDep) -> Response:
    """Change a person's name, email or locale; fields left out stay as they are."""
    changes = body.model_dump(exclude_unset=True, exclude_none=True)
    return ok(rules.update_person(episode.db, person_id=person_id, changes=changes))
''',
    "replicas/$name/factories.py": '''\
"""The $name app's row factories, for task setup: ``{factory: person, bind: p}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replicas.runtime.clock import iso
from replicas.runtime.factories import Factory, FactoryContext


class PersonFactory(Factory):
    """A person no world has (the identity's next)."""

    table = "people"

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> dict[str, Any]:
        person = ctx.unused(ctx.identity.new_people(), "people", "email", lambda p: p.email)
        return {"name": person.name, "email": person.email, "locale": person.locale,
                "created_at": iso(ctx.ago(days=ctx.rng.randint(1, 900)))}


FACTORIES: dict[str, Factory] = {"person": PersonFactory()}
''',
    "replicas/$name/actors.py": '''\
"""The model of the scripted actors a $name task may set up (none yet: add their fields)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Actors(BaseModel):
    model_config = ConfigDict(extra="forbid")
''',
    "replicas/$name/brief.md": '''\
You work in $title, the company's <what it is>. Use the tools to act; every call reads or
changes the real system. Finish with a short answer.
''',
    "replicas/$name/README.md": '''\
# $title

<The product this app replicates, and the documented subset it covers.>

| endpoint | the product's reference |
| --- | --- |
| `GET /people` | <link> |
| `GET /people/{person_id}` | <link> |
| `POST /people` | <link> |
| `PATCH /people/{person_id}` | <link> |

**World**: the seed's identity's first 100 people. **The mess**: <none yet>.
**Rules**: an email belongs to one person (409 `email_in_use`).
**Factories**: `person`. **Probe**: changes person 1's locale.
''',
    "tests/replicas/$name/__init__.py": "",
    "tests/replicas/$name/test_$name.py": '''\
"""The $name app through its API (the contract test covers what every app shares)."""

from __future__ import annotations

import asyncio
import tempfile

import httpx

from replicas.catalog import spec
from replicas.runtime.app import create_replica_app
from workgym_core.internal import EPISODE_HEADER, INTERNAL_HEADER
from workgym_core.settings import Settings


async def _people_can_be_listed_added_and_edited() -> None:
    app = create_replica_app(spec("$name"), Settings(data_dir=tempfile.mkdtemp(),
                                                      internal_secret="s"))
    app.state.store.create("e", seed=1, setup=[], script={}, ttl_s=60)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://a",
                                 headers={INTERNAL_HEADER: "s", EPISODE_HEADER: "e"}) as api:
        listed = (await api.get("/people", params={"limit": 2})).json()
        assert listed["total"] == 100 and len(listed["data"]) == 2
        ada = {"name": "Ada Lovelace", "email": "ada@x.example", "locale": "en-GB"}
        added = await api.post("/people", json=ada)
        assert added.status_code == 201, added.text
        taken = await api.post("/people", json={**ada, "email": "ADA@x.example"})
        assert taken.status_code == 409 and taken.json()["error"]["code"] == "email_in_use"
        edited = await api.patch(f"/people/{added.json()['id']}", json={"locale": "fr-FR"})
        assert edited.json()["locale"] == "fr-FR"


def test_people_can_be_listed_added_and_edited() -> None:
    asyncio.run(_people_can_be_listed_added_and_edited())
''',
}

COMPOSE_ENTRY = '''\
  $name:
    <<: *replica
    build: {context: ., target: replica, args: {APP: $name}}

'''
# New entries go just before this line of docker-compose.yml (after the other apps').
COMPOSE_ANCHOR = "  gym:\n"


class ScaffoldError(InvalidRequest):
    """The app cannot be scaffolded (bad name, or it exists)."""


def scaffold(name: str, root: Path = ROOT) -> list[Path]:
    """Write the new app ``name`` (see the module docstring); the paths written."""
    if not NAME.fullmatch(name) or name == "runtime":
        raise ScaffoldError(f"an app name is 2-31 lower-case letters and digits, starting with "
                            f"a letter (and not 'runtime'): {name!r}")
    if not (root / "docker-compose.yml").is_file():
        raise ScaffoldError(f"new-replica writes into a WorkGym source checkout (replicas/, "
                            f"tests/, docker-compose.yml) and {root} is not one: run it from a "
                            f"clone installed with `pip install -e .`")
    if (root / "replicas" / name).exists():
        raise ScaffoldError(f"replicas/{name} exists already")
    words = {"name": name, "title": name.capitalize(), "Title": name.capitalize()}
    written = []
    for relative, text in FILES.items():
        path = root / Template(relative).substitute(words)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(Template(text).substitute(words), encoding="utf-8")
        written.append(path)
    compose = root / "docker-compose.yml"
    text = compose.read_text(encoding="utf-8")
    if COMPOSE_ANCHOR in text:
        entry = Template(COMPOSE_ENTRY).substitute(words)
        compose.write_text(text.replace(COMPOSE_ANCHOR, entry + COMPOSE_ANCHOR, 1),
                           encoding="utf-8")
        written.append(compose)
    return written
