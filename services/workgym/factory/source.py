"""A spec directory (``replicas/<app>/source/``): ``rules.yaml`` and, for a compiled app,
``openapi.yaml``, loaded and checked.

``rules.yaml`` declares what the API description does not say: the product (name, title,
brief), its conventions (error shape, paging), its object types (one table each, the
product's property names as columns) and plain tables, the pipelines and association types
seeded as data, the state machines, policies and lookups tasks are built on, the world's
sizes and mess, and the claim words of the statement checker. A hand-written app's rules
file has only the task-facing sections (``state_machines``, ``policies``, ``lookups``).

Every error names the file and the YAML path of what is wrong
(``rules.yaml: state_machines.deal_stage.column: no column 'stage' in table deals``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from replicas.runtime.identity import WORLD_COMPANIES, WORLD_PEOPLE

from .task_rules import Policy, Record, StateMachine

RULES = "rules.yaml"
OPENAPI = "openapi.yaml"
# The object types a world takes from the seed's identity, and how many it has for worlds.
IDENTITY_SHARE = {"contacts": WORLD_PEOPLE, "companies": WORLD_COMPANIES}
# Every object's read-only property that is its id, never a column.
OBJECT_ID_PROPERTY = "hs_object_id"

PropertyType = Literal["string", "number", "datetime", "date", "enumeration", "bool"]
ColumnType = Literal["integer", "string", "number", "datetime", "date", "bool", "json"]


class SourceError(ValueError):
    """A spec directory that cannot be compiled: the file and YAML path, then the rule."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Product(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9]*$")
    title: str
    description: str
    data_version: str
    brief: str
    reference: str = Field("", description="the product's public API reference (README)")
    references: dict[str, str] = Field(default_factory=dict, description=(
        "the reference page of each area (an OpenAPI tag)"))
    probe: dict[str, Any] = Field(description=(
        "one row operation making a harmless change no task allows (SPEC.probe)"))
    checked_by: str = Field("", description=(
        "how others' material checks the app (README): the product's client, its shapes"))


class Conventions(_Strict):
    errors: Literal["hubspot"]
    paging: Literal["cursor"]


class Property(_Strict):
    """One property of an object type: a column of its table, named as the product does."""

    type: PropertyType = "string"
    label: str = ""
    options: list[str] = Field(default_factory=list)
    read_only: bool = False
    required_on_create: bool = False
    unique: bool = False
    references: str | None = None
    sensitive: bool = False


class ObjectType(_Strict):
    """A CRM object type: its table is the key it is declared under."""

    object_type_id: str = Field(pattern=r"^\d+-\d+$")
    singular: str
    description: str = ""
    properties: dict[str, Property]
    default_properties: list[str] = Field(description=(
        "what a read answers when it names no properties (may name hs_object_id)"))
    searchable: list[str] = Field(default_factory=list, description=(
        "what a search's free-text query matches"))
    modified_property: str


class Column(_Strict):
    type: ColumnType = "string"
    nullable: bool = True
    unique: bool = False
    index: bool = False
    references: str | None = None
    sensitive: bool = False


class Table(_Strict):
    """A plain table (owners, pipelines, their stages, associations): ``id`` is implied."""

    singular: str = Field("", description="its model class's name (default: name less 's')")
    description: str = ""
    id: Literal["integer", "string"] = Field("integer", description=(
        "the primary key's type: HubSpot's pipelines and stages have string ids"))
    columns: dict[str, Column]


class Stage(_Strict):
    id: str
    label: str
    display_order: int
    metadata: dict[str, str] = Field(default_factory=dict)


class Pipeline(_Strict):
    id: str
    label: str
    display_order: int
    stages: list[Stage]


class AssociationType(_Strict):
    from_: str = Field(alias="from")
    to: str
    type_id: int
    category: Literal["HUBSPOT_DEFINED", "USER_DEFINED"] = "HUBSPOT_DEFINED"
    label: str | None = None


