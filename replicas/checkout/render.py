"""Rows as Stripe objects, and ``expand[]``.

Each converter takes a row and the episode's clock (Unix seconds) and returns the object as
Stripe's API shows it: ``id`` is the row's Stripe id, ``object`` names its kind, references
are ids. ``expand`` replaces the references it names (``customer``, ``latest_charge.customer``,
``data.customer`` on a list) by the objects, to the depth Stripe allows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from replicas.runtime import db as sql

from .discounts import coupon_valid
from .errors import InvalidRequestError, ResourceMissing
from .ids import table_of
from .schemas import stripe as out
from .schemas.stripe import unset

Row = dict[str, Any]
# The API version this replica answers as (events carry it).
API_VERSION = "2025-06-30.basil"
EVIDENCE_FIELDS = (
    "access_activity_log", "billing_address", "cancellation_policy_disclosure",
    "cancellation_rebuttal", "customer_email_address", "customer_name", "customer_purchase_ip",
    "duplicate_charge_explanation", "duplicate_charge_id", "product_description",
    "refund_policy_disclosure", "refund_refusal_explanation", "service_date",
    "shipping_address", "shipping_carrier", "shipping_date", "shipping_tracking_number",
    "uncategorized_text",
)
# Evidence given as files: not kept (null).
FILE_EVIDENCE = (
    "cancellation_policy", "customer_communication", "customer_signature",
    "duplicate_charge_documentation", "receipt", "refund_policy", "service_documentation",
    "shipping_documentation", "uncategorized_file",
)
MAX_EXPAND_DEPTH = 4
# Where an open Checkout Session is paid: the checkout page's path on the app (pages/).
CHECKOUT_PAGE = "/pay/{session}"


def loads(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


def _common(row: Row, kind: str) -> Row:
    return {"id": row["stripe_id"], "object": kind, "created": row["created"],
            "livemode": False, "metadata": loads(row["metadata"])}


def customer(row: Row, now: int) -> Row:
    if row["deleted"]:
        return {"id": row["stripe_id"], "object": "customer", "deleted": True}
    return {**_common(row, "customer"), "address": None, "balance": row["balance"],
            "currency": row["currency"], "default_source": None, "delinquent": False,
            "description": row["description"], "email": row["email"], "name": row["name"],
            "phone": row["phone"], "preferred_locales": loads(row["preferred_locales"]),
            "shipping": None, "tax_exempt": "none",
            "invoice_settings": unset(out.InvoiceSettings)}


def product(row: Row, now: int) -> Row:
    return {**_common(row, "product"), "active": bool(row["active"]),
            "default_price": row["default_price"], "description": row["description"],
            "images": [], "name": row["name"], "updated": row["updated"], "url": row["url"],
            "marketing_features": [], "type": "service", **unset(out.Product)}


def price(row: Row, now: int) -> Row:
    recurring = None if row["recurring_interval"] is None else {
        "interval": row["recurring_interval"],
        "interval_count": row["recurring_interval_count"], "usage_type": "licensed",
        **unset(out.RecurringOut)}
    return {**_common(row, "price"), "active": bool(row["active"]),
            "billing_scheme": "per_unit", "currency": row["currency"],
            "lookup_key": row["lookup_key"], "nickname": row["nickname"],
            "product": row["product"], "recurring": recurring, "tax_behavior": "unspecified",
            "type": row["type"], "unit_amount": row["unit_amount"],
            "unit_amount_decimal": str(row["unit_amount"]), **unset(out.Price)}


def _billing(row: Row) -> Row:
    return {"email": row["billing_email"], "name": row["billing_name"],
            **unset(out.BillingDetailsOut)}


def payment_method(row: Row, now: int) -> Row:
    return {**_common(row, "payment_method"), "billing_details": _billing(row),
            "card": {"brand": row["brand"], "checks": {
                "address_line1_check": None, "address_postal_code_check": None,
                "cvc_check": "unchecked"}, "country": row["country"],
                "exp_month": row["exp_month"], "exp_year": row["exp_year"],
                "fingerprint": row["fingerprint"], "funding": row["funding"],
                "last4": row["last4"],
                "three_d_secure_usage": {"supported": True},
                "networks": {"available": [row["brand"]], "preferred": None},
                **unset(out.CardOut)},
            "customer": row["customer"], "type": row["type"]}


def payment_intent(row: Row, now: int) -> Row:
    return {**_common(row, "payment_intent"), "amount": row["amount"],
            "amount_capturable": row["amount_capturable"],
            "amount_received": row["amount_received"],
            "automatic_payment_methods": None if row["automatic_payment_methods"] is None else {
                "allow_redirects": row["automatic_payment_methods"], "enabled": True},
            "canceled_at": row["canceled_at"], "cancellation_reason": row["cancellation_reason"],
            "capture_method": row["capture_method"], "client_secret": row["client_secret"],
            "confirmation_method": "automatic", "currency": row["currency"],
            "customer": row["customer"], "description": row["description"],
            "last_payment_error": loads(row["last_payment_error"]),
            "latest_charge": row["latest_charge"], "next_action": loads(row["next_action"]),
            "payment_method": row["payment_method"], "payment_method_types": ["card"],
            "receipt_email": row["receipt_email"], "status": row["status"],
            **unset(out.PaymentIntent)}


def charge(row: Row, method: Row | None, moved: str | None) -> Row:
    """A charge (``method``: its PaymentMethod's row, for the card's details; ``moved``: the
    balance transaction of its captured funds, if any)."""
    card = {"brand": method["brand"], "country": method["country"],
            "exp_month": method["exp_month"], "exp_year": method["exp_year"],
            "funding": method["funding"], "last4": method["last4"],
            **unset(out.ChargeCard)} if method is not None else {}
    if row["capture_before"] is not None:  # only on an uncaptured authorization
        card["capture_before"] = row["capture_before"]
    details = None if method is None else {"type": "card", "card": card}
    return {**_common(row, "charge"), "amount": row["amount"],
            "amount_captured": row["amount_captured"],
            "amount_refunded": row["amount_refunded"], "balance_transaction": moved,
            "billing_details": _billing(method) if method else None,
            "captured": bool(row["captured"]), "currency": row["currency"],
            "customer": row["customer"], "description": row["description"],
            "disputed": bool(row["disputed"]), "failure_code": row["failure_code"],
            "failure_message": row["failure_message"],
            "outcome": {"network_status": row["network_status"],
                        "reason": row["outcome_reason"], "risk_level": "normal",
                        "seller_message": row["seller_message"], "type": row["outcome_type"],
                        **unset(out.Outcome)},
            "paid": row["status"] == "succeeded", "payment_intent": row["payment_intent"],
            "payment_method": row["payment_method"], "payment_method_details": details,
            "refunded": bool(row["refunded"]), "status": row["status"], **unset(out.Charge)}


def refund(row: Row, moved: str | None, given_back: str | None) -> Row:
    """A refund (``moved``: the balance transaction that took its amount; ``given_back``: the
    one that returned it when the refund failed)."""
    failure = {} if row["failure_reason"] is None else {"failure_reason": row["failure_reason"]}
    if given_back is not None:
        failure["failure_balance_transaction"] = given_back
    refunded = _common(row, "refund")
    del refunded["livemode"]  # Stripe's refund has none
    return {**refunded, "amount": row["amount"], "balance_transaction": moved,
            "charge": row["charge"],
            "currency": row["currency"], **failure, "payment_intent": row["payment_intent"],
            "reason": row["reason"], "status": row["status"], **unset(out.Refund)}


def dispute(row: Row, now: int) -> Row:
    given = loads(row["evidence"])
    open_ = row["status"] in ("needs_response", "warning_needs_response")
    return {**_common(row, "dispute"), "amount": row["amount"], "charge": row["charge"],
            "currency": row["currency"],
            "evidence": {**{name: given.get(name) for name in EVIDENCE_FIELDS},
                         **dict.fromkeys(FILE_EVIDENCE), "enhanced_evidence": {}},
            "evidence_details": {"due_by": row["due_by"], "has_evidence": bool(
                row["has_evidence"]), "past_due": open_ and now > row["due_by"],
                "submission_count": row["submission_count"], "enhanced_eligibility": {}},
            "balance_transactions": [], "enhanced_eligibility_types": [],
            "is_charge_refundable": bool(row["is_charge_refundable"]),
            "payment_intent": row["payment_intent"], "reason": row["reason"],
            "status": row["status"]}


def event(row: Row, now: int) -> Row:
    return {"id": row["stripe_id"], "object": "event", "api_version": API_VERSION,
            "created": row["created"], "data": loads(row["data"]), "livemode": False,
            "pending_webhooks": 0,
            "request": {"id": None, "idempotency_key": row["idempotency_key"]},
            "type": row["type"]}


def _coupon(row: Row, now: int) -> Row:
    return {**_common(row, "coupon"), "amount_off": row["amount_off"],
            "currency": row["currency"], "duration": row["duration"],
            "duration_in_months": row["duration_in_months"],
            "max_redemptions": row["max_redemptions"], "name": row["name"],
            "percent_off": row["percent_off"], "redeem_by": row["redeem_by"],
            "times_redeemed": row["times_redeemed"], "valid": coupon_valid(row, now)}


def coupon(row: Row, now: int) -> Row:
    if row["deleted"]:
        return {"id": row["stripe_id"], "object": "coupon", "deleted": True}
    return _coupon(row, now)


def promotion_code(row: Row, of: Row, now: int) -> Row:
    """A promotion code (``of``: its coupon's row, shown whole; invalid once deleted)."""
    return {**_common(row, "promotion_code"), "active": bool(row["active"]),
            "code": row["code"], "coupon": _coupon(of, now), "customer": row["customer"],
            "expires_at": row["expires_at"], "max_redemptions": row["max_redemptions"],
            "restrictions": {"first_time_transaction": bool(row["first_time_transaction"]),
                             "minimum_amount": row["minimum_amount"],
                             "minimum_amount_currency": row["minimum_amount_currency"]},
            "times_redeemed": row["times_redeemed"]}


def checkout_session(row: Row, now: int) -> Row:
    done = row["status"] == "complete"
    discounts = [] if row["coupon"] is None else [
        {"coupon": row["coupon"], "promotion_code": row["promotion_code"]}]
    return {**_common(row, "checkout.session"),
            "allow_promotion_codes": bool(row["allow_promotion_codes"]),
            "amount_subtotal": row["amount_subtotal"], "amount_total": row["amount_total"],
            "cancel_url": row["cancel_url"], "client_reference_id": row["client_reference_id"],
            "currency": row["currency"], "customer": row["customer"],
            "customer_details": {"email": row["details_email"], "name": row["details_name"],
                                 **unset(out.CustomerDetails)}
            if done else None, "customer_email": row["customer_email"],
            "discounts": discounts, "expires_at": row["expires_at"], "mode": row["mode"],
            "payment_intent": row["payment_intent"], "payment_method_types": ["card"],
            "payment_status": row["payment_status"], "status": row["status"],
            "success_url": row["success_url"],
            "total_details": {"amount_discount": row["amount_discount"],
                              "amount_shipping": row["amount_shipping"], "amount_tax": 0},
            "url": CHECKOUT_PAGE.format(session=row["stripe_id"])
            if row["status"] == "open" else None,
            "automatic_tax": {"enabled": False, **unset(out.AutomaticTax)},
            "custom_fields": [], "custom_text": unset(out.CustomText), "shipping_options": [],
            "ui_mode": "hosted", **unset(out.CheckoutSession)}


def line_item(row: Row, bought: Row) -> Row:
    """A line item of a Checkout Session (``bought``: its price, as an object)."""
    return {"id": row["stripe_id"], "object": "item",
            "amount_discount": row["amount_discount"],
            "amount_subtotal": row["amount_subtotal"], "amount_tax": 0,
            "amount_total": row["amount_total"], "currency": row["currency"],
            "description": row["description"], "price": bought, "quantity": row["quantity"]}


# -- Billing (docs.stripe.com/api/subscriptions, /invoices, /credit_notes,
# /customer_balance_transactions): no tax, no discounts, one issuer (the account itself).
_NO_TAX = {"disabled_reason": None, "enabled": False, "liability": None}
_SELF = {"type": "self"}


def plan(of: Row) -> Row:
    """The legacy Plan a recurring price is also shown as (a subscription item's ``plan``)."""
    return {"id": of["stripe_id"], "object": "plan", "active": bool(of["active"]),
            "amount": of["unit_amount"], "amount_decimal": str(of["unit_amount"]),
            "billing_scheme": "per_unit", "created": of["created"], "currency": of["currency"],
            "interval": of["recurring_interval"],
            "interval_count": of["recurring_interval_count"], "livemode": False,
            "metadata": loads(of["metadata"]), "meter": None, "nickname": of["nickname"],
            "product": of["product"], "tiers_mode": None, "transform_usage": None,
            "trial_period_days": None, "usage_type": "licensed"}


def subscription_item(row: Row, bought: Row, of: Row) -> Row:
    """An item of the subscription ``of`` (``bought``: its price's row)."""
    common = {k: v for k, v in _common(row, "subscription_item").items() if k != "livemode"}
    return {**common, "billing_thresholds": None,
            "current_period_end": of["current_period_end"],
            "current_period_start": of["current_period_start"], "discounts": [],
            "plan": plan(bought), "price": price(bought, 0), "quantity": row["quantity"],
            "subscription": row["subscription"], "tax_rates": []}


def _list(data: list[Row], url: str) -> Row:
    return {"object": "list", "data": data, "has_more": False, "url": url}


def subscription(row: Row, items: list[Row]) -> Row:
    """A subscription (``items``: its items, as objects)."""
    cancellation = {"comment": row["cancellation_comment"],
                    "feedback": row["cancellation_feedback"],
                    "reason": row["cancellation_reason"]}
    return {**_common(row, "subscription"), "application": None,
            "application_fee_percent": None, "automatic_tax": _NO_TAX,
            "billing_cycle_anchor": row["billing_cycle_anchor"],
            "billing_cycle_anchor_config": None, "billing_mode": {"type": "classic"},
            "billing_thresholds": None, "cancel_at": row["cancel_at"],
            "cancel_at_period_end": bool(row["cancel_at_period_end"]),
            "canceled_at": row["canceled_at"], "cancellation_details": cancellation,
            "collection_method": row["collection_method"], "currency": row["currency"],
            "customer": row["customer"], "days_until_due": row["days_until_due"],
            "default_payment_method": row["default_payment_method"], "default_source": None,
            "default_tax_rates": [], "description": row["description"], "discounts": [],
            "ended_at": row["ended_at"],
            "invoice_settings": {"account_tax_ids": None, "issuer": _SELF},
            "items": _list(items, f"/v1/subscription_items?subscription={row['stripe_id']}"),
            "latest_invoice": row["latest_invoice"],
            "next_pending_invoice_item_invoice": None, "on_behalf_of": None,
            "pause_collection": None, "payment_settings": None,
            "pending_invoice_item_interval": None, "pending_setup_intent": None,
            "pending_update": None, "schedule": None, "start_date": row["start_date"],
            "status": row["status"], "test_clock": None, "transfer_data": None,
            "trial_end": row["trial_end"], "trial_settings": None,
            "trial_start": row["trial_start"]}


def invoice_line(row: Row, bought: Row | None) -> Row:
    """A line of an invoice (``bought``: its price's row, if it has one)."""
    parent = None if row["subscription_item"] is None else {
        "type": "subscription_item_details", "invoice_item_details": None,
        "subscription_item_details": {
            "invoice_item": None, "proration": False, "proration_details": None,
            "subscription": row["subscription"],
            "subscription_item": row["subscription_item"]}}
    pricing = None if bought is None else {
        "type": "price_details", "unit_amount_decimal": str(bought["unit_amount"]),
        "price_details": {"price": bought["stripe_id"], "product": bought["product"]}}
    return {"id": row["stripe_id"], "object": "line_item", "amount": row["amount"],
            "currency": row["currency"], "description": row["description"],
            "discount_amounts": [], "discountable": True, "discounts": [],
            "invoice": row["invoice"], "livemode": False, "metadata": loads(row["metadata"]),
            "parent": parent, "period": {"end": row["period_end"], "start": row["period_start"]},
            "pretax_credit_amounts": [], "pricing": pricing, "quantity": row["quantity"],
            "subscription": row["subscription"], "taxes": []}


def invoice(row: Row, lines: list[Row], customer_row: Row) -> Row:
    """An invoice (``lines``: its lines, as objects; ``customer_row``: whom it bills)."""
    due = amount_due(row)
    remaining = 0 if row["status"] in ("paid", "void") else due - row["amount_paid"]
    parent = None if row["subscription"] is None else {
        "type": "subscription_details", "quote_details": None,
        "subscription_details": {"metadata": {}, "subscription": row["subscription"]}}
    final = row["status"] != "draft"
    return {**_common(row, "invoice"), "account_country": "US",
            "account_name": "Coffee Gear Shop", "account_tax_ids": None,
            "amount_due": due, "amount_overpaid": 0, "amount_paid": row["amount_paid"],
            "amount_remaining": remaining, "amount_shipping": 0, "application": None,
            "attempt_count": row["attempt_count"], "attempted": row["attempt_count"] > 0,
            "auto_advance": bool(row["auto_advance"]),
            "automatic_tax": {**_NO_TAX, "provider": None, "status": None},
            "automatically_finalizes_at": None,
            "billing_reason": row["billing_reason"],
            "collection_method": row["collection_method"], "currency": row["currency"],
            "custom_fields": None, "customer": row["customer"], "customer_address": None,
            "customer_email": customer_row["email"], "customer_name": customer_row["name"],
            "customer_phone": customer_row["phone"], "customer_shipping": None,
            "customer_tax_exempt": "none", "customer_tax_ids": [],
            "default_payment_method": row["default_payment_method"], "default_source": None,
            "default_tax_rates": [], "description": row["description"], "discounts": [],
            "due_date": row["due_date"], "effective_at": row["finalized_at"],
            "ending_balance": row["ending_balance"], "footer": None, "from_invoice": None,
            "hosted_invoice_url": None, "invoice_pdf": None, "issuer": _SELF,
            "last_finalization_error": None, "latest_revision": None,
            "lines": _list(lines, f"/v1/invoices/{row['stripe_id']}/lines"),
            "next_payment_attempt": None, "number": row["number"], "on_behalf_of": None,
            "parent": parent, "payment_settings": {
                "default_mandate": None, "payment_method_options": None,
                "payment_method_types": None},
            "period_end": row["period_end"], "period_start": row["period_start"],
            "post_payment_credit_notes_amount": row["post_payment_credit_notes_amount"],
            "pre_payment_credit_notes_amount": row["pre_payment_credit_notes_amount"],
            "receipt_number": None, "rendering": None, "shipping_cost": None,
            "shipping_details": None, "starting_balance": row["starting_balance"],
            "statement_descriptor": None, "status": row["status"],
            "status_transitions": {
                "finalized_at": row["finalized_at"] if final else None,
                "marked_uncollectible_at": row["marked_uncollectible_at"],
                "paid_at": row["paid_at"], "voided_at": row["voided_at"]},
            "subtotal": row["subtotal"], "subtotal_excluding_tax": row["subtotal"],
            "test_clock": None, "total": row["total"], "total_discount_amounts": [],
            "total_excluding_tax": row["total"], "total_pretax_credit_amounts": [],
            "total_taxes": [], "webhooks_delivered_at": row["finalized_at"] if final else None}


def applied_balance(row: Row) -> int:
    """The customer's balance an invoice took when it was finalized (a credit: negative)."""
    return 0 if row["ending_balance"] is None else row["starting_balance"] - row[
        "ending_balance"]


def amount_due(row: Row) -> int:
    """What an invoice asks: its total, less its credit notes before payment, with the
    customer's balance it took (never below 0)."""
    due: int = row["total"] - row["pre_payment_credit_notes_amount"] + applied_balance(row)
    return max(0, due)


def credit_note_line(row: Row) -> Row:
    return {"id": row["stripe_id"], "object": "credit_note_line_item",
            "amount": row["amount"], "description": row["description"],
            "discount_amount": 0, "discount_amounts": [],
            **({"invoice_line_item": row["invoice_line_item"]}
               if row["invoice_line_item"] else {}),
            "livemode": False, "pretax_credit_amounts": [], "quantity": row["quantity"],
            "tax_rates": [], "taxes": [], "type": row["type"],
            "unit_amount": row["unit_amount"],
            "unit_amount_decimal": None if row["unit_amount"] is None
            else str(row["unit_amount"])}


def credit_note(row: Row, lines: list[Row], balance_transaction: str | None) -> Row:
    """A credit note (``lines``: its lines, as objects; ``balance_transaction``: the customer
    balance transaction that credited it, if any)."""
    post = row["type"] == "post_payment"
    refunds = [] if row["refund"] is None else [
        {"amount_refunded": row["refund_amount"], "refund": row["refund"]}]
    return {**_common(row, "credit_note"), "amount": row["amount"], "amount_shipping": 0,
            "currency": row["currency"], "customer": row["customer"],
            "customer_balance_transaction": balance_transaction, "discount_amount": 0,
            "discount_amounts": [], "effective_at": row["created"], "invoice": row["invoice"],
            "lines": _list(lines, f"/v1/credit_notes/{row['stripe_id']}/lines"),
            "memo": row["memo"], "number": row["number"],
            "out_of_band_amount": row["out_of_band_amount"], "pdf": "",
            "post_payment_amount": row["amount"] if post else 0,
            "pre_payment_amount": 0 if post else row["amount"],
            "pretax_credit_amounts": [], "reason": row["reason"], "refunds": refunds,
            "shipping_cost": None, "status": row["status"], "subtotal": row["amount"],
            "subtotal_excluding_tax": row["amount"], "total": row["amount"],
            "total_excluding_tax": row["amount"], "total_taxes": [], "type": row["type"],
            "voided_at": row["voided_at"]}


def customer_balance_transaction(row: Row, now: int) -> Row:
    return {**_common(row, "customer_balance_transaction"), "amount": row["amount"],
            "checkout_session": None, "credit_note": row["credit_note"],
            "currency": row["currency"], "customer": row["customer"],
            "description": row["description"], "ending_balance": row["ending_balance"],
            "invoice": row["invoice"], "type": row["type"]}


# -- The account's balance (docs.stripe.com/api/balance_transactions, /api/payouts)
REPORTING = {"charge": "charge", "refund": "refund", "refund_failure": "refund_failure",
             "payout": "payout", "payout_cancel": "payout_reversal"}


def balance_transaction(row: Row, now: int) -> Row:
    fees = [{"amount": row["fee"], "application": None, "currency": row["currency"],
             "description": "Stripe processing fees", "type": "stripe_fee"}] if row["fee"] else []
    return {"id": row["stripe_id"], "object": "balance_transaction", "amount": row["amount"],
            "available_on": row["available_on"], "balance_type": "payments",
            "created": row["created"], "currency": row["currency"],
            "description": row["description"], "exchange_rate": None, "fee": row["fee"],
            "fee_details": fees, "net": row["amount"] - row["fee"],
            "reporting_category": REPORTING[row["type"]], "source": row["source"],
            "status": "available" if row["available_on"] <= now else "pending",
            "type": row["type"]}


def payout(row: Row, now: int) -> Row:
    reconciled = ("completed" if row["status"] == "paid" else "in_progress") \
        if row["automatic"] else "not_applicable"
    return {**_common(row, "payout"), "amount": row["amount"], "application_fee": None,
            "application_fee_amount": None, "arrival_date": row["arrival_date"],
            "automatic": bool(row["automatic"]),
            "balance_transaction": row["balance_transaction"], "currency": row["currency"],
            "description": row["description"], "destination": None,
            "failure_balance_transaction": None, "failure_code": None,
            "failure_message": None, "method": row["method"], "original_payout": None,
            "reconciliation_status": reconciled, "reversed_by": None, "source_type": "card",
            "statement_descriptor": row["statement_descriptor"], "status": row["status"],
            "trace_id": None, "type": "bank_account"}


# What each kind's references may be expanded to (Stripe's expandable fields).
EXPANDABLE: dict[str, frozenset[str]] = {
    "payment_intent": frozenset({"customer", "payment_method", "latest_charge"}),
    "charge": frozenset({"customer", "payment_intent", "balance_transaction"}),
    "refund": frozenset({"charge", "payment_intent", "balance_transaction",
                         "failure_balance_transaction"}),
    "dispute": frozenset({"charge", "payment_intent"}),
    "payment_method": frozenset({"customer"}),
    "price": frozenset({"product"}),
    "product": frozenset({"default_price"}),
    "promotion_code": frozenset({"customer"}),
    "checkout.session": frozenset({"customer", "payment_intent"}),
    "subscription": frozenset({"customer", "default_payment_method", "latest_invoice"}),
    "invoice": frozenset({"customer", "default_payment_method", "subscription"}),
    "credit_note": frozenset({"customer", "invoice", "customer_balance_transaction"}),
    "customer_balance_transaction": frozenset({"customer", "invoice", "credit_note"}),
    "balance_transaction": frozenset({"source"}),
    "payout": frozenset({"balance_transaction"}),
}


class Objects:
    """The objects of one episode's database at its clock: by id, rendered, expanded."""

    def __init__(self, db: sqlite3.Connection, now: int) -> None:
        self.db = db
        self.now = now

    def row(self, table: str, object_id: str, *, kind: str, param: str = "id") -> Row:
        """The row of the object ``object_id`` of ``table``, or resource_missing."""
        found = sql.one(self.db, f"SELECT * FROM {table} WHERE stripe_id = ?", (object_id,))
        if found is None:
            raise ResourceMissing(kind, object_id, param=param)
        return found

    def render(self, table: str, row: Row) -> Row:
        if table == "charges":
            method = sql.one(self.db, "SELECT * FROM payment_methods WHERE stripe_id = ?",
                             (row["payment_method"],)) if row["payment_method"] else None
            return charge(row, method, self._moved(row["stripe_id"], "charge"))
        if table == "refunds":
            return refund(row, self._moved(row["stripe_id"], "refund"),
                          self._moved(row["stripe_id"], "refund_failure"))
        if table == "promotion_codes":
            return promotion_code(row, self.row("coupons", row["coupon"], kind="coupon"),
                                  self.now)
        if table == "checkout_line_items":
            return line_item(row, price(self.row("prices", row["price"], kind="price"),
                                        self.now))
        if table in BILLING:
            return BILLING[table](self, row)
        convert: Callable[[Row, int], Row] = CONVERTERS[table]
        return convert(row, self.now)

    def _moved(self, source: str, kind: str) -> str | None:
        """The id of ``source``'s balance transaction of type ``kind``, if it has one."""
        found = sql.one(self.db, "SELECT stripe_id FROM balance_transactions WHERE source = ? "
                        "AND type = ? ORDER BY id LIMIT 1", (source, kind))
        return None if found is None else str(found["stripe_id"])

    def _subscription(self, row: Row) -> Row:
        return subscription(row, [self._subscription_item(item, row) for item in sql.rows(
            self.db, "SELECT * FROM subscription_items WHERE subscription = ? ORDER BY id",
            (row["stripe_id"],))])

    def _subscription_item(self, row: Row, of: Row | None = None) -> Row:
        return subscription_item(row, self.row("prices", row["price"], kind="price"), of or (
            self.row("subscriptions", row["subscription"], kind="subscription")))

    def invoice_lines(self, invoice_id: str) -> list[Row]:
        return [self._invoice_line(line) for line in sql.rows(
            self.db, "SELECT * FROM invoice_lines WHERE invoice = ? ORDER BY id",
            (invoice_id,))]

    def _invoice_line(self, row: Row) -> Row:
        return invoice_line(row, row["price"] and self.row("prices", row["price"],
                                                           kind="price"))

    def _invoice(self, row: Row) -> Row:
        return invoice(row, self.invoice_lines(row["stripe_id"]),
                       self.row("customers", row["customer"], kind="customer"))

    def credit_note_lines(self, note_id: str) -> list[Row]:
        return [credit_note_line(line) for line in sql.rows(
            self.db, "SELECT * FROM credit_note_lines WHERE credit_note = ? ORDER BY id",
            (note_id,))]

    def _credit_note(self, row: Row) -> Row:
        found = sql.one(self.db, "SELECT stripe_id FROM customer_balance_transactions WHERE "
                        "credit_note = ? ORDER BY id LIMIT 1", (row["stripe_id"],))
        return credit_note(row, self.credit_note_lines(row["stripe_id"]),
                           None if found is None else str(found["stripe_id"]))

    def line_items(self, session: str) -> Row:
        """A Checkout Session's line items, as ``expand[]=line_items`` includes them."""
        found = sql.rows(self.db, "SELECT * FROM checkout_line_items WHERE session = ? "
                         "ORDER BY id", (session,))
        return {"object": "list", "data": [self.render("checkout_line_items", r)
                                           for r in found],
                "has_more": False, "url": f"/v1/checkout/sessions/{session}/line_items"}

    def get(self, object_id: str) -> Row | None:
        """The object ``object_id`` (any kind), rendered; None if there is none."""
        table = table_of(object_id)
        if table is None:
            return None
        row = sql.one(self.db, f"SELECT * FROM {table} WHERE stripe_id = ?", (object_id,))
        return None if row is None else self.render(table, row)

    def expand(self, obj: Row, paths: Sequence[str], *, param: str = "expand") -> Row:
        """``obj`` with the references ``paths`` name replaced by their objects."""
        for path in paths:
            if path.count(".") >= MAX_EXPAND_DEPTH:
                raise InvalidRequestError(
                    f"You cannot expand more than {MAX_EXPAND_DEPTH} levels of a property. "
                    f"Property: {path}", code="parameter_invalid", param=param)
            self._expand(obj, path.split("."), path, param)
        return obj

    def _expand(self, obj: Row, parts: list[str], path: str, param: str) -> None:
        head, rest = parts[0], parts[1:]
        value = obj.get(head)
        if head == "line_items" and obj.get("object") == "checkout.session":
            value = obj[head] = self.line_items(obj["id"])
        elif isinstance(value, str) and head in EXPANDABLE.get(obj.get("object", ""), ()):
            value = obj[head] = self.get(value) or value
        elif not isinstance(value, dict) and value is not None:
            raise InvalidRequestError(f"This property cannot be expanded ({path}).",
                                      code="parameter_invalid", param=param)
        if rest and isinstance(value, dict):
            self._expand(value, rest, path, param)


BILLING: dict[str, Callable[[Objects, Row], Row]] = {
    "subscriptions": Objects._subscription, "subscription_items": Objects._subscription_item,
    "invoices": Objects._invoice, "invoice_lines": Objects._invoice_line,
    "credit_notes": Objects._credit_note,
    "credit_note_lines": lambda _, row: credit_note_line(row),
}
CONVERTERS: dict[str, Callable[[Row, int], Row]] = {
    "customers": customer, "products": product, "prices": price,
    "payment_methods": payment_method, "payment_intents": payment_intent,
    "disputes": dispute, "events": event, "coupons": coupon,
    "checkout_sessions": checkout_session,
    "customer_balance_transactions": customer_balance_transaction,
    "balance_transactions": balance_transaction, "payouts": payout,
}
