"""Writing a generated world: the tables in the models' foreign-key order, whatever order the
generator built them in; rows for a table the models do not have are refused."""

from __future__ import annotations

import pytest
from sqlalchemy import Column, ForeignKey, Integer, MetaData, Table

from replicas.runtime.db import connect_memory
from replicas.runtime.world import write_world

META = MetaData()
Table("orders", META, Column("id", Integer, primary_key=True),
      Column("customer_id", Integer, ForeignKey("customers.id"), nullable=False))
Table("customers", META, Column("id", Integer, primary_key=True))


def test_tables_are_written_in_foreign_key_order() -> None:
    conn = connect_memory()  # foreign keys enforced: an order before its customer fails
    write_world(conn, META, {"orders": [{"id": 1, "customer_id": 7}],
                             "customers": [{"id": 7}]})
    assert conn.execute("SELECT customer_id FROM orders").fetchall() == [{"customer_id": 7}]


def test_rows_for_a_table_the_models_lack_are_refused() -> None:
    conn = connect_memory()
    with pytest.raises(ValueError, match=r"\['refunds'\], tables the models do not have"):
        write_world(conn, META, {"customers": [{"id": 1}], "refunds": [{"id": 1}]})
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == []  # nothing written