PERSON_FIELDS = ("first", "last", "email", "phone", "country", "currency", "language")
COMPANY_FIELDS = ("name", "domain")
MessKind = Literal["duplicate_contact", "overdue_open_deal", "departed_owner", "stale_phone"]


class Draw(_Strict):
    """How the world generator draws one property: exactly one kind, and ``maybe`` (the
    share of rows that have a value at all)."""

    person: Literal[PERSON_FIELDS] | None = None  # type: ignore[valid-type]
    company: Literal[COMPANY_FIELDS] | None = None  # type: ignore[valid-type]
    choice: list[str] | None = None
    weights: list[float] | None = None
    material: str | None = None
    number: tuple[int, int] | None = None
    step: int = 1
    after_created: tuple[float, float] | None = None
    owner: bool = False
    pipeline: bool = False
    stage: list[float] | None = None
    phone: bool = False
    maybe: float = Field(1.0, gt=0, le=1)

    @model_validator(mode="after")
    def _one_kind(self) -> Draw:
        kinds = [k for k in DRAW_KINDS if getattr(self, k) not in (None, False)]
        if len(kinds) != 1:
            raise ValueError(f"exactly one of {', '.join(DRAW_KINDS)} (got {kinds or 'none'})")
        if self.weights is not None and len(self.weights) != len(self.choice or ()):
            raise ValueError("weights: one per choice")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in DRAW_KINDS if getattr(self, k) not in (None, False))


DRAW_KINDS = ("person", "company", "choice", "material", "number", "after_created", "owner",
              "pipeline", "stage", "phone")


class TableDraws(_Strict):
    created: tuple[float, float] = Field(description="days before now a row was created")
    properties: dict[str, Draw]


class Agent(_Strict):
    first_name: str
    last_name: str


class Mess(_Strict):
    """A deliberate defect of the world: made on ``share`` of ``table``'s rows, shown by
    ``marker`` (what in the data gives it away)."""

    kind: MessKind
    table: str
    share: float = Field(gt=0, le=1)
    marker: str


class World(_Strict):
    staff_domain: str
    agent: Agent
    sizes: dict[str, int]
    draws: dict[str, TableDraws] = Field(default_factory=dict)
    activity: list[str] = Field(default_factory=list, description=(
        "object types whose records are also on one of their contact's other records"))
    material: dict[str, list[str]] = Field(default_factory=dict)
    mess: list[Mess] = Field(default_factory=list)


class Claims(_Strict):
    """The statement checker's material, as ``services/workgym_core/speech/lexicon.py`` reads
    it: ``vocabulary``, the app's ``claims.yaml`` (its ``sensitive`` section is compiled from
    the properties marked sensitive), and ``say``, its ``say.yaml`` (none when empty)."""

    vocabulary: dict[str, Any] = Field(default_factory=dict)
    say: dict[str, Any] = Field(default_factory=dict)


class Rules(_Strict):
    """``rules.yaml``. Only the task-facing sections for a hand-written app."""

    product: Product | None = None
    conventions: Conventions | None = None
    objects: dict[str, ObjectType] = Field(default_factory=dict)
    tables: dict[str, Table] = Field(default_factory=dict)
    pipelines: dict[str, list[Pipeline]] = Field(default_factory=dict)
    association_types: list[AssociationType] = Field(default_factory=list)
    state_machines: dict[str, StateMachine] = Field(default_factory=dict)
    policies: dict[str, Policy] = Field(default_factory=dict)
    lookups: dict[str, list[str]] = Field(default_factory=dict)
    records: dict[str, Record] = Field(default_factory=dict, description=(
        "how tasks make, find and count each table's records: workgym factory tasks' "
        "(factory/task_rules.py), not the compiler's"))
    links: dict[str, Any] = Field(default_factory=dict, description=(
        "associations a task makes between two records (the link family's), not the "
        "compiler's"))
    cross: dict[str, Any] = Field(default_factory=dict, description=(
        "what customers ask in another app that a change of this one answers (the "
        "cross-act-tell family's), not the compiler's"))
    follow_ups: dict[str, Any] = Field(default_factory=dict, description=(
        "follow-up tasks a person logs on a record (the follow-up family's), not the "
        "compiler's"))
    assigns: dict[str, Any] = Field(default_factory=dict, description=(
        "records a person hands to another owner (the assign family's), not the compiler's"))
    merges: dict[str, Any] = Field(default_factory=dict, description=(
        "duplicate records a person merges (the merge family's), not the compiler's"))
    settle: dict[str, Any] = Field(default_factory=dict, description=(
        "a record settled by what other apps show, the customer told in another (the "
        "cross-settle family's), not the compiler's"))
    world: World | None = None
    claims: Claims | None = None

    @property
    def compiled(self) -> bool:
        """Whether this rules file describes a whole app (not only its tasks)."""
        return self.product is not None

    def columns(self, table: str) -> list[str] | None:
        """The columns of ``table`` as declared here (None: a table this file does not
        declare, a hand-written app's)."""
        if table in self.objects:
            return ["id", *self.objects[table].properties, "archived", "archived_at"]
        if table in self.tables:
            return ["id", *self.tables[table].columns]
        return None


