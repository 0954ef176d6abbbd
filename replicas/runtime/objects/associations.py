"""Associations between records (HubSpot's v4): one row per direction, with the association
type's id, category and label (``associations`` table: from_type, from_id, to_type, to_id,
type_id, category, label). Associating two records with a type also makes the other
direction's, and a labeled association carries the unlabeled default with it, as HubSpot's
does; removing an association between two records removes every type, both ways."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from .. import db as rows
from .errors import HubSpotError, ObjectNotFound
from .schema import AssociationType, Catalog

TABLE = "associations"
_PAIR = "from_type = ? AND from_id = ? AND to_type = ? AND to_id = ?"


def kind_of(catalog: Catalog, from_type: str, to_type: str | None,
            spec: Mapping[str, Any]) -> AssociationType:
    """The association type an ``AssociationSpec`` (associationCategory, associationTypeId)
    names from ``from_type`` (to ``to_type``, when the path says); 400 otherwise."""
    type_id, category = spec.get("associationTypeId"), spec.get("associationCategory")
    for kind in catalog.associations:
        if (kind.from_type, kind.type_id, kind.category) == (from_type, type_id, category) and (
                to_type in (None, kind.to_type)):
            return kind
    raise HubSpotError(f"{category} association type {type_id} does not exist from "
                       f"{from_type}{f' to {to_type}' if to_type else ''}",
                       field="associationTypeId", rule="association_type")


def target(db: sqlite3.Connection, object_type: str, object_id: str) -> int:
    """The id of the unarchived record ``object_id`` of ``object_type``; ObjectNotFound
    otherwise."""
    row = rows.one(db, f"SELECT id FROM {object_type} WHERE id = ? AND NOT archived",
                   (int(object_id),)) if object_id.isdigit() and len(object_id) <= 18 else None
    if row is None:
        raise ObjectNotFound(object_id)
    return int(row["id"])


def add(db: sqlite3.Connection, catalog: Catalog, kind: AssociationType, from_id: int,
        to_id: int) -> None:
    """``kind`` from ``from_id`` to ``to_id``, its other direction, and (for a labeled kind)
    the unlabeled default both ways."""
    made = [kind, catalog.inverse(kind)]
    if kind.label is not None:
        default = catalog.default(kind.from_type, kind.to_type)
        made += [default, default and catalog.inverse(default)]
    for one in made:
        if one is None:
            continue
        ends = (from_id, to_id) if one.from_type == kind.from_type else (to_id, from_id)
        if rows.one(db, f"SELECT id FROM {TABLE} WHERE {_PAIR} AND type_id = ?",
                    (one.from_type, ends[0], one.to_type, ends[1], one.type_id)) is None:
            rows.insert(db, TABLE, {"from_type": one.from_type, "from_id": ends[0],
                                    "to_type": one.to_type, "to_id": ends[1],
                                    "type_id": one.type_id, "category": one.category,
                                    "label": one.label})


def link_by_type_ids(db: sqlite3.Connection, catalog: Catalog, from_type: str, from_id: int,
                     link: Mapping[str, Any]) -> None:
    """A create's ``{to: {id}, types: [...]}``: each type associates the new record."""
    to = link.get("to") or {}
    for spec in link.get("types") or ():
        kind = kind_of(catalog, from_type, None, spec)
        add(db, catalog, kind, from_id, target(db, kind.to_type, str(to.get("id", ""))))


def between(db: sqlite3.Connection, from_type: str, from_id: int, to_type: str,
            to_id: int) -> list[dict[str, Any]]:
    """The association rows from one record to another, by type id."""
    return rows.rows(db, f"SELECT * FROM {TABLE} WHERE {_PAIR} ORDER BY type_id",
                     (from_type, from_id, to_type, to_id))


def labels(db: sqlite3.Connection, catalog: Catalog, from_type: str, from_id: int,
           to_type: str, to_id: int) -> dict[str, Any]:
    """LabelsBetweenObjectPair: the labels now between the two records (types by type id)."""
    found = between(db, from_type, from_id, to_type, to_id)
    return {"fromObjectTypeId": catalog.objects[from_type].object_type_id,
            "fromObjectId": str(from_id),
            "toObjectTypeId": catalog.objects[to_type].object_type_id, "toObjectId": str(to_id),
            "labels": [r["label"] for r in found if r["label"] is not None]}


def page(db: sqlite3.Connection, from_type: str, from_id: int, to_type: str, *, start: int,
         limit: int) -> tuple[list[dict[str, Any]], int | None]:
    """MultiAssociatedObjectWithLabel for the associated records with ids from ``start`` on
    (up to ``limit``), and the next page's first id."""
    found = rows.rows(db, f"SELECT * FROM {TABLE} WHERE from_type = ? AND from_id = ? AND "
                          "to_type = ? AND to_id >= ? ORDER BY to_id, type_id",
                      (from_type, from_id, to_type, start))
    grouped = [(to_id, list(group)) for to_id, group in groupby(found, key=lambda r: r["to_id"])]
    results = [{"toObjectId": str(to_id), "associationTypes": [
        {"category": r["category"], "typeId": r["type_id"], "label": r["label"]} for r in group]}
        for to_id, group in grouped[:limit]]
    return results, grouped[limit][0] if len(grouped) > limit else None


