"""Request bodies of Stripe Billing (subscriptions, invoices, credit notes, customer balance
transactions), as requests.py's: form-encoded or JSON, unknown parameters refused."""

from __future__ import annotations

from typing import Annotated, Literal

from annotated_types import Interval
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from .requests import INTEGER, Body, Currency, Metadata, ObjectId, Text, Timestamp

CollectionMethod = Literal["charge_automatically", "send_invoice"]
DaysUntilDue = Annotated[int, Interval(ge=0, le=730), INTEGER]
Quantity = Annotated[int, Interval(ge=1, le=10_000), INTEGER]
Money = Annotated[int, Interval(ge=0, le=99_999_999), INTEGER]
# A balance adjustment: negative credits the customer, positive is what they owe.
SignedMoney = Annotated[int, Interval(ge=-99_999_999, le=99_999_999), INTEGER]
Memo = Annotated[str, StringConstraints(max_length=5000)]
_METADATA = "Key-value pairs; on an update a key set to '' is removed, metadata='' removes all."


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")

    price: ObjectId = Field(description="A recurring price's id.")
    quantity: Quantity = Field(1, description="How many of it.")


class CancellationDetails(BaseModel):
    model_config = ConfigDict(extra="forbid")

    comment: Annotated[str, StringConstraints(max_length=5000)] | Literal[""] | None = Field(
        None, description="What the customer said.")
    feedback: Literal["customer_service", "low_quality", "missing_features", "other",
                      "switched_service", "too_complex", "too_expensive", "unused", ""] | None \
        = Field(None, description="Why the customer cancelled, in Stripe's words.")


