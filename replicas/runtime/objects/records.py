"""Records of an object type, read and written by property name: find one (by id or a unique
property), list a page, create, update, archive (HubSpot's soft delete: ``archived`` lists it)
and merge two. Every write stamps the type's modified property with the episode's time and
goes through ``runtime/db.py``; a refusal raises before anything is written."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from workgym_core.timestamps import iso

from .. import db as rows
from .. import machines
from . import associations
from .errors import HubSpotError, ObjectExists, ObjectNotFound
from .properties import columns
from .schema import Catalog, ObjectType

Row = dict[str, Any]


def find(db: sqlite3.Connection, kind: ObjectType, ref: str, *, id_property: str | None = None,
         archived: bool = False) -> Row:
    """The record ``ref`` names: its id, or the value of the unique ``id_property``
    (case-insensitive, as HubSpot matches emails); ObjectNotFound otherwise, or if it is
    archived and ``archived`` is false (or the reverse)."""
    if id_property in (None, "", "hs_object_id"):
        row = rows.one(db, f"SELECT * FROM {kind.name} WHERE id = ?",
                       (int(ref),)) if ref.isdigit() and len(ref) <= 18 else None
    else:
        prop = kind.properties.get(id_property)
        if prop is None or not prop.unique:
            raise HubSpotError(f"{id_property} is not a unique property of {kind.name}: "
                               "idProperty must be one", field="idProperty", rule="unique")
        row = rows.one(db, f"SELECT * FROM {kind.name} WHERE lower({id_property}) = lower(?)"
                           " ORDER BY archived, id LIMIT 1", (ref,))
    if row is None or bool(row["archived"]) != archived:
        raise ObjectNotFound(ref)
    return row


def page(db: sqlite3.Connection, kind: ObjectType, *, limit: int, start: int,
         archived: bool = False) -> tuple[list[Row], int | None]:
    """Up to ``limit`` records from id ``start`` on, by id, and the next page's first id."""
    found = rows.rows(db, f"SELECT * FROM {kind.name} WHERE id >= ? AND archived = ? "
                          "ORDER BY id LIMIT ?", (start, int(archived), limit + 1))
    return found[:limit], found[limit]["id"] if len(found) > limit else None


def create(db: sqlite3.Connection, catalog: Catalog, kind: ObjectType,
           properties: Mapping[str, Any], links: Sequence[Mapping[str, Any]] = (), *,
           now: datetime) -> Row:
    """A new record of ``properties``, associated as ``links`` ask
    (``[{to: {id}, types: [{associationCategory, associationTypeId}]}]``)."""
    values = machines.enter(kind.machines, {}, columns(db, kind, properties, current=None))
    _unique(db, kind, values, None)
    stamp = iso(now)
    record_id = rows.insert(db, kind.name, {
        **values, kind.created_property: stamp, kind.modified_property: stamp, "archived": 0})
    for link in links:
        associations.link_by_type_ids(db, catalog, kind.name, record_id, link)
    return rows.get_row(db, kind.name, record_id)


def update(db: sqlite3.Connection, kind: ObjectType, row: Row, properties: Mapping[str, Any],
           *, now: datetime) -> Row:
    """``row`` with ``properties`` set; the modified property moves only if a value changed."""
    values = machines.enter(kind.machines, row, columns(db, kind, properties, current=row))
    _unique(db, kind, values, row["id"])
    rows.update_changed(db, kind.name, row, values, touch={kind.modified_property: iso(now)})
    return rows.get_row(db, kind.name, row["id"])


def archive(db: sqlite3.Connection, kind: ObjectType, row: Row, *, now: datetime) -> None:
    """``row`` in the recycling bin (its associations stay, as HubSpot keeps them)."""
    if not row["archived"]:
        stamp = iso(now)
        rows.update(db, kind.name, row["id"], {"archived": 1, "archived_at": stamp,
                                               kind.modified_property: stamp})


def merge(db: sqlite3.Connection, kind: ObjectType, primary: Row, other: Row, *,
          now: datetime) -> Row:
    """``other`` merged into ``primary``: the primary keeps its values and takes the other's
    where it has none, takes over its associations; the other is archived."""
    if primary["id"] == other["id"]:
        raise HubSpotError("A record cannot be merged with itself", field="objectIdToMerge",
                           rule="distinct")
    taken = {name: other[name] for name, prop in kind.properties.items()
             if not prop.read_only and primary[name] in (None, "")
             and other[name] not in (None, "") and not prop.unique}
    rows.update_changed(db, kind.name, primary, taken, touch={kind.modified_property: iso(now)})
    associations.move(db, kind.name, other["id"], primary["id"])
    archive(db, kind, other, now=now)
    return rows.get_row(db, kind.name, primary["id"])


def _unique(db: sqlite3.Connection, kind: ObjectType, values: Mapping[str, Any],
            record_id: int | None) -> None:
    """409 for a unique property's value an unarchived other record has (case-insensitive)."""
    for name, value in values.items():
        if kind.properties[name].unique and isinstance(value, str):
            clash = rows.one(db, f"SELECT id FROM {kind.name} WHERE lower({name}) = lower(?) "
                                 "AND NOT archived AND id IS NOT ? ORDER BY id LIMIT 1",
                             (value, record_id))
            if clash is not None:
                raise ObjectExists(kind.singular, clash["id"])
