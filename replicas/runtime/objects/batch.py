"""HubSpot's batch endpoints over one object type: at most 100 inputs. A read or update of ids
that do not exist answers the others and names those in ``errors`` (207 multi-status); a
property refused in any input refuses the whole batch (400/409, nothing written), as a single
write would; an archive of ids that do not exist archives the others."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from workgym_core.timestamps import iso

from . import records, render
from .errors import HubSpotError, ObjectNotFound
from .schema import Catalog, ObjectType
from .values import instant

MAX_INPUTS = 100
Row = dict[str, Any]


def complete(results: list[dict[str, Any]], *, now: datetime) -> dict[str, Any]:
    """A batch's answer, done at ``now``."""
    stamp = instant(iso(now))
    return {"status": "COMPLETE", "results": results, "startedAt": stamp, "completedAt": stamp}


def response(results: list[dict[str, Any]], missing: Sequence[str], kind: ObjectType, *,
             now: datetime, verb: str) -> tuple[int, dict[str, Any]]:
    """(the status, BatchResponseSimplePublicObject[WithErrors]): 207 when ids were missing."""
    body = complete(results, now=now)
    if not missing:
        return 200, body
    body["numErrors"] = 1
    body["errors"] = [{
        "status": "error", "category": "OBJECT_NOT_FOUND",
        "message": f"Could not {verb} some {kind.singular.upper()} objects, they may be deleted "
                   "or not exist. Check that ids are valid.",
        "context": {"ids": list(missing)}, "errors": [], "links": {}}]
    return 207, body


def inputs(given: Sequence[Any]) -> Sequence[Any]:
    """``inputs`` checked against HubSpot's limit."""
    if len(given) > MAX_INPUTS:
        raise HubSpotError(f"Too many inputs: {len(given)}; a batch takes at most {MAX_INPUTS}",
                           field="inputs", rule="max_items")
    return given


def _each(ids: Sequence[str], find: Callable[[str], Row]) -> tuple[list[Row], list[str]]:
    """The records ``ids`` name (once each, in order) and the ids naming none."""
    found, missing = [], []
    for ref in dict.fromkeys(ids):
        try:
            found.append(find(ref))
        except ObjectNotFound:
            missing.append(ref)
    return found, missing


def read(db: sqlite3.Connection, kind: ObjectType, ids: Sequence[str], *,
         properties: Sequence[str] | None, id_property: str | None, archived: bool,
         now: datetime) -> tuple[int, dict[str, Any]]:
    found, missing = _each(inputs(ids), lambda ref: records.find(
        db, kind, ref, id_property=id_property, archived=archived))
    shown = render.names(kind, properties)
    return response([render.record(kind, row, shown) for row in found], missing, kind,
                    now=now, verb="get")


def create(db: sqlite3.Connection, catalog: Catalog, kind: ObjectType,
           given: Sequence[Mapping[str, Any]], *, now: datetime) -> dict[str, Any]:
    made = [records.create(db, catalog, kind, one.get("properties") or {},
                           one.get("associations") or (), now=now) for one in inputs(given)]
    shown = render.names(kind, None)
    return complete([render.record(kind, row, shown) for row in made], now=now)


def update(db: sqlite3.Connection, kind: ObjectType, given: Sequence[Mapping[str, Any]], *,
           now: datetime) -> tuple[int, dict[str, Any]]:
    refs = [str(one.get("id", "")) for one in inputs(given)]
    if len(set(refs)) != len(refs):
        raise HubSpotError("Duplicate IDs found in batch input: each record at most once",
                           field="inputs.id", rule="unique")
    done, missing = [], []
    for one, ref in zip(given, refs, strict=True):
        try:
            row = records.find(db, kind, ref, id_property=one.get("idProperty"))
        except ObjectNotFound:
            missing.append(ref)
            continue
        done.append(records.update(db, kind, row, one.get("properties") or {}, now=now))
    shown = render.names(kind, None)
    return response([render.record(kind, row, shown) for row in done], missing, kind,
                    now=now, verb="update")


def archive(db: sqlite3.Connection, kind: ObjectType, ids: Sequence[str], *,
            now: datetime) -> None:
    found, _ = _each(inputs(ids), lambda ref: records.find(db, kind, ref))
    for row in found:
        records.archive(db, kind, row, now=now)
