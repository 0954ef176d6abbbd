"""Customer rules: contact updates (the accounts they sign in with are the checkout's)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.db import get_row


def update_customer(
    db: sqlite3.Connection, *, customer_id: int, changes: Mapping[str, Any], now: datetime
) -> dict[str, Any]:
    customer = get_row(db, "customers", customer_id)
    if changes.get("organization_id") is not None:
        get_row(db, "organizations", changes["organization_id"], field="organization_id")
    sql.update_changed(db, "customers", customer, changes, touch={"updated_at": iso(now)})
    return get_row(db, "customers", customer_id)
