"""The Billing objects the checkout answers (subscriptions, invoices, credit notes, customer
balance transactions) and the account's balance (balance transactions, payouts), as documented
in its OpenAPI document (render.py makes them). Members the replica never sets are documented
as their constant (null, [], 0)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .stripe import (
    _AMOUNT,
    _CURRENCY,
    BalanceTransaction,
    Customer,
    PaymentMethod,
    Price,
    StripeList,
    StripeObject,
)


class Plan(BaseModel):
    """The recurring price, as the legacy Plan object."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Unique identifier of the object.")
    created: int = Field(description="Unix seconds.")
    livemode: bool = Field(description="Always false: test mode.")
    metadata: dict[str, str] = Field(description="Your key-value pairs.")
    object: Literal["plan"] = Field(description="'plan'.")
    active: bool = Field(description="Whether it can be subscribed to.")
    amount: int | None = Field(description="Per period.")
    amount_decimal: str | None = Field(description="amount as a decimal string.")
    billing_scheme: str = Field(description="per_unit.")
    currency: str = Field(description=_CURRENCY)
    interval: str = Field(description="day, week, month or year.")
    interval_count: int = Field(description="Intervals per period.")
    meter: None = Field(description="No metered billing.")
    nickname: str | None = Field(description="An internal name.")
    product: str | None = Field(description="Its product.")
    tiers_mode: None = Field(description="No tiers.")
    transform_usage: None = Field(description="No usage.")
    trial_period_days: None = Field(description="Trials are set on subscriptions.")
    usage_type: str = Field(description="licensed.")


class SubscriptionItem(BaseModel):
    """One price a subscription bills (Stripe's has no livemode)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Unique identifier of the object.")
    created: int = Field(description="Unix seconds.")
    metadata: dict[str, str] = Field(description="Your key-value pairs.")
    object: Literal["subscription_item"] = Field(description="'subscription_item'.")
    billing_thresholds: None = Field(description="No thresholds.")
    current_period_end: int = Field(description="Unix seconds.")
    current_period_start: int = Field(description="Unix seconds.")
    discounts: list[str] = Field(description="None here.")
    plan: Plan = Field(description="Its price, as a Plan.")
    price: Price = Field(description="Its price.")
    quantity: int = Field(description="How many.")
    subscription: str = Field(description="Its subscription.")
    tax_rates: list[dict[str, Any]] = Field(description="None here.")


class Subscription(StripeObject):
    """A customer's recurring billing."""

    object: Literal["subscription"] = Field(description="'subscription'.")
    application: None = Field(description="No Connect application.")
    application_fee_percent: None = Field(description="None.")
    automatic_tax: dict[str, Any] = Field(description="Not enabled.")
    billing_cycle_anchor: int = Field(description="When periods start.")
    billing_cycle_anchor_config: None = Field(description="None.")
    billing_mode: dict[str, Any] = Field(description="classic.")
    billing_thresholds: None = Field(description="None.")
    cancel_at: int | None = Field(description="When it will end.")
    cancel_at_period_end: bool = Field(description="Ends when the period ends.")
    canceled_at: int | None = Field(description="When cancellation was asked.")
    cancellation_details: dict[str, Any] | None = Field(description="comment, feedback, reason.")
    collection_method: str = Field(description="charge_automatically or send_invoice.")
    currency: str = Field(description=_CURRENCY)
    customer: str | Customer = Field(description="Whom it bills (expandable).")
    days_until_due: int | None = Field(description="send_invoice: days to pay.")
    default_payment_method: str | PaymentMethod | None = Field(
        description="The card charged (expandable).")
    default_source: None = Field(description="No legacy sources.")
    default_tax_rates: list[dict[str, Any]] = Field(description="None.")
    description: str | None = Field(description="Shown to the customer.")
    discounts: list[str] = Field(description="None here.")
    ended_at: int | None = Field(description="When it ended.")
    invoice_settings: dict[str, Any] = Field(description="The issuer.")
    items: StripeList[SubscriptionItem] = Field(description="What it bills.")
    latest_invoice: str | Invoice | None = Field(description="Its latest invoice (expandable).")
    next_pending_invoice_item_invoice: None = Field(description="None.")
    on_behalf_of: None = Field(description="None.")
    pause_collection: None = Field(description="No pauses.")
    payment_settings: None = Field(description="Defaults.")
    pending_invoice_item_interval: None = Field(description="None.")
    pending_setup_intent: None = Field(description="None.")
    pending_update: None = Field(description="None.")
    schedule: None = Field(description="No schedules.")
    start_date: int = Field(description="When it started.")
    status: str = Field(description="incomplete, incomplete_expired, trialing, active, "
                        "past_due, unpaid or canceled.")
    test_clock: None = Field(description="No test clocks.")
    transfer_data: None = Field(description="None.")
    trial_end: int | None = Field(description="When the trial ends.")
    trial_settings: None = Field(description="None.")
    trial_start: int | None = Field(description="When the trial started.")


