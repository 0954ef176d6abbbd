"""Custom ticket fields: Zendesk's ``custom_fields [{id, value}]`` <-> the tickets columns
that hold them (order number, product, contact reason: world.yaml ``ticket_fields``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..world import custom_fields
from .common import invalid


def custom_columns() -> dict[str, int]:
    """tickets column -> its field's id."""
    return {column: fid for fid, column, *_ in custom_fields()}


def custom_values(row: Mapping[str, Any]) -> list[str]:
    """The custom field columns of a ticket row that hold a value."""
    return [column for _, column, *_ in custom_fields() if row.get(column) is not None]


def columns_of(given: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``[{id, value}]`` -> ``{column: value}``; RecordInvalid for an unknown field id or a
    value a drop-down does not offer."""
    fields = {fid: (column, title, options) for fid, column, title, options in custom_fields()}
    out: dict[str, Any] = {}
    for item in given:
        if item["id"] not in fields:
            raise invalid("custom_fields", f"no ticket field has id {item['id']}",
                          "ticket_field_not_found")
        column, title, options = fields[item["id"]]
        value = item.get("value")
        value = None if value in ("", None) else str(value)
        if options and value is not None and value not in options:
            raise invalid("custom_fields", f"{value!r} is not an option of {title} "
                          f"({', '.join(options)})", "invalid_option")
        out[column] = value
    return out
