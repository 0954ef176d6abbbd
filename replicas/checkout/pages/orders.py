"""The store's orders in the dashboard (the store's own, not Stripe's)::

    GET  /dashboard/orders               orders, newest first; ?q= an order number or email
    GET  /dashboard/orders/{id}          one order: items (paid, shipped, cancelled,
                                         returned), totals, its payment, shipping address,
                                         shipments, returns; the returns and cancel forms
    POST /dashboard/orders/{id}/returns  units that came back (``quantity[item_<id>]``),
                                         ``restock``, ``refund`` (what was paid for them) or
                                         an ``amount``, ``reason`` (``seen``: the
                                         returns it had; sent twice, done once): the store's
                                         ``POST /store/orders/{id}/returns``
    POST /dashboard/orders/{id}/cancel   cancel what has not shipped, ``reason``: the store's
                                         ``POST /store/orders/{id}/cancel``

Each write is the store API route's rule (``rules/orders``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from fastapi import Path as PathParam
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime import db as sql
from replicas.runtime.pages import performs, redirect, sends

from ..deps import WorldDep
from ..discounts import paid_for
from ..render import Row, loads
from ..rules import orders, refunds
from ..rules.common import World, refused
from ..schemas.requests import ItemQuantity, OrderCancel, ReturnCreate
from .dashboard import (
    PER_PAGE,
    DashboardRoute,
    Form,
    Text,
    amount,
    minor,
    page,
    unchanged,
    write,
)

router = APIRouter(route_class=DashboardRoute, include_in_schema=False)
OrderId = Annotated[int, PathParam(ge=1, le=2**31 - 1)]


@router.get("/dashboard/orders")
async def orders_page(request: Request, w: WorldDep, q: Text = "") -> Response:
    wanted = q.strip().lower()
    found = sql.rows(w.db, "SELECT * FROM orders WHERE ? = '' OR lower(number) = ? "
                     "OR lower(email) LIKE ? ORDER BY placed_at DESC, id DESC LIMIT ?",
                     (wanted, wanted, f"%{wanted}%", PER_PAGE))
    return page(request, "orders.html", orders=found, q=q)


def _order(w: World, order_id: int) -> Row:
    return sql.get_row(w.db, "orders", order_id)


def _line(item: Row) -> dict[str, Any]:
    """An item as the order page shows it: what its line and one more unit of it were
    paid (after the discount), what shipped of it and what is kept."""
    return {**item, "paid": paid_for(item, item["quantity"]),
            "unit_paid": paid_for(item, 1, before=orders.settled(item)),
            "shipped_value": paid_for(item, item["fulfilled_quantity"]),
            "open": orders.open_units(item),
            "kept": item["fulfilled_quantity"] - item["returned_quantity"]}


@router.get("/dashboard/orders/{order_id}")
async def order_page(request: Request, w: WorldDep, order_id: OrderId,
                     done: Text = "") -> Response:
    order = _order(w, order_id)
    lines = [_line(item) for item in orders.items_of(w, order)]
    returns = [{**r, "lines": loads(r["items"]) or []} for r in sql.rows(
        w.db, "SELECT * FROM returns WHERE order_id = ? ORDER BY id", (order_id,))]
    return page(
        request, "order.html", order=order, lines=lines, returns=returns,
        names={line["id"]: line["name"] for line in lines},
        shipments=sql.rows(w.db, "SELECT * FROM fulfillments WHERE order_id = ? ORDER BY id",
                           (order_id,)),
        shipped_value=sum(line["shipped_value"] for line in lines),
        returnable=any(line["kept"] > 0 for line in lines),
        cancelable=order["status"] != "cancelled" and any(line["open"] for line in lines),
        done=done[:120])


def _returns(w: World, order_id: int) -> int:
    """How many returns the order has (the returns form's ``seen``)."""
    found = w.db.execute("SELECT count(*) AS n FROM returns WHERE order_id = ?",
                         (order_id,)).fetchone()
    return int(found["n"])


def _units(given: Any) -> list[ItemQuantity]:
    """The ``quantity[item_<id>]`` fields filled in with more than zero units."""
    if not isinstance(given, dict):
        raise refused("Return quantity: enter how many units of each item came back.",
                      "parameter_invalid", "items")
    asked = []
    for item_id, count in given.items():
        text = str(count).strip()
        if not text or text == "0":
            continue
        item_id = item_id.removeprefix("item_")
        if not (text.isdigit() and item_id.isdigit()):
            raise refused(f"Return quantity '{text[:20]}' is not a whole number of units.",
                          "parameter_invalid", "items")
        asked.append(ItemQuantity(item_id=int(item_id), quantity=int(text)))
    if not asked:
        raise refused("Return quantity: enter how many units of at least one item came back.",
                      "parameter_missing", "items")
    return asked


@router.post("/dashboard/orders/{order_id}/returns")
@performs("create_return")
async def create_return(request: Request, w: WorldDep, order_id: OrderId,
                        form: Form) -> Response:
    order = _order(w, order_id)
    unchanged(form, _returns(w, order_id), "order")
    refund = "refund" in form
    body = ReturnCreate(
        items=_units(form.get("quantity", {})), restock="restock" in form, refund=refund,
        amount=minor(form.get("amount"), order["currency"], "amount") if refund else None,
        reason=str(form.get("reason") or "").strip()[:500] or None)
    sends(request, body.model_dump(mode="json", exclude_none=True))
    made = write(w, lambda: orders.create_return(
        w, order, asked=body.items, restock=body.restock, refund=body.refund,
        amount=body.amount, reason=body.reason))
    return redirect(request, f"/dashboard/orders/{order_id}",
                    done=f"Return {made['id']} recorded.")


def _what_cancel_did(intent: Row, refunded: int) -> str:
    """What cancelling did with the order's money (``intent`` as it was before;
    ``refunded``: what the cancellation refunded), in the store's words."""
    paid = amount(intent["amount"], intent["currency"])
    if refunded:
        return f"We refunded {amount(refunded, intent['currency'])} to the customer's card."
    if intent["status"] == "requires_capture":
        return (f"No refund was needed: the {paid} was only authorized on the customer's card, "
                "and that authorization was released before anything was charged.")
    if intent["status"] == "canceled":
        return (f"No refund was needed: the {paid} was only authorized on the customer's card, "
                "and that authorization expired before anything was charged.")
    return "No money was refunded."


@router.post("/dashboard/orders/{order_id}/cancel")
@performs("cancel_order")
async def cancel(request: Request, w: WorldDep, order_id: OrderId, form: Form) -> Response:
    """The store's cancel of everything not shipped; the notice says what it did with the
    money (refunded, or an authorization released or already expired)."""
    order = _order(w, order_id)
    body = OrderCancel(reason=str(form.get("reason") or "").strip()[:500] or None)
    sends(request, body.model_dump(mode="json", exclude_none=True))
    intent = w.objects.row("payment_intents", order["payment_intent"], kind="payment_intent")
    before = _refunded(w, intent)
    write(w, lambda: orders.cancel(w, order, asked=None, reason=body.reason))
    said = _what_cancel_did(intent, _refunded(w, intent) - before)
    return redirect(request, f"/dashboard/orders/{order_id}", done=f"Order cancelled. {said}")


def _refunded(w: World, intent: Row) -> int:
    """What the refunds of the intent's payment add up to."""
    charge = sql.one(w.db, "SELECT * FROM charges WHERE stripe_id = ?", (intent["latest_charge"],))
    return refunds.refunded(w, charge) if charge else 0