class InvoiceLine(BaseModel):
    """A line of an invoice."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Unique identifier of the object.")
    livemode: bool = Field(description="Always false: test mode.")
    metadata: dict[str, str] = Field(description="Your key-value pairs.")
    object: Literal["line_item"] = Field(description="'line_item'.")
    amount: int = Field(description=_AMOUNT)
    currency: str = Field(description=_CURRENCY)
    description: str | None = Field(description="What it is for.")
    discount_amounts: list[dict[str, Any]] = Field(description="None here.")
    discountable: bool = Field(description="Whether discounts apply.")
    discounts: list[str] = Field(description="None here.")
    invoice: str | None = Field(description="Its invoice.")
    parent: dict[str, Any] | None = Field(description="The subscription item it bills, if any.")
    period: dict[str, int] = Field(description="start and end.")
    pretax_credit_amounts: list[dict[str, Any]] = Field(description="None here.")
    pricing: dict[str, Any] | None = Field(description="Its price, if any.")
    quantity: int | None = Field(description="How many.")
    subscription: str | None = Field(description="Its subscription.")
    taxes: list[dict[str, Any]] = Field(description="None here.")


class Invoice(StripeObject):
    """What a customer owes."""

    object: Literal["invoice"] = Field(description="'invoice'.")
    account_country: str = Field(description="The account's country.")
    account_name: str = Field(description="The account's name.")
    account_tax_ids: None = Field(description="None.")
    amount_due: int = Field(description="What it asks, after credit.")
    amount_overpaid: int = Field(description="0.")
    amount_paid: int = Field(description="What was paid.")
    amount_remaining: int = Field(description="What is left.")
    amount_shipping: int = Field(description="0.")
    application: None = Field(description="None.")
    attempt_count: int = Field(description="Payment attempts.")
    attempted: bool = Field(description="Whether payment was attempted.")
    auto_advance: bool = Field(description="Automatic collection.")
    automatic_tax: dict[str, Any] = Field(description="Not enabled.")
    automatically_finalizes_at: None = Field(description="Not scheduled.")
    billing_reason: str = Field(description="manual, subscription_create, subscription_cycle, ...")
    collection_method: str = Field(description="charge_automatically or send_invoice.")
    currency: str = Field(description=_CURRENCY)
    custom_fields: None = Field(description="None.")
    customer: str | Customer = Field(description="Whom it bills (expandable).")
    customer_address: None = Field(description="Not kept.")
    customer_email: str | None = Field(description="The customer's email.")
    customer_name: str | None = Field(description="The customer's name.")
    customer_phone: str | None = Field(description="The customer's phone.")
    customer_shipping: None = Field(description="Not kept.")
    customer_tax_exempt: str = Field(description="none.")
    customer_tax_ids: list[dict[str, Any]] = Field(description="None.")
    default_payment_method: str | PaymentMethod | None = Field(
        description="The card to charge (expandable).")
    default_source: None = Field(description="None.")
    default_tax_rates: list[dict[str, Any]] = Field(description="None.")
    description: str | None = Field(description="A memo.")
    discounts: list[str] = Field(description="None here.")
    due_date: int | None = Field(description="send_invoice: when due.")
    effective_at: int | None = Field(description="When finalized.")
    ending_balance: int | None = Field(description="The customer's balance after it.")
    footer: None = Field(description="None.")
    from_invoice: None = Field(description="None.")
    hosted_invoice_url: None = Field(description="No hosted page.")
    invoice_pdf: None = Field(description="No PDF.")
    issuer: dict[str, Any] = Field(description="self.")
    last_finalization_error: None = Field(description="None.")
    latest_revision: None = Field(description="None.")
    lines: StripeList[InvoiceLine] = Field(description="Its lines.")
    next_payment_attempt: None = Field(description="No automatic retries scheduled.")
    number: str | None = Field(description="Given when finalized.")
    on_behalf_of: None = Field(description="None.")
    parent: dict[str, Any] | None = Field(description="The subscription it bills, if any.")
    payment_settings: dict[str, Any] = Field(description="Defaults.")
    period_end: int = Field(description="Unix seconds.")
    period_start: int = Field(description="Unix seconds.")
    post_payment_credit_notes_amount: int = Field(description="Credited after payment.")
    pre_payment_credit_notes_amount: int = Field(description="Credited before payment.")
    receipt_number: None = Field(description="None.")
    rendering: None = Field(description="None.")
    shipping_cost: None = Field(description="None.")
    shipping_details: None = Field(description="None.")
    starting_balance: int = Field(description="The customer's balance when finalized.")
    statement_descriptor: None = Field(description="None.")
    status: str = Field(description="draft, open, paid, void or uncollectible.")
    status_transitions: dict[str, int | None] = Field(description="When it changed status.")
    subtotal: int = Field(description="The lines'.")
    subtotal_excluding_tax: int = Field(description="The lines'.")
    test_clock: None = Field(description="None.")
    total: int = Field(description="The lines'.")
    total_discount_amounts: list[dict[str, Any]] = Field(description="None here.")
    total_excluding_tax: int = Field(description="total.")
    total_pretax_credit_amounts: list[dict[str, Any]] = Field(description="None here.")
    total_taxes: list[dict[str, Any]] = Field(description="None here.")
    webhooks_delivered_at: int | None = Field(description="When finalized.")


class CreditNoteLine(BaseModel):
    """A line of a credit note."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Unique identifier of the object.")
    livemode: bool = Field(description="Always false: test mode.")
    object: Literal["credit_note_line_item"] = Field(description="'credit_note_line_item'.")
    amount: int = Field(description=_AMOUNT)
    description: str | None = Field(description="What for.")
    discount_amount: int = Field(description="0.")
    discount_amounts: list[dict[str, Any]] = Field(description="None.")
    invoice_line_item: str | None = Field(description="The invoice line it credits.")
    pretax_credit_amounts: list[dict[str, Any]] = Field(description="None.")
    quantity: int | None = Field(description="How many.")
    tax_rates: list[dict[str, Any]] = Field(description="None.")
    taxes: list[dict[str, Any]] = Field(description="None.")
    type: str = Field(description="invoice_line_item or custom_line_item.")
    unit_amount: int | None = Field(description="Per unit.")
    unit_amount_decimal: str | None = Field(description="unit_amount as a decimal string.")


