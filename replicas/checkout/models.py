"""The checkout's schema: one SQLModel table class per Stripe object (replicas/runtime/world.py
compiles the DDL from their metadata).

Every table has WorkGym's integer ``id`` (what row operations, the diff and verifiers key on)
and the object's Stripe id, ``stripe_id`` (``cus_...``, ``pi_...``: what the API calls
``id``). References between objects hold Stripe ids under Stripe's field names
(``payment_intents.customer = 'cus_...'``), so rows read like the objects they render.
Times are Unix seconds (``created``); money is an integer in the currency's minor unit with
a lowercase ISO code; ``metadata`` and the other JSON columns hold JSON text.

The store's own records (orders and their items, shipments and returns, stock, customer
accounts: not Stripe's) have only the integer ``id`` and ISO 8601 times, as WorkGym's other
apps; they refer to Stripe objects by Stripe id (``orders.payment_intent``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


def metadata() -> Any:
    """Stripe's ``metadata`` (JSON text; ``metadata`` itself is taken by SQLModel)."""
    return Field(default="{}", sa_column_kwargs={"name": "metadata", "server_default": "{}"})


class CheckoutModel(SQLModel, registry=registry()):
    """Base of checkout tables: its own metadata, so other replicas' tables never mix in."""


class Customer(CheckoutModel, table=True):
    __tablename__ = "customers"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    email: str | None = Field(default=None, index=True)
    name: str | None = None
    phone: str | None = None
    description: str | None = None
    currency: str | None = None  # set by the first payment
    preferred_locales: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})
    deleted: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    # What the customer owes (positive) or is owed (negative: credit), in ``currency``: the
    # sum of its balance transactions (billing.py).
    balance: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    metadata_: str = metadata()
    created: int


class Product(CheckoutModel, table=True):
    __tablename__ = "products"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    name: str
    description: str | None = None
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    default_price: str | None = None  # a price's Stripe id (prices refer back: no FK)
    url: str | None = None
    metadata_: str = metadata()
    created: int
    updated: int


class Price(CheckoutModel, table=True):
    __tablename__ = "prices"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    product: str = Field(foreign_key="products.stripe_id", index=True)
    currency: str
    unit_amount: int
    type: str  # one_time | recurring
    recurring_interval: str | None = None  # day | week | month | year
    recurring_interval_count: int | None = None
    nickname: str | None = None
    lookup_key: str | None = None
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    metadata_: str = metadata()
    created: int


class PaymentMethod(CheckoutModel, table=True):
    __tablename__ = "payment_methods"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    type: str  # card
    customer: str | None = Field(default=None, foreign_key="customers.stripe_id", index=True)
    brand: str
    last4: str
    exp_month: int
    exp_year: int
    funding: str
    country: str
    fingerprint: str
    # Which test card it is (cards.py): what every payment with it does. Never rendered.
    test_card: str
    billing_name: str | None = None
    billing_email: str | None = None
    metadata_: str = metadata()
    created: int


class PaymentIntent(CheckoutModel, table=True):
    __tablename__ = "payment_intents"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    amount: int
    currency: str
    # requires_payment_method | requires_confirmation | requires_action | processing |
    # requires_capture | succeeded | canceled
    status: str = Field(index=True)
    customer: str | None = Field(default=None, foreign_key="customers.stripe_id", index=True)
    payment_method: str | None = Field(default=None, foreign_key="payment_methods.stripe_id")
    capture_method: str  # automatic | automatic_async | manual
    # automatic_payment_methods[allow_redirects] when they are on (always | never), else None
    automatic_payment_methods: str | None = None
    amount_capturable: int = 0
    amount_received: int = 0
    description: str | None = None
    receipt_email: str | None = None
    latest_charge: str | None = None  # a charge's Stripe id (charges refer back: no FK)
    last_payment_error: str | None = None  # JSON: Stripe's error object
    next_action: str | None = None  # JSON: what the customer must do (3-D Secure)
    return_url: str | None = None
    client_secret: str
    cancellation_reason: str | None = None
    canceled_at: int | None = None
    metadata_: str = metadata()
    created: int