def remove(db: sqlite3.Connection, from_type: str, from_id: int, to_type: str,
           to_id: int) -> None:
    """Every association between the two records, both directions."""
    db.execute(f"DELETE FROM {TABLE} WHERE {_PAIR}", (from_type, from_id, to_type, to_id))
    db.execute(f"DELETE FROM {TABLE} WHERE {_PAIR}", (to_type, to_id, from_type, from_id))


def move(db: sqlite3.Connection, object_type: str, old_id: int, new_id: int) -> None:
    """Every association of ``old_id`` re-pointed at ``new_id`` (a merge), none twice."""
    for end, other in (("from", "to"), ("to", "from")):
        for row in rows.rows(db, f"SELECT * FROM {TABLE} WHERE {end}_type = ? AND {end}_id = ?",
                             (object_type, old_id)):
            taken = rows.one(db, f"SELECT id FROM {TABLE} WHERE {end}_type = ? AND {end}_id = ? "
                                 f"AND {other}_type = ? AND {other}_id = ? AND type_id = ?",
                             (object_type, new_id, row[f"{other}_type"], row[f"{other}_id"],
                              row["type_id"]))
            if taken is None and row[f"{other}_id"] != new_id:
                rows.update(db, TABLE, row["id"], {f"{end}_id": new_id})
            else:
                db.execute(f"DELETE FROM {TABLE} WHERE id = ?", (row["id"],))


def associated(db: sqlite3.Connection, catalog: Catalog, from_type: str, from_id: int,
               to_types: list[str]) -> dict[str, Any]:
    """A record's ``associations`` as a v3 read answers them: per type asked, the associated
    ids with each type's name (``contact_to_company``, ``..._unlabeled``)."""
    answer = {}
    for to_type in dict.fromkeys(t for entry in to_types for t in entry.split(",") if t):
        found = rows.rows(db, f"SELECT to_id, type_id FROM {TABLE} WHERE from_type = ? AND "
                              "from_id = ? AND to_type = ? ORDER BY to_id, type_id",
                          (from_type, from_id, to_type))
        if found:
            names = {k.type_id: type_name(catalog, k) for k in catalog.between(from_type, to_type)}
            answer[to_type] = {"results": [
                {"id": str(r["to_id"]), "type": names.get(r["type_id"], str(r["type_id"]))}
                for r in found]}
    return answer


def type_name(catalog: Catalog, kind: AssociationType) -> str:
    """A type's v3 name: ``deal_to_contact``; where the pair has a Primary type, that one is
    ``contact_to_company`` and the unlabeled one ``contact_to_company_unlabeled``."""
    singular = {name: o.singular for name, o in catalog.objects.items()}
    base = f"{singular[kind.from_type]}_to_{singular[kind.to_type]}"
    if kind.label is None:
        primary = any(k.label == "Primary" for k in catalog.between(kind.from_type, kind.to_type))
        return f"{base}_unlabeled" if primary else base
    return base if kind.label == "Primary" else kind.label.lower().replace(" ", "_")


def type_labels(catalog: Catalog, from_type: str, to_type: str) -> list[dict[str, Any]]:
    """AssociationSpecWithLabel of every type from ``from_type`` to ``to_type``."""
    return [{"category": k.category, "typeId": k.type_id, "label": k.label}
            for k in catalog.between(from_type, to_type)]


def create_labeled(db: sqlite3.Connection, catalog: Catalog, from_type: str, from_id: str,
                   to_type: str, to_id: str, specs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """PUT .../associations/{to}/{toId}: the two records associated with each type of
    ``specs``; LabelsBetweenObjectPair."""
    source, other = target(db, from_type, from_id), target(db, to_type, to_id)
    kinds = [kind_of(catalog, from_type, to_type, spec) for spec in specs]
    for kind in kinds:
        add(db, catalog, kind, source, other)
    return labels(db, catalog, from_type, source, to_type, other)


def create_default(db: sqlite3.Connection, catalog: Catalog, from_type: str, from_id: str,
                   to_type: str, to_id: str) -> list[dict[str, Any]]:
    """PUT .../associations/default/{to}/{toId}: the unlabeled association, both ways, as
    PublicDefaultAssociation each."""
    source, other = target(db, from_type, from_id), target(db, to_type, to_id)
    kind = catalog.default(from_type, to_type)
    if kind is None:
        raise HubSpotError(f"There is no default association from {from_type} to {to_type}",
                           field="toObjectType", rule="association_type")
    add(db, catalog, kind, source, other)
    made = [(kind, source, other)]
    if (inverse := catalog.inverse(kind)) is not None:
        made.append((inverse, other, source))
    return [{"from": {"id": str(a)}, "to": {"id": str(b)},
             "associationSpec": {"associationCategory": k.category, "associationTypeId": k.type_id}}
            for k, a, b in made]
