"""The entity finder over the forms people write, in the languages the worlds use: money
with its currency, order numbers, durations and dates, and what must not be read as one."""

from __future__ import annotations

from typing import Any

import pytest

from replicas.catalog import lexicon
from workgym_core.speech.cues import guess


def found(text: str, kind: str) -> list[Any]:  # Entity.value: by kind
    return [e.value for e in lexicon().finder.find(text, language=guess(text)) if e.kind == kind]


MONEY = [
    ("Your refund of $29.00 is on its way.", 2900, "USD"),
    ("We refunded USD 29 today.", 2900, "USD"),
    ("That's 29 dollars back to your card.", 2900, "USD"),
    ("That is 45.00 US dollars in all.", 4500, "USD"),
    ("US$ 1,234.50 has been credited.", 123450, "USD"),
    ("A refund of $1,234 was issued.", 123400, "USD"),
    ("29.00 USD will reach your account.", 2900, "USD"),
    ("You'll get £70 back.", 7000, "GBP"),
    ("GBP 70.00 refunded.", 7000, "GBP"),
    ("70 pounds are on the way.", 7000, "GBP"),
    ("We refunded ¥1,200.", 1200, "JPY"),
    ("JPY 1,200 refunded.", 1200, "JPY"),
    ("1,200 yen will be returned.", 1200, "JPY"),
    ("€12.50 refunded.", 1250, "EUR"),
    ("EUR 12.50 refunded.", 1250, "EUR"),
    ("59 euros back to you.", 5900, "EUR"),
    ("Wir haben Ihnen 29,00 € erstattet.", 2900, "EUR"),
    ("Erstattet: 1.234,50 EUR.", 123450, "EUR"),
    ("Nous avons remboursé 45,00 € sur votre carte.", 4500, "EUR"),
    ("Le remboursement de € 1.234,50 est en cours.", 123450, "EUR"),
    ("Hemos reembolsado 12,50 EUR.", 1250, "EUR"),
    ("1200円を返金いたしました。", 1200, "JPY"),
    ("1.200 円を返金しました。", 1200, "JPY"),
    ("¥ 1200 を返金します。", 1200, "JPY"),
    ("注文Ａ－１０４２３を返金しました。￥１，２００", 1200, "JPY"),
]


@pytest.mark.parametrize(("text", "amount", "currency"), MONEY)
def test_money_in_the_forms_people_write(text: str, amount: int, currency: str) -> None:
    from workgym_core.speech.reader import normalise

    assert found(normalise(text), "money") == [(amount, currency)]


@pytest.mark.parametrize("text", [
    "Order 29.00 is fine.",  # an amount without a currency is no money
    "We have 12 items in stock.",
    "Call us at 555 0142.",
    "Order A-13003 USD 329.00",  # the order number is no amount
])
def test_numbers_without_a_currency_are_no_money(text: str) -> None:
    assert all(value != (1300300, "USD") for value in found(text, "money"))
    if "USD" not in text:
        assert found(text, "money") == []


def test_an_order_number_before_a_currency_code_is_the_order() -> None:
    assert found("A-13003 USD 329.00", "money") == [(32900, "USD")]
    assert found("A-13003 USD 329.00", "order") == ["A13003"]


@pytest.mark.parametrize(("text", "number"), [
    ("Order A-10423 was refunded.", "A10423"),
    ("about order #A10423", "A10423"),
    ("your order a-10423", "A10423"),
    ("注文A-10423の返金について", "A10423"),
    ("Ihre Bestellung A-10423", "A10423"),
])
def test_order_numbers(text: str, number: str) -> None:
    assert number in found(text, "order")


@pytest.mark.parametrize("text", ["a 1234 b", "I paid in 2024", "Call +1 617 555 0134"])
def test_other_numbers_are_no_order_numbers(text: str) -> None:
    assert found(text, "order") == []


@pytest.mark.parametrize(("text", "days"), [
    ("within 14 days", 14),
    ("our 30-day window", 30),
    ("a fourteen-day window", 14),
    ("within fourteen days", 14),
    ("within two weeks", 14),
    ("innerhalb von 14 Tagen", 14),
    ("innerhalb von vierzehn Tagen", 14),
    ("sous deux semaines", 14),
    ("quinze jours", 15),
    ("dentro de 30 días", 30),
    ("one month", 30),
    ("thirty days", 30),
    ("twenty-one days", 21),
    ("2週間以内", 14),
    ("14日間", 14),
    ("返金は14日以内です", 14),
])
def test_durations_in_digits_or_words(text: str, days: int) -> None:
    assert any(low == high == days for low, high, _ in found(text, "duration")), \
        found(text, "duration")


def test_a_range_of_business_days() -> None:
    assert found("5-10 business days", "duration") == [(5, 10, "bd")]


@pytest.mark.parametrize("text", ["similar names may differ", "x14 days", "version 2.14 days"])
def test_no_duration_inside_other_words_or_numbers(text: str) -> None:
    assert found(text, "duration") == []


@pytest.mark.parametrize(("text", "iso"), [
    ("on 2025-06-16", "2025-06-16"),
    ("on 16 June 2025", "2025-06-16"),
    ("on June 16th, 2025", "2025-06-16"),
    ("since June 16", "--06-16"),
    ("seit dem 16. Juni", "--06-16"),
    ("le 16 juin 2025", "2025-06-16"),
    ("el 16 de junio de 2025", "2025-06-16"),
    ("2025年6月16日", "2025-06-16"),
])
def test_dates(text: str, iso: str) -> None:
    assert found(text, "date") == [iso]


@pytest.mark.parametrize("text", ["Assigned to İvan today.", "Assigned to IVAN today.",
                                  "Assigned to ıvan today."])
def test_names_in_any_case_re_matches(text: str) -> None:
    """A world's name is found in every case ``re.IGNORECASE`` matches it in (the dotted and
    dotless i included), though names whose letters a text lacks are never searched for."""
    people = {"person": {"Ivan": "Ivan", "Noor": "Noor"}}
    assert [(e.kind, e.value) for e in lexicon().finder.find(text, people)
            if e.kind == "person"] == [("person", "Ivan")]