class Charge(CheckoutModel, table=True):
    __tablename__ = "charges"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    payment_intent: str | None = Field(default=None, foreign_key="payment_intents.stripe_id",
                                       index=True)
    customer: str | None = Field(default=None, foreign_key="customers.stripe_id", index=True)
    payment_method: str | None = Field(default=None, foreign_key="payment_methods.stripe_id")
    amount: int
    amount_captured: int = 0
    # Refunds that did not fail or get canceled, plus an authorization's released remainder.
    amount_refunded: int = 0
    currency: str
    status: str  # succeeded | pending | failed
    captured: bool = False
    refunded: bool = False
    disputed: bool = False
    failure_code: str | None = None
    failure_message: str | None = None
    outcome_type: str  # authorized | issuer_declined | blocked | invalid
    outcome_reason: str | None = None  # the decline code
    network_status: str  # approved_by_network | declined_by_network | not_sent_to_network
    seller_message: str
    capture_before: int | None = None  # when an uncaptured authorization expires
    description: str | None = None
    metadata_: str = metadata()
    created: int


class Refund(CheckoutModel, table=True):
    __tablename__ = "refunds"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    charge: str = Field(foreign_key="charges.stripe_id", index=True)
    payment_intent: str | None = Field(default=None, foreign_key="payment_intents.stripe_id",
                                       index=True)
    amount: int
    currency: str
    status: str  # pending | requires_action | succeeded | failed | canceled
    reason: str | None = None  # duplicate | fraudulent | requested_by_customer
    failure_reason: str | None = None
    # An asynchronous refund (cards.RefundOutcome): when it settles, and to what. Not rendered.
    settles_at: int | None = Field(default=None, index=True)
    settles_to: str | None = None  # succeeded | failed
    metadata_: str = metadata()
    created: int


class Dispute(CheckoutModel, table=True):
    __tablename__ = "disputes"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    charge: str = Field(foreign_key="charges.stripe_id", index=True)
    payment_intent: str | None = Field(default=None, foreign_key="payment_intents.stripe_id",
                                       index=True)
    amount: int
    currency: str
    # warning_needs_response | warning_under_review | warning_closed | needs_response |
    # under_review | won | lost
    status: str = Field(index=True)
    reason: str
    evidence: str = Field(default="{}", sa_column_kwargs={"server_default": "{}"})  # JSON
    due_by: int
    has_evidence: bool = False
    submission_count: int = 0
    is_charge_refundable: bool = False
    metadata_: str = metadata()
    created: int


class Event(CheckoutModel, table=True):
    __tablename__ = "events"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    type: str = Field(index=True)
    data: str  # JSON: {"object": <the object as it was>}
    idempotency_key: str | None = None
    created: int


class Coupon(CheckoutModel, table=True):
    __tablename__ = "coupons"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)  # no prefix: 8 random characters, or chosen
    name: str | None = None
    percent_off: float | None = None  # either this
    amount_off: int | None = None  # or this, in ``currency``
    currency: str | None = None
    duration: str  # once | repeating | forever
    duration_in_months: int | None = None
    max_redemptions: int | None = None
    redeem_by: int | None = None
    times_redeemed: int = 0
    deleted: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    metadata_: str = metadata()
    created: int


class PromotionCode(CheckoutModel, table=True):
    __tablename__ = "promotion_codes"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    code: str = Field(index=True)  # what customers type (matched regardless of case)
    coupon: str = Field(foreign_key="coupons.stripe_id", index=True)
    customer: str | None = Field(default=None, foreign_key="customers.stripe_id")
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    expires_at: int | None = None
    max_redemptions: int | None = None
    times_redeemed: int = 0
    first_time_transaction: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    minimum_amount: int | None = None
    minimum_amount_currency: str | None = None
    metadata_: str = metadata()
    created: int