class CreditNote(StripeObject):
    """A reduction of a finalized invoice."""

    object: Literal["credit_note"] = Field(description="'credit_note'.")
    amount: int = Field(description=_AMOUNT)
    amount_shipping: int = Field(description="0.")
    currency: str = Field(description=_CURRENCY)
    customer: str | Customer = Field(description="Whom it credits (expandable).")
    customer_balance_transaction: str | None = Field(
        description="The balance transaction that credited it.")
    discount_amount: int = Field(description="0.")
    discount_amounts: list[dict[str, Any]] = Field(description="None.")
    effective_at: int | None = Field(description="When issued.")
    invoice: str | Invoice = Field(description="Its invoice (expandable).")
    lines: StripeList[CreditNoteLine] = Field(description="Its lines.")
    memo: str | None = Field(description="Shown on it.")
    number: str = Field(description="Its number.")
    out_of_band_amount: int | None = Field(description="Given back outside Stripe.")
    pdf: str = Field(description="No PDF: ''.")
    post_payment_amount: int = Field(description="After payment.")
    pre_payment_amount: int = Field(description="Before payment.")
    pretax_credit_amounts: list[dict[str, Any]] = Field(description="None.")
    reason: str | None = Field(description="Why.")
    refunds: list[dict[str, Any]] = Field(description="The refund it made.")
    shipping_cost: None = Field(description="None.")
    status: str = Field(description="issued or void.")
    subtotal: int = Field(description="amount.")
    subtotal_excluding_tax: int = Field(description="amount.")
    total: int = Field(description="amount.")
    total_excluding_tax: int = Field(description="amount.")
    total_taxes: list[dict[str, Any]] = Field(description="None.")
    type: str = Field(description="pre_payment or post_payment.")
    voided_at: int | None = Field(description="When voided.")


