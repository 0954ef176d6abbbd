"""The store's own records as its API answers them (ours, not Stripe's): orders with their
items, shipments, returns and payment; stock; customer accounts and their actions. WorkGym's
conventions: integer ids, ISO 8601 times, money in the currency's minor unit (currencies
lowercase, as the payments'), offset pages (``replicas/runtime/paging.py``)."""

from __future__ import annotations

import sqlite3
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from replicas.runtime import db as sql
from replicas.runtime.clock import ISO_DESCRIPTION

from ..rules.orders import open_units

Row = dict[str, Any]
_TS = ISO_DESCRIPTION
_MONEY = "In the currency's minor unit (JPY: whole yen)."


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ItemOut(_Out):
    id: int = Field(description="Item id (what cancellations and returns name).")
    sku: str = Field(description="The product's SKU.")
    name: str = Field(description="The product's name.")
    price: str | None = Field(description="The Stripe price bought (none on imported orders).")
    quantity: int = Field(description="Units bought.")
    unit_amount: int = Field(description=f"Price of one unit. {_MONEY}")
    amount_discount: int = Field(description="The item's share of the order's discount.")
    fulfilled_quantity: int = Field(description="Units shipped.")
    cancelled_quantity: int = Field(description="Units cancelled.")
    returned_quantity: int = Field(description="Units shipped and returned.")
    open_quantity: int = Field(description="Units waiting to ship (can be cancelled).")


class ItemUnits(_Out):
    item_id: int = Field(description="The order's item.")
    quantity: int = Field(description="Units.")


class FulfillmentOut(_Out):
    id: int = Field(description="Shipment id.")
    carrier: str = Field(description="Who carries it.")
    tracking_number: str = Field(description="The carrier's tracking number.")
    status: Literal["in_transit", "delivered"] = Field(description="Where it is.")
    items: list[ItemUnits] = Field(description="The units it carries.")
    shipped_at: str = Field(description=f"When it left; {_TS}.")
    delivered_at: str | None = Field(description=f"When it arrived; {_TS}.")


class ReturnOut(_Out):
    id: int = Field(description="Return id.")
    order_id: int = Field(description="The order.")
    items: list[ItemUnits] = Field(description="The units that came back.")
    restock: bool = Field(description="Whether they went back in stock.")
    refund: str | None = Field(description="The Stripe refund it made, if any.")
    amount_refunded: int = Field(description=f"What it refunded. {_MONEY}")
    currency: str = Field(description="The order's currency.")
    reason: str | None = Field(description="Why they came back.")
    created_at: str = Field(description=f"When; {_TS}.")


class Payment(_Out):
    intent: str = Field(description="The order's PaymentIntent (Stripe API: /v1/payment_intents).")
    status: str = Field(description="The PaymentIntent's status.")
    amount: int = Field(description="What it is for.")
    amount_received: int = Field(description="What was captured.")
    amount_refunded: int = Field(description="Refunded (or released) on its latest charge.")


class Address(_Out):
    name: str | None = Field(description="Recipient.")
    line1: str | None = Field(description="Street and number.")
    city: str | None = Field(description="City.")
    postal_code: str | None = Field(description="Postal code.")
    country: str | None = Field(description="ISO 3166-1 alpha-2.")


class OrderOut(_Out):
    id: int = Field(description="Order id.")
    number: str = Field(description="The order number customers see (A-10423; imported "
                        "orders: WC-...).")
    status: Literal["open", "cancelled"] = Field(description="cancelled once every unit is.")
    fulfillment_status: Literal["unfulfilled", "partially_fulfilled", "fulfilled"] = Field(
        description="How much of what was not cancelled shipped.")
    account_id: int | None = Field(description="The buyer's store account (none: a guest).")
    customer: str | None = Field(description="The buyer's Stripe customer.")
    email: str | None = Field(description="The buyer's email at the time.")
    currency: str = Field(description="Lowercase ISO code.")
    subtotal: int = Field(description=f"The items' prices. {_MONEY}")
    discount: int = Field(description="Taken off by the promotion code.")
    shipping: int = Field(description="Shipping charged.")
    total: int = Field(description="subtotal - discount + shipping: what was charged.")
    promotion_code: str | None = Field(description="The Stripe promotion code redeemed.")
    payment_intent: str | None = Field(description="The order's Stripe PaymentIntent.")
    checkout_session: str | None = Field(description="The Checkout Session it was paid in.")
    payment: Payment | None = Field(description="The payment as it stands.")
    shipping_address: Address = Field(description="Where it ships.")
    placed_at: str = Field(description=f"When it was placed; {_TS}.")
    cancelled_at: str | None = Field(description=f"When it was cancelled; {_TS}.")
    cancel_reason: str | None = Field(description="Why it was (partly) cancelled.")
    legacy_id: str | None = Field(description="Its id in the old shop, if imported.")
    note: str | None = Field(description="Staff notes.")
    items: list[ItemOut] = Field(description="What was bought.")
    fulfillments: list[FulfillmentOut] = Field(description="Shipments.")
    returns: list[ReturnOut] = Field(description="Returns.")


