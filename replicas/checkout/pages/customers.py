"""The dashboard's customers::

    GET /dashboard/customers          customers, newest first; ?q= searches name and email
    GET /dashboard/customers/{cus}    one customer: details, payment methods, payments, orders
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime import db as sql

from ..deps import WorldDep
from .dashboard import PER_PAGE, DashboardRoute, ObjectPath, Text, page
from .payments import REFUNDED, shown_status

router = APIRouter(route_class=DashboardRoute, include_in_schema=False)


@router.get("/dashboard/customers")
async def customers_page(request: Request, w: WorldDep, q: Text = "") -> Response:
    like = f"%{q.strip().lower()}%"
    found = sql.rows(w.db, "SELECT * FROM customers WHERE deleted = 0 AND (lower(email) LIKE ? "
                     "OR lower(name) LIKE ?) ORDER BY created DESC, id DESC LIMIT ?",
                     (like, like, PER_PAGE))
    return page(request, "customers.html", customers=found, q=q)


@router.get("/dashboard/customers/{customer_id}")
async def customer_page(request: Request, w: WorldDep, customer_id: ObjectPath) -> Response:
    customer = w.objects.row("customers", customer_id, kind="customer")
    payments = sql.rows(w.db, f"SELECT p.*, c.disputed, c.amount_captured, {REFUNDED} AS "
                        "refunded_sum, c.stripe_id AS charge_id FROM payment_intents p "
                        "LEFT JOIN charges c "
                        "ON c.stripe_id = p.latest_charge WHERE p.customer = ? "
                        "ORDER BY p.created DESC, p.id DESC", (customer["stripe_id"],))
    return page(
        request, "customer.html", customer=customer,
        methods=sql.rows(w.db, "SELECT * FROM payment_methods WHERE customer = ? "
                         "ORDER BY created DESC, id DESC", (customer["stripe_id"],)),
        payments=[{**p, "shown_status": shown_status(p)} for p in payments],
        orders=sql.rows(w.db, "SELECT * FROM orders WHERE customer = ? "
                        "ORDER BY placed_at DESC, id DESC", (customer["stripe_id"],)))