class CustomerBalanceTransaction(StripeObject):
    """A change of a customer's balance."""

    object: Literal["customer_balance_transaction"] = Field(
        description="'customer_balance_transaction'.")
    amount: int = Field(description="Negative: a credit to the customer.")
    checkout_session: None = Field(description="None.")
    credit_note: str | None = Field(description="The credit note that made it.")
    currency: str = Field(description=_CURRENCY)
    customer: str | Customer = Field(description="Whose balance (expandable).")
    description: str | None = Field(description="Why.")
    ending_balance: int = Field(description="The balance after it.")
    invoice: str | None = Field(description="The invoice it is about.")
    type: str = Field(
        description="adjustment, applied_to_invoice, credit_note, unapplied_from_invoice, "
        "invoice_too_small, ...")


class DeletedInvoice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Unique identifier of the object.")
    object: Literal["invoice"] = Field(description="'invoice'.")
    deleted: Literal[True] = Field(description="Always true: the draft was deleted.")



class Payout(StripeObject):
    """Money sent from the balance to the bank."""

    object: Literal["payout"] = Field(description="'payout'.")
    amount: int = Field(description=_AMOUNT)
    application_fee: None = Field(description="None.")
    application_fee_amount: None = Field(description="None.")
    arrival_date: int = Field(description="When it arrives (Unix seconds).")
    automatic: bool = Field(description="Made by the payout schedule.")
    balance_transaction: str | BalanceTransaction | None = Field(
        description="Its balance transaction (expandable).")
    currency: str = Field(description=_CURRENCY)
    description: str | None = Field(description="An internal description.")
    destination: None = Field(description="The bank account (not modelled).")
    failure_balance_transaction: None = Field(description="No failures here.")
    failure_code: None = Field(description="No failures here.")
    failure_message: None = Field(description="No failures here.")
    method: str = Field(description="standard or instant.")
    original_payout: None = Field(description="None.")
    reconciliation_status: str = Field(description="not_applicable, in_progress, completed.")
    reversed_by: None = Field(description="None.")
    source_type: str = Field(description="card.")
    statement_descriptor: str | None = Field(description="On the bank statement.")
    status: str = Field(description="pending, in_transit, paid or canceled.")
    trace_id: None = Field(description="None.")
    type: str = Field(description="bank_account.")


class BalanceAmount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount: int = Field(description=_AMOUNT)
    currency: str = Field(description=_CURRENCY)
    source_types: dict[str, int] = Field(description="By source: card.")


class Balance(BaseModel):
    """The account's balance: available (can be paid out) and pending, per currency."""

    model_config = ConfigDict(extra="forbid")

    object: Literal["balance"] = Field(description="'balance'.")
    available: list[BalanceAmount] = Field(description="Can be paid out now.")
    livemode: bool = Field(description="Always false: test mode.")
    pending: list[BalanceAmount] = Field(description="Not yet available.")

for _model in (Subscription, CreditNote, CustomerBalanceTransaction, Payout):
    _model.model_rebuild()
