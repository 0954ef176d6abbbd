"""A write's property bag checked against its object type: every property named must exist
and be writable, every value fit its type, options and references; all refusals at once, in
HubSpot's 400 (nothing written). An empty string (or null) clears a property."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from .. import db as rows
from .errors import PropertyValuesInvalid
from .schema import OBJECT_ID, ObjectType, Property
from .values import BadValue, stored, text

PIPELINES, STAGES, OWNERS = "pipelines", "pipeline_stages", "owners"


def columns(db: sqlite3.Connection, kind: ObjectType, given: Mapping[str, Any], *,
            current: Mapping[str, Any] | None) -> dict[str, Any]:
    """``given`` (a create's or an update's ``properties``) as column values of ``kind``'s
    table; ``current`` is the record updated (None: created). A record created in a type with
    pipelines and no pipeline named goes in the type's first."""
    problems: list[tuple[str, str, str]] = []
    values: dict[str, Any] = {}
    for name, raw in given.items():
        prop = kind.properties.get(name)
        if prop is None and name != OBJECT_ID:
            problems.append((name, "PROPERTY_DOESNT_EXIST", f'Property "{name}" does not exist'))
        elif prop is None or prop.read_only:
            problems.append((name, "READ_ONLY_VALUE",
                             f'"{name}" is a read-only property; its value cannot be set'))
        elif raw is None or raw == "":
            values[name] = None
        else:
            try:
                values[name] = stored(prop, text(raw))
            except BadValue as bad:
                problems.append((name, bad.code, bad.message))
    if current is None:
        _default_pipeline(db, kind, values)
        problems += [(p.name, "REQUIRED_PROPERTY", f'Property "{p.name}" is required')
                     for p in kind.properties.values()
                     if p.required_on_create and values.get(p.name) is None]
    problems += _references(db, kind, values, current)
    if problems:
        raise PropertyValuesInvalid(sorted(set(problems), key=problems.index))
    return values


def _default_pipeline(db: sqlite3.Connection, kind: ObjectType, values: dict[str, Any]) -> None:
    pipeline = kind.referring(PIPELINES)
    if pipeline is not None and values.get(pipeline.name) is None and not (
            pipeline.required_on_create):
        first = rows.one(db, f"SELECT id FROM {PIPELINES} WHERE object_type = ? AND NOT archived"
                             " ORDER BY display_order, id LIMIT 1", (kind.name,))
        if first is not None:
            values[pipeline.name] = first["id"]


def _references(db: sqlite3.Connection, kind: ObjectType, values: Mapping[str, Any],
                current: Mapping[str, Any] | None) -> list[tuple[str, str, str]]:
    """Values that name no row of the table their property references: an owner that does
    not exist, a pipeline of another type, a stage outside the record's pipeline."""
    problems = []
    pipeline_prop = kind.referring(PIPELINES)
    for name, value in values.items():
        prop = kind.properties[name]
        if prop.references is None or value is None:
            continue
        if prop.references == STAGES and pipeline_prop is not None:
            pipeline = values.get(pipeline_prop.name, (current or {}).get(pipeline_prop.name))
            found = rows.one(db, f"SELECT id FROM {STAGES} WHERE id = ? AND pipeline_id = ?",
                             (value, pipeline))
            where = f"pipeline {pipeline}"
        elif prop.references == PIPELINES:
            found = rows.one(db, f"SELECT id FROM {PIPELINES} WHERE id = ? AND object_type = ?",
                             (value, kind.name))
            where = f"the {kind.singular} pipelines"
        else:
            found = rows.one(db, f"SELECT id FROM {prop.references} WHERE id = ?", (value,))
            where = prop.references
        if found is None:
            problems.append(_missing(prop, value, where))
    if pipeline_prop is not None and current is not None and pipeline_prop.name in values:
        problems += _stage_outside(db, kind, values, current)
    return problems


def _stage_outside(db: sqlite3.Connection, kind: ObjectType, values: Mapping[str, Any],
                   current: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """A record moved to another pipeline keeping a stage of the old one."""
    stage = kind.referring(STAGES)
    pipeline = kind.referring(PIPELINES)
    if stage is None or pipeline is None or stage.name in values:
        return []
    value = current.get(stage.name)
    inside = rows.one(db, f"SELECT id FROM {STAGES} WHERE id = ? AND pipeline_id = ?",
                      (value, values[pipeline.name]))
    return [] if inside or value is None else [
        _missing(stage, value, f"pipeline {values[pipeline.name]}")]


def _missing(prop: Property, value: Any, where: str) -> tuple[str, str, str]:
    if prop.references == OWNERS:
        return (prop.name, "INVALID_OWNER_ID", f"No owner with id {value}")
    return (prop.name, "INVALID_OPTION", f'"{value}" was not one of the allowed options of '
                                         f"{where}")
