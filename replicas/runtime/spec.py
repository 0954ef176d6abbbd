"""The contract between a replica app and the shared replica runtime."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the catalogue imports this module in processes that serve no replica
    from fastapi import APIRouter

    from .episode import Episode


@dataclass(frozen=True)
class ReplicaSpec:
    """Everything the runtime needs to know about one app."""

    name: str
    title: str
    description: str
    data_version: str
    router: APIRouter
    # Creates the schema and writes the seeded world into an empty database.
    seed: Callable[[sqlite3.Connection, int, datetime], None]
    # Called after every successful write request; lets an app react as the
    # world would (e.g. the scripted customer answering a public reply).
    after_write: Callable[[Episode], None] | None = None
    openapi_tags: list[dict[str, str]] = field(default_factory=list)
