"""The contract between a replica app and the shared replica runtime (replicas/README.md).

The runtime finds an app's parts by convention, from its name: its spec
(``replicas/<app>/spec.py``'s ``SPEC``, ``replicas.catalog.spec``), its world generator
(``seed(conn, seed, now)`` of ``replicas/<app>/seed/``, :meth:`ReplicaSpec.seed`).

Four parts of an app are read without importing it (its routes and FastAPI are start-up CPU
a process that only lists tasks or exports data should not pay): its brief
(``replicas/<app>/brief.md``, :func:`read_brief`), the model of its tasks' scripted
actors (``replicas/<app>/actors.py``, pydantic only, :func:`actors_model`), the
changes every task of it allows (``replicas/<app>/allowances.yaml``, :func:`read_allowances`)
and its manifest (``replicas/<app>/app.yaml``, :func:`read_manifest`: whether it is a
framework app, its own fault presets).
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

if TYPE_CHECKING:  # the catalogue imports this module in processes that serve no replica
    from fastapi import APIRouter

    from workgym_core.asgi import ASGIApp

    from .episode import Episode
    from .errors import ErrorStyle
    from .factories import Factory

_REPLICAS = Path(__file__).resolve().parents[1]


@cache
def read_brief(app: str) -> str:
    """The agent's brief for ``app`` (its persona, the system prompt of its episodes):
    ``replicas/<app>/brief.md``, without importing the app."""
    return (_REPLICAS / app / "brief.md").read_text(encoding="utf-8").strip()


@cache
def read_allowances(app: str) -> tuple[dict[str, Any], ...]:
    """The changes every task of ``app`` allows on its case (``only_changes`` rules, see
    ``replicas/<app>/allowances.yaml``); none when the app has no such file."""
    path = _REPLICAS / app / "allowances.yaml"
    if not path.is_file():
        return ()
    rules = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(rules, list):
        raise ValueError(f"{path}: a list of only_changes allow rules")
    return tuple(rules)


class AppManifest(BaseModel):
    """What the catalogue knows of an app without importing it (``app.yaml``, optional:
    all defaults when absent)."""

    model_config = ConfigDict(extra="forbid")

    framework: bool = Field(False, description=(
        "The app exists to keep the runtime honest, not to be trained on: served only when "
        "WORKGYM_FRAMEWORK_APPS is on, its tasks left out of a catalogue that does not serve "
        "it."))
    fault_presets: dict[str, list[dict[str, Any]]] = Field(default_factory=dict, description=(
        "Fault plans of the product's own (a fault preset's name -> fault configs), offered "
        "beside the proxy's (none, hard) wherever a preset can be named."))
    start_page: str = Field("/", pattern=r"^/\S*$", description=(
        "The page a browser opens the app on (workgym.browser's first tab of the app): the "
        "product's home for an operator, as a path under the app's base."))
    gateway: dict[str, Any] = Field(default_factory=dict, description=(
        "What the proxy does in the app's place as the product would (read by the proxy's "
        "gateway.py, never by the app): 'errors', its own refusals in the product's error "
        "body; 'session', the product's cookie login."))


@cache
def read_manifest(app: str) -> AppManifest:
    """``replicas/<app>/app.yaml`` (defaults when there is none); a ValueError naming the
    file and field when it is not a manifest."""
    path = _REPLICAS / app / "app.yaml"
    if not path.is_file():
        return AppManifest()
    try:
        return AppManifest.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise ValueError(f"{path}: {where}: {first['msg']}") from exc


@cache
def actors_model(app: str) -> type[BaseModel] | None:
    """The model of ``app``'s scripted actors (``Actors`` in ``replicas/<app>/actors.py``),
    or None if its tasks have none. Imports that module alone (an app's package imports
    nothing heavy on its own: its ``SPEC`` is built on first access)."""
    if not (_REPLICAS / app / "actors.py").is_file():
        return None
    model: type[BaseModel] = importlib.import_module(f"replicas.{app}.actors").Actors
    return model


Generator = Callable[[sqlite3.Connection, int, datetime], None]


@cache
def world_generator(app: str) -> Generator:
    """``seed(conn, seed, now)`` of ``replicas/<app>/seed/``, imported on first use: the
    models' SQLModel/SQLAlchemy (~0.4 s) is needed only to build a snapshot, never by a
    replica serving pre-built ones."""
    generate: Generator = importlib.import_module(f"replicas.{app}.seed").seed
    return generate


@dataclass(frozen=True, kw_only=True)
class ReplicaSpec:
    """Everything the runtime needs to know about one app."""

    name: str
    title: str
    description: str
    data_version: str
    router: APIRouter
    # Creates the schema and writes the seeded world into an empty database; None: the
    # app's world generator, ``replicas/<app>/seed/`` (:func:`world_generator`). Only an app
    # outside ``replicas/`` (a test's) gives its own.
    generator: Generator | None = None
    # One row operation (rowops syntax) making a harmless change to the seeded world that no
    # task allows: tests use it as the generic "collateral write" in any app.
    probe: dict[str, Any]
    # Row factories task setup may use ({factory: name, ...}), by name.
    factories: Mapping[str, Factory] = field(default_factory=dict)
    # Row ops of one piece of other people's activity (a customer's new ticket and its
    # comment), bound ``$activity.at``: the world going on around a task's setup (setup.py).
    activity: tuple[dict[str, Any], ...] = ()
    # Called after every successful write request; lets an app react as the
    # world would (e.g. the scripted customer answering a public reply).
    after_write: Callable[[Episode], None] | None = None
    # What a write sent the world's people (emails), from the rows it changed ({table, op,
    # id}): each a JSON object (``to``, ``about``, what it says). The proxy delivers it to the
    # episode's other apps, whose actors read it in ``episode.memory["mail"]``.
    mail: Callable[[Episode, list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    openapi_tags: list[dict[str, str]] = field(default_factory=list)
    # How its errors look (None: WorkGym's body); a product with an error object of its own
    # renders that (replicas/runtime/errors.py).
    errors: ErrorStyle | None = None
    # Pure-ASGI middleware of the app's own around the API (the first outermost), outside the
    # runtime's: the product's wire conventions (form-encoded bodies, ...).
    middleware: tuple[Callable[[ASGIApp], ASGIApp], ...] = ()
    # The column whose value the API shows as a row's id, where a table has it (Stripe's
    # ``stripe_id``); the row's ``id`` elsewhere (runtime/changes.py).
    public_id: str = "id"

    def seed(self, conn: sqlite3.Connection, seed: int, now: datetime) -> None:
        """Create the schema and write the world of ``seed`` as of ``now`` into ``conn``."""
        (self.generator or world_generator(self.name))(conn, seed, now)

    @property
    def brief(self) -> str:
        """The agent's brief for this app (``brief.md``)."""
        return read_brief(self.name)

    @property
    def actors(self) -> type[BaseModel] | None:
        """The model of this app's scripted actors (``actors.py``), if it has any."""
        return actors_model(self.name)
