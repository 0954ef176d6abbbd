"""The Zendesk-like helpdesk replica: tickets, customers, orders, refunds, help center.

Exports :data:`SPEC`; see README.md for entities, rules, API and the data's mess.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from replicas.runtime.spec import ReplicaSpec

from . import customer
from .routes import TAGS, router


def _seed(conn: sqlite3.Connection, seed: int, now: datetime) -> None:
    # Imported on use: the schema's SQLModel/SQLAlchemy (~0.4 s) is needed only to build a
    # snapshot, never by a replica serving pre-built ones.
    from .seed import seed as generate

    generate(conn, seed, now)


SPEC = ReplicaSpec(
    name="helpdesk",
    title="Helpdesk",
    description=(
        "A Zendesk-like support desk: tickets and their conversations, customers and their "
        "accounts, orders, charges, refunds with manager approvals, and a help center that "
        "states the policies. You act as agent 1, 'AI Agent'. Money amounts are integers in "
        "the currency's minor unit (JPY has none). Errors are JSON "
        '{"error": {code, message, field, rule}}.'
    ),
    data_version="2",  # 2: no verification codes stored in the world
    router=router,
    seed=_seed,
    after_write=customer.after_write,
    openapi_tags=TAGS,
)

__all__ = ["SPEC"]
