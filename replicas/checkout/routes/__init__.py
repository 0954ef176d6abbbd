"""The checkout's API, Stripe's paths under /v1, one router per area, assembled into
:data:`router`."""

from __future__ import annotations

from fastapi import APIRouter

from . import (
    catalog,
    charges,
    coupons,
    credit_notes,
    customer_balance,
    customers,
    disputes,
    events,
    invoices,
    payment_intents,
    payment_methods,
    payouts,
    refunds,
    search,
    sessions,
    store,
    subscriptions,
    unrecognized,
)

router = APIRouter()
# Flattened rather than include_router'ed (route matching pays for every nesting level).
for module in (search, customers, customer_balance, catalog, payment_methods, payment_intents,
               charges, refunds, disputes, events, coupons, sessions, subscriptions, invoices,
               credit_notes, payouts, store):
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
    {"name": "coupons", "description": "Coupons and the promotion codes customers type."},
    {"name": "checkout_sessions", "description": "The hosted checkout's payments: line items, "
     "discounts, expiry."},
    {"name": "subscriptions", "description": "Recurring billing: trials, renewals on the "
     "episode's clock, past due, cancellation."},
    {"name": "invoices", "description": "Invoices: drafts, finalize, pay, void, uncollectible."},
    {"name": "credit_notes", "description": "Credit notes: reductions of finalized invoices "
     "(refunds, customer credit)."},
    {"name": "payouts", "description": "The account's balance, its transactions (charges less "
     "fees, refunds, payouts) and payouts to the bank."},
    {"name": "store", "description": "The shop's own API (not Stripe's): orders, "
     "cancellations, returns, stock, customer accounts."},
]

# The browser's pages (replicas/checkout/pages): HTML, outside the agent's OpenAPI.
from ..pages import router as pages  # noqa: E402 - after the API's routes, which match first

router.routes.extend(pages.routes)
# Last: whatever else is asked under /v1 is Stripe's "Unrecognized request URL".
router.routes.extend(unrecognized.router.routes)