class CheckoutSession(CheckoutModel, table=True):
    __tablename__ = "checkout_sessions"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    status: str = Field(index=True)  # open | complete | expired
    payment_status: str  # unpaid | paid | no_payment_required
    mode: str  # payment
    customer: str | None = Field(default=None, foreign_key="customers.stripe_id", index=True)
    customer_email: str | None = None  # given when it was created
    details_email: str | None = None  # customer_details: given when it was completed
    details_name: str | None = None
    currency: str
    amount_subtotal: int
    amount_discount: int = 0
    amount_shipping: int = 0  # the shop's own sessions charge shipping (not via this API)
    amount_total: int
    allow_promotion_codes: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    coupon: str | None = Field(default=None, foreign_key="coupons.stripe_id")
    promotion_code: str | None = Field(default=None, foreign_key="promotion_codes.stripe_id")
    payment_intent: str | None = Field(default=None, foreign_key="payment_intents.stripe_id",
                                       index=True)
    # payment_intent_data: what the PaymentIntent it makes is given.
    intent_description: str | None = None
    intent_metadata: str = Field(default="{}", sa_column_kwargs={"server_default": "{}"})
    client_reference_id: str | None = None
    success_url: str | None = None
    cancel_url: str | None = None
    expires_at: int
    metadata_: str = metadata()
    created: int


class CheckoutLineItem(CheckoutModel, table=True):
    __tablename__ = "checkout_line_items"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    session: str = Field(foreign_key="checkout_sessions.stripe_id", index=True)
    price: str = Field(foreign_key="prices.stripe_id")
    description: str
    quantity: int
    currency: str
    amount_subtotal: int
    amount_discount: int = 0
    amount_total: int
    created: int


class Subscription(CheckoutModel, table=True):
    __tablename__ = "subscriptions"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    customer: str = Field(foreign_key="customers.stripe_id", index=True)
    # incomplete | incomplete_expired | trialing | active | past_due | unpaid | canceled
    status: str = Field(index=True)
    currency: str
    collection_method: str  # charge_automatically | send_invoice
    days_until_due: int | None = None
    default_payment_method: str | None = Field(default=None,
                                               foreign_key="payment_methods.stripe_id")
    description: str | None = None
    current_period_start: int
    current_period_end: int = Field(index=True)
    billing_cycle_anchor: int
    start_date: int
    trial_start: int | None = None
    trial_end: int | None = None
    cancel_at_period_end: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    cancel_at: int | None = None
    canceled_at: int | None = None
    ended_at: int | None = None
    cancellation_reason: str | None = None  # cancellation_requested | payment_failed
    cancellation_comment: str | None = None
    cancellation_feedback: str | None = None
    latest_invoice: str | None = None  # an invoice's Stripe id (invoices refer back: no FK)
    metadata_: str = metadata()
    created: int


class SubscriptionItem(CheckoutModel, table=True):
    __tablename__ = "subscription_items"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    subscription: str = Field(foreign_key="subscriptions.stripe_id", index=True)
    price: str = Field(foreign_key="prices.stripe_id")
    quantity: int
    metadata_: str = metadata()
    created: int


class Invoice(CheckoutModel, table=True):
    __tablename__ = "invoices"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    customer: str = Field(foreign_key="customers.stripe_id", index=True)
    subscription: str | None = Field(default=None, foreign_key="subscriptions.stripe_id",
                                     index=True)
    status: str = Field(index=True)  # draft | open | paid | void | uncollectible
    billing_reason: str  # manual | subscription_create | subscription_cycle | ...
    collection_method: str  # charge_automatically | send_invoice
    currency: str
    number: str | None = None  # given when finalized
    description: str | None = None
    subtotal: int = 0  # the lines'
    total: int = 0
    starting_balance: int = 0  # the customer's balance applied when finalized
    ending_balance: int | None = None
    # What credit notes took off before (pre) or after (post) it was paid.
    pre_payment_credit_notes_amount: int = 0
    post_payment_credit_notes_amount: int = 0
    amount_paid: int = 0
    attempt_count: int = 0
    auto_advance: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    days_until_due: int | None = None
    due_date: int | None = None
    default_payment_method: str | None = Field(default=None,
                                               foreign_key="payment_methods.stripe_id")
    # The PaymentIntent that paid it (no FK: the invoice factory names it before making it).
    payment_intent: str | None = None
    period_start: int
    period_end: int
    finalized_at: int | None = None
    paid_at: int | None = None
    voided_at: int | None = None
    marked_uncollectible_at: int | None = None
    metadata_: str = metadata()
    created: int