@dataclass(frozen=True)
class Source:
    """A loaded, checked spec directory."""

    path: Path
    rules: Rules
    openapi: dict[str, Any] | None

    @classmethod
    def load(cls, path: Path | str) -> Source:
        """The spec directory at ``path``; a :class:`SourceError` naming the file and YAML
        path of the first thing wrong."""
        path = Path(path)
        rules = load_rules(path / RULES)
        openapi_file = path / OPENAPI
        openapi = _yaml(openapi_file) if openapi_file.is_file() else None
        if openapi is not None and not isinstance(openapi.get("paths"), dict):
            raise SourceError(f"{openapi_file}: paths: an OpenAPI document's paths mapping")
        return cls(path, rules, openapi)

    def operations(self) -> list[dict[str, Any]]:
        """The API description's operations in document order: each its ``method``,
        ``path`` and the operation object's fields."""
        found = []
        for route, item in (self.openapi or {}).get("paths", {}).items():
            for method, operation in item.items():
                if method in ("get", "post", "put", "patch", "delete"):
                    found.append({"method": method.upper(), "path": route, **operation})
        return found


def load_rules(file: Path) -> Rules:
    """``file`` as :class:`Rules`, checked within itself (tables, columns, states named
    where they are declared)."""
    raw = _yaml(file)
    try:
        rules = Rules.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise SourceError(f"{file.name}: {where}: {first['msg']}") from exc
    problems = list(_problems(rules))
    if problems:
        where, message = problems[0]
        raise SourceError(f"{file.name}: {where}: {message}")
    return rules


def _yaml(file: Path) -> dict[str, Any]:
    if not file.is_file():
        raise SourceError(f"{file}: no such file")
    try:
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise SourceError(f"{file.name}: not YAML ({exc})") from exc
    if not isinstance(raw, dict):
        raise SourceError(f"{file.name}: a mapping at the top")
    return raw


