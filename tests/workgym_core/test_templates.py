"""Texts rendered from bound rows (task instructions, setup texts, what scripts write), the
money formats they use, and the arithmetic task templates may do."""

from __future__ import annotations

import pytest

from workgym_core.exprs import evaluate
from workgym_core.money import format_money, format_symbol
from workgym_core.refs import BadReference, Others, Vars
from workgym_core.templates import render, render_value

ROWS: Vars = {"charge": {"amount": 123456, "currency": "EUR", "id": 41},
        "customer": {"name": "Ana María López"}, "order": {"placed_at": "2025-06-16T09:00:00Z"},
        "subscription": {"cancel_at": 1751414400}}
OTHERS: Others = {"notes": {"person": {"id": 7}}}


@pytest.mark.parametrize(("amount", "currency", "apps", "people"), [
    (12900, "USD", "USD 129.00", "$129.00"),
    (123456, "EUR", "EUR 1,234.56", "€1,234.56"),
    (7000, "GBP", "GBP 70.00", "£70.00"),
    (1200, "JPY", "JPY 1,200", "¥1,200"),  # no minor unit
])
def test_money_formats(amount: int, currency: str, apps: str, people: str) -> None:
    assert format_money(amount, currency) == apps
    assert format_symbol(amount, currency) == people


@pytest.mark.parametrize(("text", "expected"), [
    ("{{ charge.amount | money: charge.currency }}", "EUR 1,234.56"),
    ("{{charge.amount|money_symbol:charge.currency}}", "€1,234.56"),
    ("Hi {{ customer.name | first }}!", "Hi Ana!"),
    ("{{ customer.name | upper }}", "ANA MARÍA LÓPEZ"),
    ("on {{ order.placed_at | date }}", "on 16 June 2025"),
    # Stripe's times are Unix seconds (a subscription's cancel_at): the day they fall on, UTC.
    ("until {{ subscription.cancel_at | date }}", "until 2 July 2025"),
    ("since {{ order.placed_at | unix }}", "since 1750064400"),
    ("note for {{ notes.person.id }}", "note for 7"),
    ("{{ charge.amount | money: 'USD' }}", "USD 1,234.56"),
    ("no placeholders", "no placeholders"),
])
def test_render(text: str, expected: str) -> None:
    assert render(text, ROWS, OTHERS) == expected


def test_a_lone_placeholder_keeps_its_type() -> None:
    assert render_value("{{ charge.id }}", ROWS) == 41
    assert render_value("id {{ charge.id }}", ROWS) == "id 41"


@pytest.mark.parametrize(("text", "message"), [
    ("{{ charge.nope }}", "no field 'nope'"),
    ("{{ refund.id }}", "no variable 'refund'"),
    ("{{ charge.amount | shout }}", "unknown filter 'shout'"),
])
def test_unknown_references_and_filters_are_named(text: str, message: str) -> None:
    with pytest.raises(BadReference, match=message):
        render(text, ROWS)


@pytest.mark.parametrize(("expr", "value"), [
    ("$charge.amount * 30 // 100", 37036),
    ("round($charge.amount / 3)", 41152),
    ("max(1, min(5, 9)) + abs(-2) - 10 % 4", 5),
    ("-($charge.id + 1)", -42),
    ("$charge.amount > 100 and not $charge.id == 3", True),
    ("$charge.currency == 'usd' or 1 < 0", False),
    ("0 < $charge.id <= 41", True),
])
def test_expressions(expr: str, value: int) -> None:
    assert evaluate(expr, ROWS) == value


@pytest.mark.parametrize("expr", ["__import__('os')", "$charge.amount.bit_length()",
                                  "2 ** 64", "[1, 2]", "lambda: 1", "open('/etc/passwd')",
                                  "x" * 301])
def test_expressions_refuse_anything_but_arithmetic(expr: str) -> None:
    with pytest.raises(ValueError):
        evaluate(expr, ROWS)