class InvoiceLine(CheckoutModel, table=True):
    __tablename__ = "invoice_lines"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    invoice: str = Field(foreign_key="invoices.stripe_id", index=True)
    amount: int
    currency: str
    description: str | None = None
    quantity: int | None = None
    price: str | None = Field(default=None, foreign_key="prices.stripe_id")
    subscription: str | None = None
    subscription_item: str | None = None
    period_start: int
    period_end: int
    metadata_: str = metadata()
    created: int


class CreditNote(CheckoutModel, table=True):
    __tablename__ = "credit_notes"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    invoice: str = Field(foreign_key="invoices.stripe_id", index=True)
    customer: str = Field(foreign_key="customers.stripe_id", index=True)
    number: str
    status: str  # issued | void
    type: str  # pre_payment | post_payment
    amount: int
    currency: str
    reason: str | None = None
    memo: str | None = None
    # How a post-payment credit note's amount went back: a refund, the customer's balance,
    # outside Stripe.
    refund: str | None = Field(default=None, foreign_key="refunds.stripe_id")
    refund_amount: int = 0
    credit_amount: int = 0
    out_of_band_amount: int | None = None
    voided_at: int | None = None
    metadata_: str = metadata()
    created: int


class CreditNoteLine(CheckoutModel, table=True):
    __tablename__ = "credit_note_lines"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    credit_note: str = Field(foreign_key="credit_notes.stripe_id", index=True)
    type: str  # invoice_line_item | custom_line_item
    invoice_line_item: str | None = Field(default=None, foreign_key="invoice_lines.stripe_id")
    amount: int
    quantity: int | None = None
    unit_amount: int | None = None
    description: str | None = None
    created: int


class CustomerBalanceTransaction(CheckoutModel, table=True):
    __tablename__ = "customer_balance_transactions"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    customer: str = Field(foreign_key="customers.stripe_id", index=True)
    amount: int  # negative: a credit to the customer
    currency: str
    # adjustment | applied_to_invoice | credit_note | unapplied_from_invoice | ...
    type: str
    description: str | None = None
    ending_balance: int
    invoice: str | None = Field(default=None, foreign_key="invoices.stripe_id")
    credit_note: str | None = Field(default=None, foreign_key="credit_notes.stripe_id")
    metadata_: str = metadata()
    created: int


class BalanceTransaction(CheckoutModel, table=True):
    """A movement of the account's Stripe balance: a charge's funds (less Stripe's fee), a
    refund, a payout."""

    __tablename__ = "balance_transactions"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    type: str = Field(index=True)  # charge | refund | payout | payout_cancel
    source: str = Field(index=True)  # the charge's, refund's or payout's Stripe id
    amount: int
    fee: int
    currency: str
    description: str | None = None
    available_on: int  # when its funds can be paid out
    created: int


class Payout(CheckoutModel, table=True):
    __tablename__ = "payouts"

    id: int | None = Field(default=None, primary_key=True)
    stripe_id: str = Field(unique=True)
    amount: int
    currency: str
    status: str = Field(index=True)  # pending | in_transit | paid | canceled
    method: str  # standard | instant
    automatic: bool
    arrival_date: int
    description: str | None = None
    statement_descriptor: str | None = None
    balance_transaction: str | None = None  # its transaction's Stripe id
    metadata_: str = metadata()
    created: int


# -- The store's own records (not Stripe's): WorkGym's conventions, integer ids, ISO times --

class Account(CheckoutModel, table=True):
    """A shopper's login at the store: the same person as their Stripe customer."""

    __tablename__ = "accounts"

    id: int | None = Field(default=None, primary_key=True)
    customer: str | None = Field(default=None, foreign_key="customers.stripe_id", index=True)
    email: str = Field(index=True)
    name: str
    locale: str
    email_verified: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    two_factor_enabled: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    pending_email: str | None = None
    created_at: str
    updated_at: str
    # Imported from the old shop, with its raw, inconsistent date text.
    legacy_id: str | None = None
    legacy_created: str | None = None