def _problems(rules: Rules) -> list[tuple[str, str]]:
    """(YAML path, what is wrong) of every cross-reference that names nothing."""
    out: list[tuple[str, str]] = []
    known = set(rules.objects) | set(rules.tables)
    has_tables = bool(known)
    if rules.compiled and rules.conventions is None:
        out.append(("conventions", "a compiled app's error shape and paging convention"))
    if rules.compiled and rules.world is None:
        out.append(("world", "a compiled app's world sizes"))

    def column(where: str, table: str, name: str) -> None:
        columns = rules.columns(table)
        if columns is not None and name not in columns:
            out.append((where, f"no column {name!r} in table {table}"))

    def table(where: str, name: str) -> bool:
        if has_tables and name not in known:
            out.append((where, f"no table {name!r}"))
            return False
        return True

    for name, obj in rules.objects.items():
        for prop, spec in obj.properties.items():
            if spec.references is not None:
                table(f"objects.{name}.properties.{prop}.references", spec.references)
            if spec.type == "enumeration" and not spec.options and spec.references is None:
                out.append((f"objects.{name}.properties.{prop}.options",
                            "an enumeration's options"))
        for i, prop in enumerate(obj.default_properties):
            if prop != OBJECT_ID_PROPERTY:
                column(f"objects.{name}.default_properties.{i}", name, prop)
        for i, prop in enumerate(obj.searchable):
            column(f"objects.{name}.searchable.{i}", name, prop)
        column(f"objects.{name}.modified_property", name, obj.modified_property)
    for name, plain in rules.tables.items():
        if name in rules.objects:
            out.append((f"tables.{name}", "already an object type"))
        for col, declared in plain.columns.items():
            if declared.references is not None:
                table(f"tables.{name}.columns.{col}.references", declared.references)
    for name in rules.pipelines:
        if name not in rules.objects:
            out.append((f"pipelines.{name}", f"no object type {name!r}"))
    for i, assoc in enumerate(rules.association_types):
        for end, value in (("from", assoc.from_), ("to", assoc.to)):
            if value not in rules.objects and has_tables:
                out.append((f"association_types.{i}.{end}", f"no object type {value!r}"))
    for name, machine in rules.state_machines.items():
        where = f"state_machines.{name}"
        if table(f"{where}.table", machine.table):
            column(f"{where}.column", machine.table, machine.column)
            if machine.scope is not None:
                column(f"{where}.scope", machine.table, machine.scope)
        states = set(machine.states)
        for source, targets in machine.transitions.items():
            if source != "*" and source not in states:
                out.append((f"{where}.transitions.{source}", f"no state {source!r}"))
            for j, target in enumerate(targets):
                if target != "*" and target not in states:
                    out.append((f"{where}.transitions.{source}.{j}", f"no state {target!r}"))
        for j, guard in enumerate(machine.guards):
            if guard.to not in states:
                out.append((f"{where}.guards.{j}.to", f"no state {guard.to!r}"))
            for prop in guard.require:
                column(f"{where}.guards.{j}.require.{prop}", machine.table, prop)
        for j, effect in enumerate(machine.effects):
            if effect.to not in states:
                out.append((f"{where}.effects.{j}.to", f"no state {effect.to!r}"))
            for prop in effect.set:
                column(f"{where}.effects.{j}.set.{prop}", machine.table, prop)
    for name, policy in rules.policies.items():
        if policy.table is not None:
            table(f"policies.{name}.table", policy.table)
        if rules.compiled and policy.rule is None:
            out.append((f"policies.{name}.rule", "a compiled app's policy states its rule"))
    for name, props in rules.lookups.items():
        if table(f"lookups.{name}", name):
            for i, prop in enumerate(props):
                column(f"lookups.{name}.{i}", name, prop)
    if rules.world is not None:
        for name, size in rules.world.sizes.items():
            table(f"world.sizes.{name}", name)
            most = IDENTITY_SHARE.get(name)
            if most is not None and size > most:
                out.append((f"world.sizes.{name}", f"at most {most}: the identity's share "
                            "every app's world draws from (replicas/runtime/identity.py)"))
        for i, mess in enumerate(rules.world.mess):
            table(f"world.mess.{i}.table", mess.table)
        for i, name in enumerate(rules.world.activity):
            if name not in rules.world.draws:
                out.append((f"world.activity.{i}", f"no drawn object type {name!r}"))
        for name, draws in rules.world.draws.items():
            if name not in rules.objects:
                out.append((f"world.draws.{name}", f"no object type {name!r}"))
                continue
            for prop, draw in draws.properties.items():
                where = f"world.draws.{name}.properties.{prop}"
                column(where, name, prop)
                if draw.material is not None and draw.material not in rules.world.material:
                    out.append((f"{where}.material", f"no material {draw.material!r}"))
                if draw.stage is not None and name in rules.pipelines:
                    stages = len(rules.pipelines[name][0].stages)
                    if len(draw.stage) != stages:
                        out.append((f"{where}.stage", f"one weight per stage ({stages})"))
    return out
