"""The checkout's API, Stripe's paths under /v1, one router per area, assembled into
:data:`router`."""

from __future__ import annotations

from fastapi import APIRouter

from . import (
    catalog,
    charges,
    customers,
    disputes,
    events,
    payment_intents,
    payment_methods,
    refunds,
)

router = APIRouter()
# Flattened rather than include_router'ed (route matching pays for every nesting level).
for module in (customers, catalog, payment_methods, payment_intents, charges, refunds,
               disputes, events):
    router.routes.extend(module.router.routes)

TAGS = [
    {"name": "customers", "description": "Customers."},
    {"name": "catalog", "description": "Products and prices."},
    {"name": "payment_methods", "description": "Cards, and the customers they belong to."},
    {"name": "payment_intents", "description": "Payments: confirm, 3-D Secure, capture, "
     "cancel."},
    {"name": "charges", "description": "Payment attempts (read-only)."},
    {"name": "refunds", "description": "Refunds of captured charges."},
    {"name": "disputes", "description": "Chargebacks and inquiries: evidence, closing."},
    {"name": "events", "description": "What changed, with each object as it was."},
]
