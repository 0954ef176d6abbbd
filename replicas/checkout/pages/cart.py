"""The shop's catalogue and the customer's cart.

The cart is never stored: it travels from page to page in the links and the forms, as
``cart=price_1Ab...:2,price_9Xy...:1`` (a price and a quantity per line), and every page reads
it again against the catalogue. Its lines are prices with quantities, as the line items of a
Stripe Checkout Session are (``line_items[i][price]``, ``[quantity]``): what the shipping step
would hand a session instead of making the PaymentIntent itself. The storefront sells the
active one-time prices of active products (subscriptions are not sold here) in the
currencies it shows amounts in (``workgym_core.money``); a cart is in one currency.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace

from replicas.runtime import db as sql
from workgym_core import money

from ..errors import InvalidRequestError
from ..render import Row, loads

CURRENCIES = tuple(code.lower() for code in money.CURRENCIES)
MAX_LINES = 10
MAX_QUANTITY = 20
MAX_TEXT = 600  # an encoded cart of MAX_LINES lines fits
MAX_TOTAL = 99_999_999  # the largest amount a PaymentIntent takes (schemas.Amount)


def refused(message: str) -> InvalidRequestError:
    return InvalidRequestError(message, code="cart_invalid")


def currency_refused(asked: str) -> str | None:
    """Why the shop cannot show prices in ``asked`` (any case), or None."""
    if asked.lower() in CURRENCIES:
        return None
    return (f"We do not sell in {asked.upper()}: prices are in "
            f"{', '.join(code.upper() for code in CURRENCIES)}.")


def in_other_currency(cart: Cart, currency: str) -> str:
    return (f"Your cart is in {str(cart.currency).upper()}: empty it to shop in "
            f"{currency.upper()}.")


@dataclass(frozen=True)
class Line:
    product: Row
    price: Row
    quantity: int

    @property
    def amount(self) -> int:
        return int(self.price["unit_amount"]) * self.quantity

    @property
    def sku(self) -> str:
        return str(loads(self.product["metadata"]).get("sku", self.product["stripe_id"]))


@dataclass(frozen=True)
class Cart:
    lines: tuple[Line, ...] = ()

    @property
    def currency(self) -> str | None:
        return self.lines[0].price["currency"] if self.lines else None

    @property
    def items(self) -> int:
        return sum(line.quantity for line in self.lines)

    @property
    def total(self) -> int:
        """What the customer pays: shipping is free (a promotion code's discount would come
        off here)."""
        return sum(line.amount for line in self.lines)

    def encode(self) -> str:
        return ",".join(f"{line.price['stripe_id']}:{line.quantity}" for line in self.lines)

    def skus(self) -> str:
        """The SKUs bought, as the world's payments name them (``metadata.skus``)."""
        return ",".join(line.sku for line in self.lines)


def _priced(db: sqlite3.Connection, price_id: str) -> tuple[Row, Row] | None:
    """(product, price) of a price; None if there is no such price."""
    price = sql.one(db, "SELECT * FROM prices WHERE stripe_id = ?", (price_id,))
    product = price and sql.one(db, "SELECT * FROM products WHERE stripe_id = ?",
                                (price["product"],))
    return (product, price) if price and product else None


def _sold(product: Row, price: Row) -> bool:
    return bool(price["active"] and product["active"] and price["type"] == "one_time"
                and price["currency"] in CURRENCIES)


def sellable(db: sqlite3.Connection, price_id: str) -> tuple[Row, Row]:
    """(product, price) of a price the shop sells, or why not."""
    found = _priced(db, price_id)
    if found is None or not _sold(*found):
        raise refused("That item is not for sale in this shop.")
    return found


def quantity(text: str | None, *, least: int = 1) -> int:
    """A quantity the customer typed (a whole number from ``least`` to MAX_QUANTITY)."""
    if not (text and text.isascii() and text.isdigit() and least <= int(text) <= MAX_QUANTITY):
        raise refused(f"A quantity is a whole number from {least} to {MAX_QUANTITY}.")
    return int(text)


def _entries(text: str) -> list[tuple[str, str]]:
    """(price, quantity) of each line of an encoded cart."""
    if len(text) > MAX_TEXT:
        raise refused("This cart is too large.")
    return [(price, count) for price, _, count in
            (entry.partition(":") for entry in text.split(",") if entry)]


def read(db: sqlite3.Connection, text: str | None) -> Cart:
    """The cart ``text`` encodes, checked against the catalogue as it is now."""
    cart = Cart()
    for price_id, count in _entries(text or ""):
        cart = changed(db, cart, price_id, quantity(count), add=True)
    return cart


def bought(db: sqlite3.Connection, text: str) -> Cart:
    """The lines an order was made of (its payment's ``metadata.cart``) at the prices they
    were sold at, whatever the catalogue says now; lines that name no price are left out."""
    lines = []
    for price_id, count in _entries(text):
        found = _priced(db, price_id)
        if found and count.isascii() and count.isdigit():
            lines.append(Line(*found, int(count)))
    return Cart(tuple(lines))


def changed(db: sqlite3.Connection, cart: Cart, price_id: str, quantity: int, *,
            add: bool) -> Cart:
    """``cart`` with ``quantity`` more of a price (``add``), or with exactly ``quantity`` of it
    (0 removes it)."""
    before = next((line for line in cart.lines if line.price["stripe_id"] == price_id), None)
    wanted = quantity + (before.quantity if add and before else 0)
    if wanted == 0:
        return Cart(tuple(line for line in cart.lines if line is not before))
    if wanted > MAX_QUANTITY:
        raise refused(f"At most {MAX_QUANTITY} of an item per order.")
    if before is not None:
        grown = Cart(tuple(replace(line, quantity=wanted) if line is before else line
                           for line in cart.lines))
    else:
        product, price = sellable(db, price_id)
        if cart.currency not in (None, price["currency"]):
            raise refused(in_other_currency(cart, price["currency"]))
        if len(cart.lines) >= MAX_LINES:
            raise refused(f"At most {MAX_LINES} different items per order.")
        grown = Cart((*cart.lines, Line(product, price, wanted)))
    if grown.total > MAX_TOTAL:
        raise refused("That is more than one order can cost.")
    return grown


def catalogue(db: sqlite3.Connection, currency: str) -> list[tuple[Row, Row]]:
    """(product, price) of everything the shop sells in ``currency``, by name."""
    prices = sql.rows(db, "SELECT stripe_id FROM prices WHERE currency = ? ORDER BY id",
                      (currency,))
    offered = [found for price in prices
               if (found := _priced(db, price["stripe_id"])) and _sold(*found)]
    return sorted(offered, key=lambda found: str(found[0]["name"]))
