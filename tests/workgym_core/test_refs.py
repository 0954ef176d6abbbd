from __future__ import annotations

from typing import Any

import pytest

from workgym_core.refs import BadReference, resolve

VARS: dict[str, dict[str, Any]] = {
    "ticket": {"id": 512, "status": "open"},
    "charge": {"id": 41, "amount_cents": 2500},
}


def test_references_resolve_recursively() -> None:
    config = {
        "where": {"id": "$ticket.id", "status": {"in": ["$ticket.status", "pending"]}},
        "count": 1,
        "note": "plain",
    }

    assert resolve(config, VARS) == {
        "where": {"id": 512, "status": {"in": ["open", "pending"]}},
        "count": 1,
        "note": "plain",
    }


def test_a_double_dollar_is_a_literal_dollar() -> None:
    assert resolve(["$$5 off", "$$ticket.id"], VARS) == ["$5 off", "$ticket.id"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("$order.id", r"unknown reference '\$order.id': no variable 'order' \(vars: charge"),
        ("$ticket.priority", r"'\$ticket.priority': 'ticket' has no field 'priority' \(id, status"),
        ("$ticket", r"malformed reference '\$ticket': write \$name.field, or \$\$"),
        ("$5 off", r"malformed reference '\$5 off'"),
    ],
)
def test_bad_references_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(BadReference, match=message):
        resolve({"where": {"id": text}}, VARS)