class SubscriptionCreate(Body):
    customer: ObjectId = Field(description="Whom it bills.")
    items: list[Item] = Field(min_length=1, max_length=20,
                              description="What it bills every period: recurring prices.")
    collection_method: CollectionMethod | None = Field(
        None, description="Charge the default payment method (default), or send invoices.")
    days_until_due: DaysUntilDue | None = Field(
        None, description="send_invoice: days the customer has to pay each invoice.")
    default_payment_method: ObjectId | None = Field(
        None, description="The customer's card its invoices are charged to.")
    description: Text | None = Field(None, description="Shown to the customer.")
    trial_period_days: Annotated[int, Interval(ge=1, le=730), INTEGER] | None = Field(
        None, description="Free days before the first paid period.")
    trial_end: Timestamp | Literal["now"] | None = Field(
        None, description="When the trial ends (Unix seconds), or 'now': none.")
    cancel_at_period_end: bool | None = Field(
        None, description="End it when its first period ends.")
    payment_behavior: Literal["allow_incomplete", "default_incomplete",
                              "error_if_incomplete"] | None = Field(
        None, description="If the first payment fails: leave it incomplete (default), start "
        "it incomplete without paying, or refuse it.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class SubscriptionUpdate(Body):
    cancel_at_period_end: bool | None = Field(
        None, description="End it when its current period ends (false: keep it).")
    cancel_at: Timestamp | Literal[""] | None = Field(
        None, description="When to end it (Unix seconds); '' clears it.")
    cancellation_details: CancellationDetails | None = Field(
        None, description="Why the customer is leaving.")
    default_payment_method: ObjectId | Literal[""] | None = Field(
        None, description="The customer's card its invoices are charged to.")
    description: Text | None = Field(None, description="Shown to the customer.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class SubscriptionCancel(Body):
    cancellation_details: CancellationDetails | None = Field(
        None, description="Why the customer is leaving.")
    invoice_now: bool | None = Field(
        None, description="Invoice what is pending now (nothing is, here: no metered usage).")
    prorate: bool | None = Field(
        None, description="Credit the unused time (not done here: no prorations).")


class InvoiceCreate(Body):
    customer: ObjectId = Field(description="Whom it bills.")
    collection_method: CollectionMethod | None = Field(
        None, description="Charge the customer's card when finalized (default), or send it.")
    days_until_due: DaysUntilDue | None = Field(
        None, description="send_invoice: days until it is due.")
    due_date: Timestamp | None = Field(None, description="send_invoice: when it is due.")
    currency: Currency | None = Field(None, description="Default: the customer's.")
    default_payment_method: ObjectId | None = Field(
        None, description="The customer's card to charge.")
    description: Text | None = Field(None, description="Shown to the customer (a memo).")
    auto_advance: bool | None = Field(
        None, description="Finalize it an hour after it is made (true: not done here).")
    metadata: Metadata | None = Field(None, description=_METADATA)


class InvoiceUpdate(Body):
    description: Text | None = Field(None, description="Shown to the customer (a memo).")
    days_until_due: DaysUntilDue | None = Field(
        None, description="send_invoice: days until it is due (drafts).")
    due_date: Timestamp | None = Field(None, description="send_invoice: when it is due.")
    default_payment_method: ObjectId | Literal[""] | None = Field(
        None, description="The customer's card to charge.")
    auto_advance: bool | None = Field(None, description="Stripe's automatic collection.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class LinePeriod(BaseModel):
    model_config = ConfigDict(extra="forbid")

    start: Timestamp = Field(description="Unix seconds.")
    end: Timestamp = Field(description="Unix seconds.")


class LinePricing(BaseModel):
    model_config = ConfigDict(extra="forbid")

    price: ObjectId = Field(description="A price of the catalogue.")


class InvoiceLineAdd(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount: SignedMoney | None = Field(None, description="The line's amount (or pricing).")
    description: Text | None = Field(None, description="What it is for.")
    pricing: LinePricing | None = Field(None, description="A price, times quantity.")
    quantity: Quantity | None = Field(None, description="With pricing: how many.")
    period: LinePeriod | None = Field(None, description="The period it covers.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class InvoiceAddLines(Body):
    lines: list[InvoiceLineAdd] = Field(min_length=1, max_length=50,
                                        description="The lines to add to the draft.")
    invoice_metadata: Metadata | None = Field(None, description="The invoice's metadata.")


class InvoiceFinalize(Body):
    auto_advance: bool | None = Field(None, description="Stripe's automatic collection.")


class InvoicePay(Body):
    paid_out_of_band: bool | None = Field(
        None, description="Paid outside Stripe (a cheque, a bank transfer): nothing charged.")
    payment_method: ObjectId | None = Field(None, description="The customer's card to charge.")
    off_session: bool | None = Field(None, description="The customer is not present.")


class InvoiceAction(Body):
    pass


CreditReason = Literal["duplicate", "fraudulent", "order_change", "product_unsatisfactory"]


class CreditNoteLineIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["invoice_line_item", "custom_line_item"] = Field(
        description="A line of the invoice, or a custom one.")
    invoice_line_item: ObjectId | None = Field(None, description="invoice_line_item: which.")
    amount: Money | None = Field(None, description="invoice_line_item: how much of it.")
    quantity: Quantity | None = Field(None, description="How many units (custom: times "
                                                        "unit_amount).")
    unit_amount: Money | None = Field(None, description="custom_line_item: per unit.")
    description: Text | None = Field(None, description="custom_line_item: what for.")


class CreditNoteCreate(Body):
    invoice: ObjectId = Field(description="The open or paid invoice it credits.")
    amount: Money | None = Field(None, description="How much in all (or lines).")
    lines: list[CreditNoteLineIn] | None = Field(None, max_length=50,
                                                 description="What it credits, line by line.")
    credit_amount: Money | None = Field(
        None, description="Paid invoice: how much goes to the customer's balance.")
    refund_amount: Money | None = Field(
        None, description="Paid invoice: how much is refunded to the card that paid.")
    out_of_band_amount: Money | None = Field(
        None, description="Paid invoice: how much was given back outside Stripe.")
    reason: CreditReason | None = Field(None, description="Why.")
    memo: Memo | None = Field(None, description="Shown on the credit note.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class CreditNoteUpdate(Body):
    memo: Memo | None = Field(None, description="Shown on the credit note.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class BalanceTransactionCreate(Body):
    amount: SignedMoney = Field(description="Negative: a credit to the customer; positive: a "
                                "debit (added to their next invoice).")
    currency: Currency = Field(description="The customer's currency (sets it if unset).")
    description: Text | None = Field(None, description="Why.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class BalanceTransactionUpdate(Body):
    description: Text | None = Field(None, description="Why.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class PayoutCreate(Body):
    amount: Annotated[int, Interval(ge=1, le=99_999_999), INTEGER] = Field(
        description="How much to send to the bank, in the currency's minor unit.")
    currency: Currency = Field(description="Three-letter ISO currency code.")
    method: Literal["standard", "instant"] | None = Field(
        None, description="standard (arrives in 2 days, default) or instant (30 minutes).")
    description: Text | None = Field(None, description="An internal description.")
    statement_descriptor: Annotated[str, StringConstraints(max_length=22)] | None = Field(
        None, description="Shown on the bank statement.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class PayoutUpdate(Body):
    metadata: Metadata | None = Field(None, description=_METADATA)
