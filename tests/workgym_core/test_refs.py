from __future__ import annotations

from typing import Any

import pytest

from workgym_core.refs import BadReference, resolve

VARS: dict[str, dict[str, Any]] = {
    "ticket": {"id": 512, "status": "open"},
    "charge": {"id": 41, "amount_cents": 2500},
}
# Rows other apps of the episode bound before this one, by app.
OTHERS: dict[str, dict[str, dict[str, Any]]] = {
    "checkout": {"order": {"id": 7, "number": "A-10423"}},
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


def test_three_parts_name_another_apps_row_and_two_this_apps() -> None:
    others = {**OTHERS, "ticket": {"id": {"x": "an app named like a row"}}}
    assert resolve({"order": "$checkout.order.number", "ticket": "$ticket.id"}, VARS,
                   others) == {"order": "A-10423", "ticket": 512}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("$order.id", r"unknown reference '\$order.id': no variable 'order' \(vars: charge"),
        ("$ticket.priority", r"'\$ticket.priority': 'ticket' has no field 'priority' \(id, status"),
        ("$ticket", r"malformed reference '\$ticket': write \$name.field .*\$app.name.field"),
        ("$5 off", r"malformed reference '\$5 off'"),
        ("$a.b.c.d", r"malformed reference '\$a.b.c.d'"),
        ("$tracker.bug.id", r"'\$tracker.bug.id': no app 'tracker' bound rows before this one "
                            r"\(apps: checkout\)"),
        ("$checkout.cart.id", r"no variable 'cart' of app 'checkout' \(vars: order\)"),
        ("$checkout.order.total", r"'order' of app 'checkout' has no field 'total' \(id, number"),
    ],
)
def test_bad_references_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(BadReference, match=message):
        resolve({"where": {"id": text}}, VARS, OTHERS)


def test_without_others_a_cross_app_reference_names_no_app() -> None:
    with pytest.raises(BadReference, match=r"no app 'checkout' .* \(apps: none\)"):
        resolve("$checkout.order.number", VARS)
