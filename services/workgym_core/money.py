"""Money as the apps store it: an integer in the currency's minor unit, and an ISO code.

One table of the currencies the worlds use (their minor units and the symbols people write),
shared by the apps, the templates that render amounts and the reward engine's fact checker.
"""

from __future__ import annotations

from babel.numbers import get_currency_name

# code -> (digits of its minor unit, symbols written for it)
CURRENCIES: dict[str, tuple[int, tuple[str, ...]]] = {
    "USD": (2, ("$", "US$", "dollar", "dollars")),
    "EUR": (2, ("€", "euro", "euros", "eur")),
    "GBP": (2, ("£", "pound", "pounds", "gbp", "quid")),
    "JPY": (0, ("¥", "円", "yen", "jpy")),
}


def digits(currency: str) -> int:
    """Digits of the currency's minor unit (JPY has none)."""
    return CURRENCIES.get(currency.upper(), (2, ()))[0]


def major(amount: int, currency: str) -> float:
    """``amount`` minor units as major units: 12900 USD -> 129.0."""
    scale: int = 10 ** digits(currency)
    return amount / scale


def format_money(amount: int, currency: str) -> str:
    """How the apps write an amount: ``USD 129.00``, ``JPY 1,200``."""
    places = digits(currency)
    return f"{currency.upper()} {major(amount, currency):,.{places}f}"


def format_symbol(amount: int, currency: str) -> str:
    """How people write it: ``$129.00``, ``£70.00``, ``€12.50``, ``¥1,200``."""
    symbol = CURRENCIES[currency.upper()][1][0]
    return f"{symbol}{major(amount, currency):,.{digits(currency)}f}"


def format_words(amount: int, currency: str) -> str:
    """With the currency in words, after the number: ``129.00 US dollars``, ``1,200 Japanese
    yen`` (Babel's English names)."""
    places = digits(currency)
    return f"{major(amount, currency):,.{places}f} {get_currency_name(currency.upper(), 2, 'en')}"
