"""The CRM's owners (HubSpot's owners API): the ``owners`` table (id, email, first_name,
last_name, user_id, archived, created_at, updated_at) as PublicOwner, paged by id."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from .. import db as rows
from .cursor import paging, position
from .errors import ObjectNotFound
from .values import instant


def owner(row: Mapping[str, Any]) -> dict[str, Any]:
    """A PublicOwner (a person, on no team)."""
    return {"id": str(row["id"]), "email": row["email"], "firstName": row["first_name"],
            "lastName": row["last_name"], "userId": row["user_id"],
            "userIdIncludingInactive": row["user_id"], "type": "PERSON", "teams": [],
            "createdAt": instant(row["created_at"]),
            "updatedAt": instant(row["updated_at"]), "archived": bool(row["archived"])}


def get_page(db: sqlite3.Connection, *, email: str | None, after: str | None, limit: int,
             archived: bool, link: str) -> dict[str, Any]:
    """CollectionResponsePublicOwnerForwardPaging: up to ``limit`` owners from the cursor on
    (only ``email``'s, if given)."""
    clause = "id >= ? AND archived = ?"
    params: list[Any] = [position(after), int(archived)]
    if email is not None:
        clause += " AND lower(email) = lower(?)"
        params.append(email)
    found = rows.rows(db, f"SELECT * FROM owners WHERE {clause} ORDER BY id LIMIT ?",
                      (*params, limit + 1))
    body: dict[str, Any] = {"results": [owner(r) for r in found[:limit]]}
    if (more := paging(found[limit]["id"] if len(found) > limit else None, link)) is not None:
        body["paging"] = more
    return body


def find(db: sqlite3.Connection, ref: int, *, by_user_id: bool, archived: bool) -> dict[str, Any]:
    """The owner with id (or user id) ``ref``; ObjectNotFound otherwise."""
    column = "user_id" if by_user_id else "id"
    row = rows.one(db, f"SELECT * FROM owners WHERE {column} = ? AND archived = ?",
                   (ref, int(archived)))
    if row is None:
        raise ObjectNotFound(str(ref), f"Owner {ref} not found")
    return owner(row)