class InventoryOut(_Out):
    sku: str = Field(description="The product's SKU.")
    name: str = Field(description="The product's name.")
    on_hand: int = Field(description="Units in the warehouse.")
    committed: int = Field(description="Of those, promised to open orders.")
    available: int = Field(description="on_hand - committed: what can be sold.")
    updated_at: str = Field(description=f"Last change; {_TS}.")


class AccountOut(_Out):
    id: int = Field(description="Account id.")
    customer: str | None = Field(description="The same person's Stripe customer.")
    email: str = Field(description="The address they sign in with.")
    name: str = Field(description="Full name.")
    locale: str = Field(description="Language, e.g. de-DE.")
    email_verified: bool = Field(description="Whether the address was verified.")
    two_factor_enabled: bool = Field(description="Whether 2FA is on.")
    pending_email: str | None = Field(description="An email change waiting for its code.")
    created_at: str = Field(description=f"Sign-up; {_TS}.")
    updated_at: str = Field(description=f"Last change; {_TS}.")
    legacy_id: str | None = Field(description="Its id in the old shop, if imported.")
    legacy_created: str | None = Field(description="The old shop's sign-up date, as it "
                                       "wrote it (formats vary).")


class AccountActionOut(_Out):
    id: int = Field(description="Account action id.")
    account_id: int = Field(description="The account.")
    kind: Literal["password_reset", "2fa_reset", "email_change"] = Field(description="What.")
    status: Literal["pending", "completed", "cancelled"] = Field(
        description="pending (awaiting its code), completed or cancelled (superseded).")
    verification_required: bool = Field(description="Whether it needs verification.")
    verification_method: str | None = Field(description="How it was (or is to be) verified.")
    new_email: str | None = Field(description="Email changes: the new address.")
    self_service: bool = Field(description="Started by the holder on the website.")
    created_at: str = Field(description=f"When; {_TS}.")
    completed_at: str | None = Field(description=f"When it completed; {_TS}.")


class ApprovalOut(_Out):
    id: int = Field(description="Approval id (what a refund's metadata[approval] names).")
    charge: str = Field(description="The charge it is for.")
    amount: int = Field(description=f"The refund it covers, at most. {_MONEY}")
    currency: str = Field(description="The charge's currency.")
    reason: str = Field(description="Why, as asked.")
    ticket: int | None = Field(description="The helpdesk ticket it is for.")
    status: Literal["approved", "denied"] = Field(description="The manager's decision.")
    decision_note: str = Field(description="The manager's note (why it was denied).")
    refund: str | None = Field(description="The refund it covered (each covers one).")
    created_at: str = Field(description=f"When it was asked and decided; {_TS}.")


def _units(text: str) -> list[Row]:
    found: list[Row] = orjson.loads(text)
    return found


def order(db: sqlite3.Connection, row: Row) -> Row:
    """An order with its items, shipments, returns and payment."""
    payment = None
    if row["payment_intent"]:
        intent = sql.one(db, "SELECT * FROM payment_intents WHERE stripe_id = ?",
                         (row["payment_intent"],))
        assert intent is not None
        charge = sql.one(db, "SELECT amount_refunded FROM charges WHERE stripe_id = ?",
                         (intent["latest_charge"],))
        payment = {"intent": intent["stripe_id"], "status": intent["status"],
                   "amount": intent["amount"], "amount_received": intent["amount_received"],
                   "amount_refunded": charge["amount_refunded"] if charge else 0}
    items = sql.rows(db, "SELECT * FROM order_items WHERE order_id = ? ORDER BY id",
                     (row["id"],))
    shipments = sql.rows(db, "SELECT * FROM fulfillments WHERE order_id = ? ORDER BY id",
                         (row["id"],))
    returns = sql.rows(db, "SELECT * FROM returns WHERE order_id = ? ORDER BY id",
                       (row["id"],))
    kept = {k: row[k] for k in (
        "id", "number", "status", "fulfillment_status", "account_id", "customer", "email",
        "currency", "subtotal", "discount", "shipping", "total", "promotion_code",
        "payment_intent", "checkout_session", "placed_at", "cancelled_at", "cancel_reason",
        "legacy_id", "note")}
    return {**kept, "payment": payment,
            "shipping_address": {"name": row["ship_name"], "line1": row["ship_line1"],
                                 "city": row["ship_city"], "postal_code": row["ship_postal_code"],
                                 "country": row["ship_country"]},
            "items": [{k: v for k, v in item.items() if k != "order_id"}
                      | {"open_quantity": open_units(item)} for item in items],
            "fulfillments": [{k: v for k, v in s.items() if k != "order_id"}
                             | {"items": _units(s["items"])} for s in shipments],
            "returns": [return_(r) for r in returns]}


def return_(row: Row) -> Row:
    return {**row, "items": _units(row["items"]), "restock": bool(row["restock"])}


def inventory(row: Row) -> Row:
    return {"sku": row["sku"], "name": row["name"], "on_hand": row["on_hand"],
            "committed": row["committed"], "available": row["on_hand"] - row["committed"],
            "updated_at": row["updated_at"]}


def account(row: Row) -> Row:
    return {**row, "email_verified": bool(row["email_verified"]),
            "two_factor_enabled": bool(row["two_factor_enabled"])}


def account_action(row: Row) -> Row:
    return {**row, "verification_required": bool(row["verification_required"]),
            "self_service": bool(row["self_service"])}
