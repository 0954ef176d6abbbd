"""Rows as HubSpot answers them: a record as a SimplePublicObject (its id and every property
value as strings, createdAt/updatedAt, archived), only the properties asked for."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .schema import OBJECT_ID, ObjectType
from .values import wire


def names(kind: ObjectType, asked: Iterable[str] | None) -> list[str]:
    """The properties a read answers: those asked for that exist (HubSpot ignores the others;
    a query's ``properties`` may list several comma-separated), else the type's defaults."""
    wanted = [name for entry in asked or () for name in entry.split(",") if name]
    known = [n for n in dict.fromkeys(wanted) if n in kind.properties or n == OBJECT_ID]
    return known if wanted else list(kind.default_properties)


def record(kind: ObjectType, row: Mapping[str, Any], shown: Iterable[str]) -> dict[str, Any]:
    """``row`` as a SimplePublicObject with the properties ``shown``."""
    properties = {name: str(row["id"]) if name == OBJECT_ID
                  else wire(kind.properties[name], row[name]) for name in shown}
    created = kind.properties[kind.created_property]
    modified = kind.properties[kind.modified_property]
    answer: dict[str, Any] = {
        "id": str(row["id"]), "properties": properties,
        "createdAt": wire(created, row[created.name]),
        "updatedAt": wire(modified, row[modified.name]),
        "archived": bool(row["archived"])}
    if row["archived"]:
        answer["archivedAt"] = wire(modified, row["archived_at"])
    return answer