class AccountAction(CheckoutModel, table=True):
    __tablename__ = "account_actions"

    id: int | None = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="accounts.id", index=True)
    kind: str  # password_reset | 2fa_reset | email_change
    status: str  # pending | completed | cancelled
    verification_required: bool
    verification_method: str | None = None
    new_email: str | None = None
    self_service: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    created_at: str
    completed_at: str | None = None


class RefundApproval(CheckoutModel, table=True):
    """A manager's decision on a refund the approval policy covers (the store's, not Stripe's):
    decided when asked; an approved one covers one refund of its charge."""

    __tablename__ = "refund_approvals"

    id: int | None = Field(default=None, primary_key=True)
    charge: str = Field(foreign_key="charges.stripe_id", index=True)
    amount: int
    currency: str
    reason: str
    ticket: int | None = None  # the helpdesk ticket it is for
    status: str  # approved | denied
    decision_note: str
    refund: str | None = Field(default=None, foreign_key="refunds.stripe_id")  # what it covered
    created_at: str


class Order(CheckoutModel, table=True):
    __tablename__ = "orders"

    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(unique=True)  # the identity's A-..., or an imported WC-...
    account_id: int | None = Field(default=None, foreign_key="accounts.id", index=True)
    customer: str | None = Field(default=None, foreign_key="customers.stripe_id", index=True)
    email: str | None = None
    currency: str
    subtotal: int  # the items' prices
    discount: int = 0  # the promotion code's
    shipping: int = 0
    total: int  # subtotal - discount + shipping: what the payment was for
    promotion_code: str | None = Field(default=None, foreign_key="promotion_codes.stripe_id")
    # A PaymentIntent's Stripe id (no FK: the order factory names it before making it).
    payment_intent: str | None = Field(default=None, index=True)
    checkout_session: str | None = Field(default=None,
                                         foreign_key="checkout_sessions.stripe_id")
    status: str = Field(index=True)  # open | cancelled
    # unfulfilled | partially_fulfilled | fulfilled (of the items not cancelled)
    fulfillment_status: str = Field(index=True)
    ship_name: str | None = None
    ship_line1: str | None = None
    ship_city: str | None = None
    ship_postal_code: str | None = None
    ship_country: str | None = None
    placed_at: str
    cancelled_at: str | None = None
    cancel_reason: str | None = None
    legacy_id: str | None = None
    note: str | None = None


class OrderItem(CheckoutModel, table=True):
    __tablename__ = "order_items"

    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(foreign_key="orders.id", index=True)
    sku: str
    name: str
    price: str | None = Field(default=None, foreign_key="prices.stripe_id")
    quantity: int
    unit_amount: int
    amount_discount: int = 0  # the line's share of the order's discount
    fulfilled_quantity: int = 0
    cancelled_quantity: int = 0
    returned_quantity: int = 0


class Fulfillment(CheckoutModel, table=True):
    __tablename__ = "fulfillments"

    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(foreign_key="orders.id", index=True)
    carrier: str
    tracking_number: str
    status: str  # in_transit | delivered
    items: str  # JSON: [{item_id, quantity}]
    shipped_at: str
    delivered_at: str | None = None


class Return(CheckoutModel, table=True):
    __tablename__ = "returns"

    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(foreign_key="orders.id", index=True)
    items: str  # JSON: [{item_id, quantity}]
    restock: bool
    refund: str | None = Field(default=None, foreign_key="refunds.stripe_id")
    amount_refunded: int = 0
    currency: str
    reason: str | None = None
    created_at: str


class Inventory(CheckoutModel, table=True):
    __tablename__ = "inventory"

    id: int | None = Field(default=None, primary_key=True)
    sku: str = Field(unique=True)
    name: str
    on_hand: int  # in the warehouse
    committed: int  # of those, promised to open orders' unfulfilled items
    updated_at: str


class IdempotencyKey(CheckoutModel, table=True):
    """The first answer to each Idempotency-Key (idempotency.py): part of the episode's
    database, so it resets with the episode, but outside the world (``_``: not diffed)."""

    __tablename__ = "_idempotency_keys"

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True)
    fingerprint: str  # the request it answered: method, path and parameters
    status: int
    body: bytes
    created: int


METADATA = CheckoutModel.metadata
