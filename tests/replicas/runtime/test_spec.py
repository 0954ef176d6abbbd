"""What is read of an app without importing it: its brief and its actors' model; what the
runtime finds of an app by convention: its world generator."""

from __future__ import annotations

from replicas.catalog import spec
from replicas.helpdesk.actors import Actors
from replicas.helpdesk.spec import SPEC
from replicas.notes import seed as notes_world
from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import connect_memory
from replicas.runtime.spec import actors_model, read_brief, world_generator
from tests.imports import imported_after


def test_the_brief_and_actors_are_the_apps_files() -> None:
    assert SPEC.brief == read_brief("helpdesk")
    assert read_brief("helpdesk").startswith("You are a support agent")
    assert SPEC.actors is actors_model("helpdesk") is Actors


def test_reading_them_imports_no_routes() -> None:
    assert imported_after(
        "from replicas.runtime.spec import actors_model, read_brief; read_brief('helpdesk'); "
        "actors_model('helpdesk').model_validate("
        "{'customer': {'ticket': '$ticket.id', 'knows': [{'kind': 'detail'}]}})",
        "fastapi", "sqlalchemy", "replicas.helpdesk.routes", "replicas.helpdesk.spec") == []


def test_the_runtime_seeds_an_app_with_its_seed_package() -> None:
    found = spec("notes")
    assert found.generator is None and world_generator("notes") is notes_world.seed
    conn = connect_memory()
    found.seed(conn, 3, WORLD_START)
    assert conn.execute("SELECT COUNT(*) AS n FROM notes").fetchone() == {
        "n": notes_world.N_NOTES}
