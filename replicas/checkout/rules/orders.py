"""The store's orders (ours: Stripe has no orders). An order's items are bought in units;
each unit is open (waiting to ship), shipped (fulfilled), cancelled, or shipped and then
returned. The order is ``unfulfilled`` until a unit ships, ``fulfilled`` once every unit not
cancelled has, ``partially_fulfilled`` between; ``cancelled`` once every unit is.

* **Cancel** takes open units only (the default: all of them). What was paid for them (their
  price after their share of the discount: ``discounts.paid_for``) goes back through the
  payments rules, a refund of the order's PaymentIntent (Stripe's refusals stand: a disputed
  charge, more than is left); cancelling the whole order before anything shipped refunds its
  shipping too, and releases a payment only authorized (a part of one cannot be cancelled:
  capture it first). The units go back to stock (no longer committed).
* **Return** takes shipped units back: restocked (on hand again) or written off, and what was
  paid for them refunded, or ``amount`` (less: a restocking fee kept), or nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from replicas.runtime import db as sql

from ..discounts import paid_for
from ..render import Row
from ..schemas.requests import ItemQuantity, RefundCreate
from . import payment_intents as intents
from . import refunds
from .common import World, dumps, refused

Units = list[tuple[Row, int]]  # (an item, how many of its units)


def fulfillment_status(items: Sequence[Row]) -> str:
    """unfulfilled, partially_fulfilled or fulfilled: how much of what was not cancelled
    shipped."""
    shipped = sum(item["fulfilled_quantity"] for item in items)
    due = sum(item["quantity"] - item["cancelled_quantity"] for item in items)
    if shipped == 0:
        return "unfulfilled"
    return "fulfilled" if shipped >= due else "partially_fulfilled"


def open_units(item: Row) -> int:
    """Units of ``item`` not shipped and not cancelled."""
    return int(item["quantity"] - item["fulfilled_quantity"] - item["cancelled_quantity"])


def _kept(item: Row) -> int:
    """Units of ``item`` shipped and not returned."""
    return int(item["fulfilled_quantity"] - item["returned_quantity"])


def settled(item: Row) -> int:
    """Units of ``item`` already paid back or given up: cancelled or returned."""
    return int(item["cancelled_quantity"] + item["returned_quantity"])


def items_of(w: World, order: Row) -> list[Row]:
    return sql.rows(w.db, "SELECT * FROM order_items WHERE order_id = ? ORDER BY id",
                    (order["id"],))



def _units(items: list[Row], asked: list[ItemQuantity] | None,
           kind: Literal["cancel", "return"]) -> Units:
    """The units a cancellation or return takes: those asked for, each checked against what
    the item has (open units to cancel, shipped ones to return); by default, for a
    cancellation, every open unit."""
    has = open_units if kind == "cancel" else _kept
    if asked is None:
        return [(item, has(item)) for item in items if has(item) > 0]
    by_id = {item["id"]: item for item in items}
    found: Units = []
    for i, one in enumerate(asked):
        param = f"items[{i}]"
        item = by_id.get(one.item_id)
        if item is None:
            raise refused(f"Item {one.item_id} is not an item of this order.",
                           "item_not_in_order", f"{param}[item_id]")
        if any(seen["id"] == item["id"] for seen, _ in found):
            raise refused(f"Item {item['id']} is listed twice.", "parameter_invalid",
                           f"{param}[item_id]")
        if one.quantity > has(item):
            what = "not shipped yet" if kind == "cancel" else "shipped and not returned"
            raise refused(f"Item {item['id']} ({item['sku']}) has {has(item)} unit(s) "
                           f"{what}; {one.quantity} asked.", f"quantity_exceeds_{kind}able",
                           f"{param}[quantity]")
        found.append((item, one.quantity))
    return found


def _paid(units: Units) -> int:
    return sum(paid_for(item, count, before=settled(item)) for item, count in units)


def _refund(w: World, order: Row, amount: int, why: str) -> str | None:
    """Pay ``amount`` back on the order's payment (a refund through the payments rules); the
    refund's id, if one was made."""
    if amount == 0:
        return None
    refund = refunds.create(w, RefundCreate(
        payment_intent=order["payment_intent"], amount=amount,
        reason="requested_by_customer", metadata={"order": order["number"], "store": why}),
        policy=False)
    found: str = refund["stripe_id"]
    return found


