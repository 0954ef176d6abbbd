"""The fact checker over a corpus of phrasings, in the languages the worlds use: what a
message states (money with its currency, order numbers, durations, dates, claims), and what
it must not be read as stating."""

from __future__ import annotations

import pytest

from workgym_reward.facts import extract, order_key, states_date, states_money

MONEY = [
    # English
    ("Your refund of $29.00 is on its way.", 2900, "USD"),
    ("We refunded USD 29 today.", 2900, "USD"),
    ("That's 29 dollars back to your card.", 2900, "USD"),
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
    # German, French, Spanish: decimal commas, thousands dots, symbol after
    ("Wir haben Ihnen 29,00 € erstattet.", 2900, "EUR"),
    ("Erstattet: 1.234,50 EUR.", 123450, "EUR"),
    ("Nous avons remboursé 45,00 € sur votre carte.", 4500, "EUR"),
    ("Le remboursement de € 1.234,50 est en cours.", 123450, "EUR"),
    ("Hemos reembolsado 12,50 EUR.", 1250, "EUR"),
    # Japanese
    ("1200円を返金いたしました。", 1200, "JPY"),
    ("1.200 円を返金しました。", 1200, "JPY"),
    ("¥ 1200 を返金します。", 1200, "JPY"),
]


@pytest.mark.parametrize(("text", "amount", "currency"), MONEY)
def test_money_in_the_forms_people_write(text: str, amount: int, currency: str) -> None:
    found = extract(text)
    assert states_money(found, amount, currency), [(m.amount, m.currency) for m in found.money]
    assert len(found.money) == 1


@pytest.mark.parametrize("text", [
    "Order 29.00 is fine.",  # an amount without a currency is no money
    "We have 12 items in stock.",
    "Call us at 555 0142.",
])
def test_numbers_without_a_currency_are_no_money(text: str) -> None:
    assert extract(text).money == []


def test_the_wrong_currency_is_not_the_amount() -> None:
    assert not states_money(extract("We refunded $29.00."), 2900, "EUR")
    assert not states_money(extract("We refunded €29.00."), 2900, "USD")


@pytest.mark.parametrize(("text", "number"), [
    ("Order A-10423 was refunded.", "A-10423"),
    ("about order #A10423", "A-10423"),
    ("your order a-10423", "A-10423"),
    ("注文A-10423の返金について", "A-10423"),
    ("Ihre Bestellung A-10423", "A-10423"),
])
def test_order_numbers(text: str, number: str) -> None:
    assert order_key(number) in extract(text).orders


@pytest.mark.parametrize("text", ["a 1234 b", "I paid in 2024", "Call +1 617 555 0134"])
def test_other_numbers_are_no_order_numbers(text: str) -> None:
    assert extract(text).orders == set()


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
    ("5-10 business days", 10),
])
def test_durations_in_digits_or_words(text: str, days: int) -> None:
    assert days in extract(text).durations


@pytest.mark.parametrize("text", ["similar names may differ", "x14 days", "version 2.14 days"])
def test_no_duration_inside_other_words_or_numbers(text: str) -> None:
    assert extract(text).durations == set()


@pytest.mark.parametrize(("text", "iso"), [
    ("on 2025-06-16", "2025-06-16"),
    ("on 16 June 2025", "2025-06-16"),
    ("on June 16th, 2025", "2025-06-16"),
    ("since June 16", "2025-06-16"),
    ("seit dem 16. Juni", "2025-06-16"),
    ("le 16 juin 2025", "2025-06-16"),
    ("el 16 de junio de 2025", "2025-06-16"),
])
def test_dates(text: str, iso: str) -> None:
    assert states_date(extract(text), iso)


def test_a_different_day_or_year_is_not_the_date() -> None:
    assert not states_date(extract("on 17 June 2025"), "2025-06-16")
    assert not states_date(extract("on 16 June 2024"), "2025-06-16")


