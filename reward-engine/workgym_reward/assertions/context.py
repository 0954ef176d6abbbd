"""The context assertions are evaluated in, and the queries they run on the two states."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from workgym_core.trajectory import TrajectoryStep

from ..diff import SCHEMAS, Diff, Row, Side, States, TableDiff
from ..errors import ConfigError
from ..filters import Filter, check_columns, compile_filter
from ..schema import ident

if TYPE_CHECKING:
    from ..truth import Case


@dataclass(frozen=True, slots=True)
class Context:
    """What assertions look at: one app's two states (attached) and their diff, the
    episode's trajectory and answer, and (``world``) every app's context by name, this one
    included (for checks across apps, e.g. collateral damage)."""

    states: States
    diff: Diff
    trajectory: Sequence[TrajectoryStep]
    answer: str | None
    app: str = ""
    world: Mapping[str, Context] = field(default_factory=dict)
    case: Case | None = None  # what the agent said is judged against (workgym_reward.truth)

    def check_columns(self, side: Side, table: str, names: Iterable[str]) -> tuple[str, ...]:
        """The columns of ``table`` in the ``side`` state, after checking it has ``names``."""
        tables = self.states.tables[side]
        if table not in tables:
            raise ConfigError(
                f"unknown table {table!r} in the {side} state (tables: {', '.join(tables)})"
            )
        check_columns(table, tables[table], names)
        return tables[table]

    def changes(self, table: str) -> TableDiff:
        """The diff of ``table``, empty when it did not change."""
        return self.diff.get(table) or TableDiff({}, {}, {})

    def count(self, side: Side, table: str, where: Filter) -> int:
        (found,) = self._select("count(*)", side, table, where).fetchone()
        return int(found)

    def ids(
        self, side: Side, table: str, where: Filter, among: Collection[int] | None = None
    ) -> list[int]:
        """Sorted ids of the rows ``where`` selects, only ``among`` these ids when given."""
        return sorted(row_id for (row_id,) in self._select("id", side, table, where, among))

    def total(self, side: Side, table: str, column: str, where: Filter) -> float:
        """The sum of ``column`` over the rows ``where`` selects in the ``side`` state."""
        self.check_columns(side, table, [column])
        (found,) = self._select(f"coalesce(sum({ident(column)}), 0)", side, table,
                                where).fetchone()
        return float(found)

    def added_texts(self, table: str, column: str, where: Filter) -> list[str]:
        """``column`` of the rows added to ``table`` during the episode that ``where``
        selects (in the final state), in id order: what the agent wrote."""
        self.check_columns("final", table, [column])
        return [str(row[column]) for row in self.added_rows(table, where)
                if row[column] is not None]

    def added_rows(self, table: str, where: Filter) -> list[Row]:
        """The rows added to ``table`` during the episode that ``where`` selects (in the
        final state), in id order."""
        added = self.changes(table).added.keys()
        return [row for row_id in self.ids("final", table, where, among=added)
                if (row := self.row("final", table, row_id)) is not None]

    def written_rows(self, table: str, where: Filter, column: str) -> list[Row]:
        """The rows of ``table`` that ``where`` selects (in the final state) whose ``column``
        was written during the episode: added, or changed in that column (an edited
        comment), in id order."""
        diff = self.changes(table)
        written = {*diff.added, *(i for i, c in diff.changed.items() if column in c.fields)}
        return [row for row_id in self.ids("final", table, where, among=written)
                if (row := self.row("final", table, row_id)) is not None]

    def row(self, side: Side, table: str, row_id: int) -> Row | None:
        cursor = self._select("*", side, table, {"id": row_id})
        values = cursor.fetchone()
        if values is None:
            return None
        return dict(zip((column[0] for column in cursor.description), values, strict=True))

    def _select(
        self,
        what: str,
        side: Side,
        table: str,
        where: Filter,
        among: Collection[int] | None = None,
    ) -> sqlite3.Cursor:
        columns = self.check_columns(side, table, ())
        condition, params = compile_filter(where, table=table, columns=columns)
        if among is not None:
            condition += " AND id IN (SELECT value FROM json_each(?))"
            params.append(orjson.dumps(list(among)).decode())
        sql = f"SELECT {what} FROM {SCHEMAS[side]}.{ident(table)} WHERE {condition}"
        return self.states.conn.execute(sql, params)
