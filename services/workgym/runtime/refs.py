"""References to bound rows inside task data: ``"$ticket.id"`` -> vars["ticket"]["id"].

Used by task setup (replicas) and verifiers (reward engine). ``"$$x"`` is the
literal string ``"$x"``. Resolution recurses through dicts and lists.
"""

from __future__ import annotations

from typing import Any


class UnknownReference(KeyError):
    """A ``$name.field`` that names no bound row or no field of it."""

    def __str__(self) -> str:
        return str(self.args[0])


def resolve(value: Any, bound: dict[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("$"):
        if value.startswith("$$"):
            return value[1:]
        name, _, field = value[1:].partition(".")
        if name not in bound:
            raise UnknownReference(f"reference {value!r}: no bound row named {name!r}")
        row = bound[name]
        if not field:
            return row
        if field not in row:
            raise UnknownReference(f"reference {value!r}: row {name!r} has no field {field!r}")
        return row[field]
    if isinstance(value, dict):
        return {k: resolve(v, bound) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, bound) for v in value]
    return value
