"""Pipelines and their stages (HubSpot's deal and ticket pipelines): the ``pipelines`` table
(string id, object_type, label, display_order, archived, created_at, updated_at) and
``pipeline_stages`` (string id, pipeline_id, label, display_order, stage_metadata as JSON, archived,
created_at, updated_at), answered in display order."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from .. import db as rows
from .errors import ObjectNotFound
from .values import instant


def _times(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"createdAt": instant(row["created_at"]),
            "updatedAt": instant(row["updated_at"]), "archived": bool(row["archived"])}


def stage(row: Mapping[str, Any]) -> dict[str, Any]:
    """A PipelineStage."""
    metadata = row["stage_metadata"]
    return {"id": str(row["id"]), "label": row["label"], "displayOrder": row["display_order"],
            "metadata": json.loads(metadata) if isinstance(metadata, str) else metadata or {},
            "writePermissions": "CRM_PERMISSIONS_ENFORCEMENT", **_times(row)}


def stages(db: sqlite3.Connection, pipeline_id: str) -> list[dict[str, Any]]:
    return [stage(r) for r in rows.rows(
        db, "SELECT * FROM pipeline_stages WHERE pipeline_id = ? AND NOT archived "
            "ORDER BY display_order, id", (pipeline_id,))]


def pipeline(db: sqlite3.Connection, row: Mapping[str, Any]) -> dict[str, Any]:
    """A Pipeline with its stages."""
    return {"id": str(row["id"]), "label": row["label"], "displayOrder": row["display_order"],
            "stages": stages(db, row["id"]), **_times(row)}


def all_of(db: sqlite3.Connection, object_type: str) -> list[dict[str, Any]]:
    """The unarchived pipelines of ``object_type``, in display order."""
    return [pipeline(db, r) for r in rows.rows(
        db, "SELECT * FROM pipelines WHERE object_type = ? AND NOT archived "
            "ORDER BY display_order, id", (object_type,))]


def find(db: sqlite3.Connection, object_type: str, pipeline_id: str) -> dict[str, Any]:
    """The pipeline ``pipeline_id`` of ``object_type``; ObjectNotFound otherwise."""
    row = rows.one(db, "SELECT * FROM pipelines WHERE id = ? AND object_type = ? "
                       "AND NOT archived", (pipeline_id, object_type))
    if row is None:
        raise ObjectNotFound(pipeline_id, f"Unable to find pipeline {pipeline_id} for "
                                          f"{object_type}")
    return row