def _stock(w: World, units: Units, column: Literal["on_hand", "committed"], sign: int) -> None:
    for item, count in units:
        w.db.execute(f"UPDATE inventory SET {column} = max(0, {column} + ?), updated_at = ? "
                     "WHERE sku = ?", (sign * count, w.stamp, item["sku"]))


def cancel(w: World, order: Row, *, asked: list[ItemQuantity] | None,
           reason: str | None) -> Row:
    """Cancel open units of ``order`` (see the module's docstring); the order as it is now."""
    if order["status"] == "cancelled":
        raise refused(f"Order {order['number']} is already cancelled.", "order_cancelled")
    items = items_of(w, order)
    units = _units(items, asked, "cancel")
    if not units:
        raise refused(f"Order {order['number']} has nothing left to cancel: every unit "
                       "shipped or was cancelled. Shipped units can be returned.",
                       "order_fulfilled")
    taken = {item["id"]: count for item, count in units}
    after = [{**item, "cancelled_quantity": item["cancelled_quantity"] + taken.get(
        item["id"], 0)} for item in items]
    whole = all(item["cancelled_quantity"] == item["quantity"] for item in after)
    amount = _paid(units) + (order["shipping"] if whole else 0)
    intent = w.objects.row("payment_intents", order["payment_intent"], kind="payment_intent")
    if intent["status"] == "requires_capture":
        if not whole:
            raise refused(f"Order {order['number']}'s payment is only authorized: cancel the "
                           "whole order (releasing it), or capture it before cancelling part "
                           "of it.", "payment_not_captured")
        intents.cancel(w, intent, reason="requested_by_customer")
    elif intent["status"] != "canceled":  # a released authorization took nothing
        _refund(w, order, amount, "cancellation")
    for item, count in units:
        sql.update(w.db, "order_items", item["id"],
                   {"cancelled_quantity": item["cancelled_quantity"] + count})
    _stock(w, units, "committed", -1)
    values: dict[str, Any] = {"fulfillment_status": fulfillment_status(after),
                              "cancel_reason": reason or order["cancel_reason"]}
    if whole:
        values |= {"status": "cancelled", "cancelled_at": w.stamp}
    sql.update(w.db, "orders", order["id"], values)
    return sql.get_row(w.db, "orders", order["id"])


def create_return(w: World, order: Row, *, asked: list[ItemQuantity], restock: bool,
                  refund: bool | None, amount: int | None, reason: str | None) -> Row:
    """Take shipped units of ``order`` back (see the module's docstring); the return."""
    if refund is False and amount is not None:
        raise refused("amount is what the return refunds: leave it out with refund=false.",
                       "parameter_invalid", "amount")
    units = _units(items_of(w, order), asked, "return")
    paid = _paid(units)
    if amount is not None and amount > paid:
        raise refused(f"amount ({amount}) is more than was paid for these units ({paid}).",
                       "amount_too_large", "amount")
    money = 0 if refund is False else paid if amount is None else amount
    refund_id = _refund(w, order, money, "return")
    for item, count in units:
        sql.update(w.db, "order_items", item["id"],
                   {"returned_quantity": item["returned_quantity"] + count})
    if restock:
        _stock(w, units, "on_hand", 1)
    return_id = sql.insert(w.db, "returns", {
        "order_id": order["id"],
        "items": dumps([{"item_id": item["id"], "quantity": count} for item, count in units]),
        "restock": int(restock), "refund": refund_id, "amount_refunded": money,
        "currency": order["currency"], "reason": reason, "created_at": w.stamp})
    return sql.get_row(w.db, "returns", return_id)