CLAIMS = [
    ("I've refunded your order.", {"refunded"}),
    ("Your refund of $29 is on its way.", {"refunded"}),
    ("We have issued a refund for order A-10423.", {"refunded"}),
    ("Wir haben Ihnen den Betrag erstattet.", {"refunded"}),
    ("Nous avons remboursé votre commande.", {"refunded"}),
    ("Hemos reembolsado su pedido.", {"refunded"}),
    ("返金いたしました。", {"refunded"}),
    ("大変申し訳ございませんでした、返金いたしました。", {"refunded"}),
    ("Sorry for the wait, I've refunded your order.", {"refunded"}),
    # A negation elsewhere in the sentence refuses nothing ...
    ("Hi Ada, no need for a chargeback: we will refund your USD 89.00 today.", {"refunded"}),
    # ... but a regret opening it does.
    ("Unfortunately, your refund window has passed.", {"not_refunded"}),
    ("We have refunded GBP 70.00 (not dollars).", {"refunded"}),
    ("Hi Ann, no problem: I've refunded order A-13003.", {"refunded"}),
    ("The refund policy you quoted no longer applies.", set()),
    ("They will be in touch about the refund.", set()),
    ("Your refund has been issued.", {"refunded"}),
    ("I'm sorry, the order is outside our refund window.", {"not_refunded"}),
    ("We cannot refund in US dollars, so we refunded GBP 70.00.", {"not_refunded", "refunded"}),
    ("We cannot refund this order.", {"not_refunded"}),
    ("Unfortunately the refund window has expired.", {"not_refunded"}),
    ("I'm sorry, this order isn't eligible for a refund.", {"not_refunded"}),
    ("Leider können wir die Bestellung nicht erstatten.", {"not_refunded"}),
    ("Malheureusement, nous ne pouvons pas rembourser cette commande.", {"not_refunded"}),
    ("Lamentablemente no podemos reembolsar este pedido.", {"not_refunded"}),
    ("申し訳ありませんが、返金はできません。", {"not_refunded"}),
    ("I have escalated this to our billing team.", {"escalated"}),
    ("I passed this on to our Billing team.", {"escalated"}),
    ("Ich habe Ihr Anliegen an unser Team weitergeleitet.", {"escalated"}),
    ("Could you send me your order number?", {"asked"}),
    ("Please confirm the last four digits of your card.", {"asked"}),
    # Payments taken, or not
    ("Your payment of $45.00 went through on your Mastercard ending 4444.", {"charged"}),
    ("We charged your Mastercard $45.00 for order A-10423.", {"charged"}),
    ("Your card has been charged USD 45.00.", {"charged"}),
    ("The payment was successful.", {"charged"}),
    ("You have not been charged.", {"not_charged"}),
    ("Nothing was charged to your card.", {"not_charged"}),
    ("No charge was made, and none will be.", {"not_charged"}),
    ("I cancelled the attempt, so you won't be charged for it.", {"not_charged"}),
    ("The Visa was declined and not charged; your Mastercard was charged $45.00.",
     {"not_charged", "charged"}),
    ("Ihre Karte wurde nicht belastet.", {"not_charged"}),
    ("Wir haben Ihre Karte mit 45,00 € belastet.", {"charged"}),
    ("Votre carte n'a pas été débitée.", {"not_charged"}),
    ("No se le ha cobrado nada.", {"not_charged"}),
    ("決済が完了しました。", {"charged"}),
    ("お客様のカードには請求されていません。", {"not_charged"}),
    # Mentions that claim nothing
    ("Our refund policy is in the help center.", set()),
    ("Please try the payment again with another card.", set()),
    ("Thanks for your message.", set()),
]


@pytest.mark.parametrize(("text", "claims"), CLAIMS)
def test_claims(text: str, claims: set[str]) -> None:
    assert extract(text).claims == claims


def test_claims_are_read_per_sentence() -> None:
    text = "We can't refund the first order. I've refunded the second one in full."
    assert extract(text).claims == {"not_refunded", "refunded"}


def test_full_width_forms_are_normalised() -> None:
    found = extract("注文Ａ－１０４２３を返金しました。￥１，２００")
    assert "A10423" in found.orders and states_money(found, 1200, "JPY")
