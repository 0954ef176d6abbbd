"""HubSpot's CRM operations over an object type, as a compiled app's routes call them: each
takes the episode's database (and time, for writes) and the request's values, and returns the
answer's body (and status where HubSpot's varies). The routes stay one line each."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from . import associations, batch, records, render, search
from .cursor import paging, position
from .schema import Catalog, ObjectType

Body = dict[str, Any]


def get_page(db: sqlite3.Connection, catalog: Catalog, kind: ObjectType, *, limit: int,
             after: str | None, properties: Sequence[str] | None,
             associated: Sequence[str] | None, archived: bool, link: str) -> Body:
    """CollectionResponseSimplePublicObjectWithAssociationsForwardPaging."""
    found, nxt = records.page(db, kind, limit=limit, start=position(after), archived=archived)
    shown = render.names(kind, properties)
    body: Body = {"results": [_with_associations(db, catalog, kind, row, shown, associated)
                              for row in found]}
    if (more := paging(nxt, link)) is not None:
        body["paging"] = more
    return body


def get_by_id(db: sqlite3.Connection, catalog: Catalog, kind: ObjectType, ref: str, *,
              properties: Sequence[str] | None, associated: Sequence[str] | None,
              archived: bool, id_property: str | None) -> Body:
    """SimplePublicObjectWithAssociations."""
    row = records.find(db, kind, ref, id_property=id_property, archived=archived)
    return _with_associations(db, catalog, kind, row, render.names(kind, properties), associated)


def create(db: sqlite3.Connection, catalog: Catalog, kind: ObjectType, body: Mapping[str, Any],
           *, now: datetime) -> Body:
    """SimplePublicObject (201)."""
    row = records.create(db, catalog, kind, body.get("properties") or {},
                         body.get("associations") or (), now=now)
    return render.record(kind, row, render.names(kind, None))


def update(db: sqlite3.Connection, kind: ObjectType, ref: str, body: Mapping[str, Any], *,
           id_property: str | None, now: datetime) -> Body:
    """SimplePublicObject: the record with the properties set."""
    row = records.find(db, kind, ref, id_property=id_property)
    row = records.update(db, kind, row, body.get("properties") or {}, now=now)
    return render.record(kind, row, render.names(kind, None))


def archive(db: sqlite3.Connection, kind: ObjectType, ref: str, *, now: datetime) -> None:
    """204: the record archived."""
    records.archive(db, kind, records.find(db, kind, ref), now=now)


def batch_read(db: sqlite3.Connection, kind: ObjectType, body: Mapping[str, Any], *,
               archived: bool, now: datetime) -> tuple[int, Body]:
    return batch.read(db, kind, [str(i.get("id", "")) for i in body.get("inputs") or []],
                      properties=body.get("properties"), id_property=body.get("idProperty"),
                      archived=archived, now=now)


def batch_create(db: sqlite3.Connection, catalog: Catalog, kind: ObjectType,
                 body: Mapping[str, Any], *, now: datetime) -> Body:
    """BatchResponseSimplePublicObject (201): every input created, or none."""
    return batch.create(db, catalog, kind, body.get("inputs") or [], now=now)


def batch_update(db: sqlite3.Connection, kind: ObjectType, body: Mapping[str, Any], *,
                 now: datetime) -> tuple[int, Body]:
    return batch.update(db, kind, body.get("inputs") or [], now=now)


def batch_archive(db: sqlite3.Connection, kind: ObjectType, body: Mapping[str, Any], *,
                  now: datetime) -> None:
    batch.archive(db, kind, [str(i.get("id", "")) for i in body.get("inputs") or []], now=now)


def do_search(db: sqlite3.Connection, kind: ObjectType, body: Mapping[str, Any]) -> Body:
    """CollectionResponseWithTotalSimplePublicObjectForwardPaging."""
    after = body.get("after")
    total, found, nxt = search.run(db, kind, body,
                                   start=position(None if after is None else str(after)))
    shown = render.names(kind, body.get("properties"))
    answer: Body = {"total": total, "results": [render.record(kind, row, shown) for row in found]}
    if (more := paging(nxt)) is not None:
        answer["paging"] = more
    return answer


def merge(db: sqlite3.Connection, kind: ObjectType, body: Mapping[str, Any], *,
          now: datetime) -> Body:
    """SimplePublicObject: ``objectIdToMerge`` merged into ``primaryObjectId``."""
    primary = records.find(db, kind, str(body.get("primaryObjectId", "")))
    other = records.find(db, kind, str(body.get("objectIdToMerge", "")))
    row = records.merge(db, kind, primary, other, now=now)
    return render.record(kind, row, render.names(kind, None))


def _with_associations(db: sqlite3.Connection, catalog: Catalog, kind: ObjectType,
                       row: Mapping[str, Any], shown: Sequence[str],
                       associated: Sequence[str] | None) -> Body:
    answer = render.record(kind, row, shown)
    if associated and (found := associations.associated(db, catalog, kind.name, row["id"],
                                                        list(associated))):
        answer["associations"] = found
    return answer


def association_page(db: sqlite3.Connection, catalog: Catalog, object_type: str,
                     object_id: str, to_type: str, *, after: str | None, limit: int,
                     link: str) -> Body:
    """CollectionResponseMultiAssociatedObjectWithLabelForwardPaging."""
    kind, other = catalog.object(object_type), catalog.object(to_type)
    record = associations.target(db, kind.name, object_id)
    found, nxt = associations.page(db, kind.name, record, other.name, start=position(after),
                                   limit=limit)
    body: Body = {"results": found}
    if (more := paging(nxt, link)) is not None:
        body["paging"] = more
    return body


def associate(db: sqlite3.Connection, catalog: Catalog, object_type: str, object_id: str,
              to_type: str, to_id: str, specs: Sequence[Mapping[str, Any]]) -> Body:
    """LabelsBetweenObjectPair (201)."""
    return associations.create_labeled(db, catalog, catalog.object(object_type).name,
                                       object_id, catalog.object(to_type).name, to_id, specs)


def associate_default(db: sqlite3.Connection, catalog: Catalog, from_type: str, from_id: str,
                      to_type: str, to_id: str, *, now: datetime) -> Body:
    """BatchResponsePublicDefaultAssociation."""
    made = associations.create_default(db, catalog, catalog.object(from_type).name, from_id,
                                       catalog.object(to_type).name, to_id)
    return batch.complete(made, now=now)


def dissociate(db: sqlite3.Connection, catalog: Catalog, object_type: str, object_id: str,
               to_type: str, to_id: str) -> None:
    """204: every association between the two records removed."""
    kind, other = catalog.object(object_type), catalog.object(to_type)
    associations.remove(db, kind.name, associations.target(db, kind.name, object_id),
                        other.name, associations.target(db, other.name, to_id))


def association_labels(catalog: Catalog, from_type: str, to_type: str) -> Body:
    """CollectionResponseAssociationSpecWithLabelNoPaging."""
    return {"results": associations.type_labels(catalog, catalog.object(from_type).name,
                                                catalog.object(to_type).name)}
