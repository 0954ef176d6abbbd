"""The objects the checkout answers, as documented in its OpenAPI document (render.py makes
them from rows). Every object has ``id``, ``object`` (its kind), ``created`` (Unix seconds on
the episode's clock), ``livemode`` (always false: test mode) and, but events, ``metadata``."""

from __future__ import annotations

from functools import cache
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")

_ID = "Unique identifier of the object."
_CREATED = "When it was created: Unix seconds."
_LIVEMODE = "Always false: this is test mode."
_METADATA = "Your key-value pairs."
_CURRENCY = "Three-letter ISO currency code, lowercase."
_AMOUNT = "In the currency's minor unit (JPY, KRW: whole units)."
# A member Stripe always answers (null when unset) that this replica never sets.
_UNSET = "Not used by this replica: always null."


def unset(model: type[BaseModel]) -> dict[str, None]:
    """The members of ``model`` typed ``None`` (those this replica never sets), as null: what
    render.py adds so that every member Stripe always answers is there."""
    return dict.fromkeys(_unset_names(model))


@cache
def _unset_names(model: type[BaseModel]) -> tuple[str, ...]:
    return tuple(name for name, info in model.model_fields.items()
                 if info.annotation is type(None))


class StripeObject(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description=_ID)
    created: int = Field(description=_CREATED)
    livemode: bool = Field(description=_LIVEMODE)
    metadata: dict[str, str] = Field(description=_METADATA)


class Customer(StripeObject):
    object: Literal["customer"] = Field(description="'customer'.")
    address: None = Field(description="Not kept by this replica.")
    balance: int = Field(description="Credit balance (always 0 here).")
    currency: str | None = Field(description="The currency the customer pays in, once set.")
    default_source: None = Field(description="Legacy sources: none.")
    delinquent: bool = Field(description="Whether an invoice is overdue (never, here).")
    description: str | None = Field(description="An internal description.")
    email: str | None = Field(description="The customer's email address.")
    name: str | None = Field(description="The customer's full name.")
    phone: str | None = Field(description="The customer's phone number.")
    preferred_locales: list[str] = Field(description="Languages the customer prefers.")
    shipping: None = Field(description="Not kept by this replica.")
    tax_exempt: Literal["none"] = Field(description="Tax exemption: none.")
    invoice_settings: InvoiceSettings = Field(description="Invoicing defaults (none set).")


class InvoiceSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    custom_fields: None = Field(description=_UNSET)
    default_payment_method: None = Field(description=_UNSET)
    footer: None = Field(description=_UNSET)
    rendering_options: None = Field(description=_UNSET)


class DeletedCustomer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description=_ID)
    object: Literal["customer"] = Field(description="'customer'.")
    deleted: Literal[True] = Field(description="Always true: the customer was deleted.")


class Product(StripeObject):
    object: Literal["product"] = Field(description="'product'.")
    active: bool = Field(description="Whether it can be bought.")
    default_price: str | Price | None = Field(description="Its default price (expandable).")
    description: str | None = Field(description="The product's description.")
    images: list[str] = Field(description="Image URLs.")
    name: str = Field(description="The product's name.")
    updated: int = Field(description="When it last changed: Unix seconds.")
    url: str | None = Field(description="A public page about the product.")
    marketing_features: list[dict[str, str]] = Field(description="Features listed (none).")
    package_dimensions: None = Field(description=_UNSET)
    shippable: None = Field(description=_UNSET)
    tax_code: None = Field(description=_UNSET)
    type: Literal["service"] = Field(description="service (Stripe's default).")


class RecurringOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    interval: str = Field(description="Billing period: day, week, month or year.")
    interval_count: int = Field(description="Periods between two billings.")
    usage_type: Literal["licensed"] = Field(description="Billed per unit: licensed.")
    meter: None = Field(description=_UNSET)
    trial_period_days: None = Field(description=_UNSET)


class Price(StripeObject):
    object: Literal["price"] = Field(description="'price'.")
    active: bool = Field(description="Whether new payments may use it.")
    billing_scheme: Literal["per_unit"] = Field(description="Per unit.")
    currency: str = Field(description=_CURRENCY)
    lookup_key: str | None = Field(description="A key to find the price by.")
    nickname: str | None = Field(description="An internal name.")
    product: str | Product = Field(description="Its product (expandable).")
    recurring: RecurringOut | None = Field(description="Billing period, if recurring.")
    tax_behavior: Literal["unspecified"] = Field(description="Tax behaviour: unspecified.")
    type: Literal["one_time", "recurring"] = Field(description="One-time or recurring.")
    unit_amount: int = Field(description=_AMOUNT)
    unit_amount_decimal: str = Field(description="unit_amount as a decimal string.")
    custom_unit_amount: None = Field(description=_UNSET)
    tiers_mode: None = Field(description=_UNSET)
    transform_quantity: None = Field(description=_UNSET)


class BillingDetailsOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    address: None = Field(description="Not kept by this replica.")
    email: str | None = Field(description="The cardholder's email address.")
    name: str | None = Field(description="The cardholder's name.")
    phone: None = Field(description="Not kept by this replica.")
    tax_id: None = Field(description=_UNSET)


class CardChecks(BaseModel):
    model_config = ConfigDict(extra="forbid")

    address_line1_check: None = Field(description="Not checked.")
    address_postal_code_check: None = Field(description="Not checked.")
    cvc_check: str | None = Field(description="The CVC check's result.")


class CardNetworks(BaseModel):
    model_config = ConfigDict(extra="forbid")

    available: list[str] = Field(description="The networks the card can use: its brand's.")
    preferred: None = Field(description="No preferred network.")


class ThreeDSecureUsage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    supported: bool = Field(description="Whether the card supports 3-D Secure.")


class CardOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    brand: str = Field(description="visa, mastercard, amex, jcb, ...")
    checks: CardChecks = Field(description="Checks of the card's details.")
    country: str = Field(description="The issuer's country (ISO 3166-1 alpha-2).")
    exp_month: int = Field(description="Expiry month.")
    exp_year: int = Field(description="Expiry year.")
    fingerprint: str = Field(description="The same for every PaymentMethod of one card.")
    funding: str = Field(description="credit, debit or prepaid.")
    last4: str = Field(description="The card number's last four digits.")
    three_d_secure_usage: ThreeDSecureUsage = Field(description="3-D Secure support.")
    wallet: None = Field(description="No wallets here.")
    display_brand: None = Field(description=_UNSET)
    generated_from: None = Field(description=_UNSET)
    networks: CardNetworks = Field(description="The card's networks.")
    regulated_status: None = Field(description=_UNSET)


class PaymentMethod(StripeObject):
    object: Literal["payment_method"] = Field(description="'payment_method'.")
    billing_details: BillingDetailsOut = Field(description="Who pays.")
    card: CardOut = Field(description="The card.")
    customer: str | Customer | None = Field(description="Its customer, once attached "
                                            "(expandable).")
    type: Literal["card"] = Field(description="The kind of payment method.")


class AutomaticPaymentMethods(BaseModel):
    allow_redirects: Literal["always", "never"] = Field(
        description="Whether payment methods that redirect the customer may be used.")
    enabled: Literal[True] = Field(description="true.")


class PaymentIntent(StripeObject):
    object: Literal["payment_intent"] = Field(description="'payment_intent'.")
    amount: int = Field(description=_AMOUNT)
    amount_capturable: int = Field(description="What can still be captured (requires_capture).")
    amount_received: int = Field(description="What was captured.")
    automatic_payment_methods: AutomaticPaymentMethods | None = Field(
        description="On: it accepts the payment methods the account has switched on (cards); "
        "off (null) when payment_method_types was given.")
    canceled_at: int | None = Field(description="When it was canceled: Unix seconds.")
    cancellation_reason: str | None = Field(
        description="duplicate, fraudulent, requested_by_customer, abandoned, or automatic (an "
        "authorization that expired).")
    capture_method: str = Field(description="automatic, automatic_async or manual.")
    client_secret: str = Field(description="What the customer's browser completes it with.")
    confirmation_method: Literal["automatic"] = Field(description="automatic.")
    currency: str = Field(description=_CURRENCY)
    customer: str | Customer | DeletedCustomer | None = Field(
        description="The customer who pays (expandable).")
    description: str | None = Field(description="An internal description.")
    last_payment_error: dict[str, Any] | None = Field(
        description="The error of the last payment attempt (a Stripe error object).")
    latest_charge: str | Charge | None = Field(description="The last charge (expandable).")
    next_action: dict[str, Any] | None = Field(
        description="What the customer must do (requires_action): redirect_to_url (url, "
        "return_url) or use_stripe_sdk, a 3-D Secure challenge.")
    payment_method: str | PaymentMethod | None = Field(
        description="The PaymentMethod it charges (expandable).")
    payment_method_types: list[str] = Field(description="Kinds of payment method it accepts.")
    receipt_email: str | None = Field(description="Where the receipt goes.")
    application: None = Field(description=_UNSET)
    application_fee_amount: None = Field(description=_UNSET)
    on_behalf_of: None = Field(description=_UNSET)
    payment_method_configuration_details: None = Field(description=_UNSET)
    payment_method_options: None = Field(description=_UNSET)
    processing: None = Field(description=_UNSET)
    review: None = Field(description=_UNSET)
    setup_future_usage: None = Field(description=_UNSET)
    shipping: None = Field(description=_UNSET)
    source: None = Field(description=_UNSET)
    statement_descriptor: None = Field(description=_UNSET)
    statement_descriptor_suffix: None = Field(description=_UNSET)
    transfer_data: None = Field(description=_UNSET)
    transfer_group: None = Field(description=_UNSET)
    status: Literal["requires_payment_method", "requires_confirmation", "requires_action",
                    "processing", "requires_capture", "succeeded", "canceled"] = Field(
        description="Where it is in its lifecycle.")


class Outcome(BaseModel):
    model_config = ConfigDict(extra="forbid")

    network_status: str = Field(description="approved_by_network, declined_by_network, ...")
    reason: str | None = Field(description="The decline code, if declined.")
    risk_level: str = Field(description="Radar's risk level.")
    seller_message: str = Field(description="What happened, for the merchant.")
    type: str = Field(description="authorized, issuer_declined, ...")
    advice_code: None = Field(description=_UNSET)
    network_advice_code: None = Field(description=_UNSET)
    network_decline_code: None = Field(description=_UNSET)


class ChargeCard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    brand: str = Field(description="The card's brand.")
    capture_before: int | None = Field(None, description="Uncaptured: when the "
                                       "authorization expires (Unix seconds); absent else.")
    country: str = Field(description="The issuer's country.")
    exp_month: int = Field(description="Expiry month.")
    exp_year: int = Field(description="Expiry year.")
    funding: str = Field(description="credit, debit or prepaid.")
    last4: str = Field(description="The card number's last four digits.")
    amount_authorized: None = Field(description=_UNSET)
    authorization_code: None = Field(description=_UNSET)
    checks: None = Field(description=_UNSET)
    installments: None = Field(description=_UNSET)
    mandate: None = Field(description=_UNSET)
    network: None = Field(description=_UNSET)
    network_transaction_id: None = Field(description=_UNSET)
    regulated_status: None = Field(description=_UNSET)
    three_d_secure: None = Field(description=_UNSET)
    wallet: None = Field(description=_UNSET)


class PaymentMethodDetails(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["card"] = Field(description="The kind of payment method.")
    card: ChargeCard = Field(description="The card charged.")


class FeeDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount: int = Field(description=_AMOUNT)
    application: None = Field(description="No Connect application.")
    currency: str = Field(description=_CURRENCY)
    description: str = Field(description="Stripe processing fees.")
    type: str = Field(description="stripe_fee.")


class BalanceTransaction(BaseModel):
    """A movement of the account's balance: a charge, a refund (and its failure), a payout."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Unique identifier of the object.")
    object: Literal["balance_transaction"] = Field(description="'balance_transaction'.")
    amount: int = Field(description="Gross: positive in, negative out.")
    available_on: int = Field(description="When its funds can be paid out (Unix seconds).")
    balance_type: str = Field(description="payments.")
    created: int = Field(description="Unix seconds.")
    currency: str = Field(description=_CURRENCY)
    description: str | None = Field(description="What it is.")
    exchange_rate: None = Field(description="No conversion.")
    fee: int = Field(description="Stripe's fee.")
    fee_details: list[FeeDetail] = Field(description="The fee's parts.")
    net: int = Field(description="amount less fee.")
    reporting_category: str = Field(description="charge, refund, refund_failure, payout, "
                                    "payout_reversal.")
    source: str | dict[str, Any] | None = Field(description="What made it (expandable).")
    status: str = Field(description="pending until available_on, then available.")
    type: str = Field(description="charge, refund, refund_failure, payout or "
                      "payout_cancel.")


class Charge(StripeObject):
    object: Literal["charge"] = Field(description="'charge'.")
    amount: int = Field(description=_AMOUNT)
    amount_captured: int = Field(description="What was captured.")
    amount_refunded: int = Field(description="What was refunded (or released, uncaptured).")
    billing_details: BillingDetailsOut | None = Field(description="Who paid.")
    captured: bool = Field(description="Whether it was captured.")
    currency: str = Field(description=_CURRENCY)
    customer: str | Customer | DeletedCustomer | None = Field(
        description="The customer (expandable).")
    description: str | None = Field(description="An internal description.")
    disputed: bool = Field(description="Whether it was disputed.")
    failure_code: str | None = Field(description="Why it failed: Stripe's error code.")
    failure_message: str | None = Field(description="Why it failed, in words.")
    outcome: Outcome = Field(description="What the card network answered.")
    paid: bool = Field(description="Whether it succeeded (or was authorized).")
    payment_intent: str | PaymentIntent | None = Field(
        description="Its PaymentIntent (expandable).")
    payment_method: str | None = Field(description="The PaymentMethod charged.")
    payment_method_details: PaymentMethodDetails | None = Field(
        description="The card charged.")
    refunded: bool = Field(description="Whether all of it was refunded.")
    status: Literal["succeeded", "pending", "failed"] = Field(description="Its status.")
    application: None = Field(description=_UNSET)
    application_fee: None = Field(description=_UNSET)
    application_fee_amount: None = Field(description=_UNSET)
    balance_transaction: str | BalanceTransaction | None = Field(
        description="The balance transaction of its captured funds (expandable); null until "
        "captured.")
    calculated_statement_descriptor: None = Field(description=_UNSET)
    failure_balance_transaction: None = Field(description=_UNSET)
    fraud_details: None = Field(description=_UNSET)
    on_behalf_of: None = Field(description=_UNSET)
    receipt_email: None = Field(description=_UNSET)
    receipt_number: None = Field(description=_UNSET)
    receipt_url: None = Field(description=_UNSET)
    review: None = Field(description=_UNSET)
    shipping: None = Field(description=_UNSET)
    source: None = Field(description=_UNSET)
    source_transfer: None = Field(description=_UNSET)
    statement_descriptor: None = Field(description=_UNSET)
    statement_descriptor_suffix: None = Field(description=_UNSET)
    transfer_data: None = Field(description=_UNSET)
    transfer_group: None = Field(description=_UNSET)


class Refund(BaseModel):
    """Stripe's refund has no ``livemode``."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description=_ID)
    object: Literal["refund"] = Field(description="'refund'.")
    created: int = Field(description=_CREATED)
    metadata: dict[str, str] = Field(description=_METADATA)
    amount: int = Field(description=_AMOUNT)
    charge: str | Charge = Field(description="The charge refunded (expandable).")
    currency: str = Field(description=_CURRENCY)
    failure_reason: str | None = Field(None, description="Why it failed: only if it did.")
    payment_intent: str | PaymentIntent | None = Field(
        description="The charge's PaymentIntent (expandable).")
    reason: str | None = Field(description="duplicate, fraudulent or requested_by_customer.")
    status: Literal["pending", "requires_action", "succeeded", "failed", "canceled"] = Field(
        description="Its status.")
    balance_transaction: str | BalanceTransaction | None = Field(
        description="The balance transaction that took its amount from the balance "
        "(expandable); null if none did (canceled before it moved).")
    failure_balance_transaction: str | BalanceTransaction | None = Field(
        None, description="Only once it failed: the balance transaction that gave its amount "
        "back (type refund_failure, expandable).")
    receipt_number: None = Field(description=_UNSET)
    source_transfer_reversal: None = Field(description=_UNSET)
    transfer_reversal: None = Field(description=_UNSET)


class EvidenceDetails(BaseModel):
    model_config = ConfigDict(extra="forbid")

    due_by: int = Field(description="Evidence is due by then (Unix seconds).")
    has_evidence: bool = Field(description="Whether evidence was given.")
    past_due: bool = Field(description="Whether the deadline passed without a response.")
    submission_count: int = Field(description="How many times evidence was submitted.")
    enhanced_eligibility: dict[str, Any] = Field(description="Visa's enhanced evidence: none.")


class Dispute(StripeObject):
    object: Literal["dispute"] = Field(description="'dispute'.")
    amount: int = Field(description=_AMOUNT)
    charge: str | Charge = Field(description="The disputed charge (expandable).")
    currency: str = Field(description=_CURRENCY)
    evidence: dict[str, str | dict[str, Any] | None] = Field(
        description="The evidence given, by field (text only: files are not kept, null; "
        "enhanced_evidence: {}).")
    evidence_details: EvidenceDetails = Field(description="The deadline and submissions.")
    is_charge_refundable: bool = Field(description="Whether the charge can still be refunded.")
    payment_intent: str | PaymentIntent | None = Field(
        description="The charge's PaymentIntent (expandable).")
    reason: str = Field(description="The cardholder's reason: fraudulent, duplicate, "
                        "product_not_received, ...")
    status: Literal["warning_needs_response", "warning_under_review", "warning_closed",
                    "needs_response", "under_review", "won", "lost"] = Field(
        description="Inquiries: warning_*; chargebacks: needs_response, under_review, won, "
        "lost.")
    balance_transactions: list[dict[str, Any]] = Field(description="Not kept: empty.")
    enhanced_eligibility_types: list[str] = Field(description="None here: empty.")


class EventRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: None = Field(description="Request logs are not kept.")
    idempotency_key: str | None = Field(description="The request's Idempotency-Key, if any.")


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description=_ID)
    object: Literal["event"] = Field(description="'event'.")
    api_version: str = Field(description="The API version of data.object.")
    created: int = Field(description=_CREATED)
    data: dict[str, Any] = Field(description="{object}: the object as it was then.")
    livemode: bool = Field(description=_LIVEMODE)
    pending_webhooks: int = Field(description="Webhooks not yet delivered (none here).")
    request: EventRequest = Field(description="The API request that caused it.")
    type: str = Field(description="What happened, e.g. 'payment_intent.succeeded'.")


class Coupon(StripeObject):
    object: Literal["coupon"] = Field(description="'coupon'.")
    amount_off: int | None = Field(description="Amount taken off, in currency's minor unit.")
    currency: str | None = Field(description="amount_off's currency.")
    duration: Literal["once", "repeating", "forever"] = Field(
        description="How long a subscription keeps the discount.")
    duration_in_months: int | None = Field(description="With duration=repeating: months.")
    max_redemptions: int | None = Field(description="How many times it can be redeemed.")
    name: str | None = Field(description="Shown to customers.")
    percent_off: float | None = Field(description="Percent taken off the subtotal.")
    redeem_by: int | None = Field(description="Last moment it can be redeemed (Unix seconds).")
    times_redeemed: int = Field(description="How many times it was redeemed.")
    valid: bool = Field(description="Whether it can still be redeemed: not past redeem_by, "
                        "nor redeemed max_redemptions times.")


class DeletedCoupon(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description=_ID)
    object: Literal["coupon"] = Field(description="'coupon'.")
    deleted: Literal[True] = Field(description="Always true: the coupon was deleted.")


class CodeRestrictions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    first_time_transaction: bool = Field(
        description="Only customers without a successful payment may redeem it.")
    minimum_amount: int | None = Field(description="The least subtotal it may be redeemed on.")
    minimum_amount_currency: str | None = Field(description="minimum_amount's currency.")


class PromotionCode(StripeObject):
    object: Literal["promotion_code"] = Field(description="'promotion_code'.")
    active: bool = Field(description="Whether it can be redeemed: switched off by you, or "
                         "once it expires, is used up or its coupon is no longer valid.")
    code: str = Field(description="What customers type (matched regardless of case).")
    coupon: Coupon = Field(description="The coupon it redeems.")
    customer: str | Customer | None = Field(description="The only customer who may redeem it "
                                            "(expandable).")
    expires_at: int | None = Field(description="When it stops working (Unix seconds).")
    max_redemptions: int | None = Field(description="How many times it can be redeemed.")
    restrictions: CodeRestrictions = Field(description="Who and what it may be redeemed for.")
    times_redeemed: int = Field(description="How many times it was redeemed.")


class SessionDiscount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    coupon: str | None = Field(description="The coupon applied.")
    promotion_code: str | None = Field(description="The promotion code applied, if one was.")


class TotalDetails(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount_discount: int = Field(description="Taken off by the discount.")
    amount_shipping: int = Field(description="Shipping (the shop's own sessions; 0 for "
                                 "those made through this API).")
    amount_tax: int = Field(description="Tax (0: not collected here).")


class CustomerDetails(BaseModel):
    model_config = ConfigDict(extra="forbid")

    email: str | None = Field(description="The email the customer paid with.")
    name: str | None = Field(description="The name the customer paid with.")
    address: None = Field(description=_UNSET)
    phone: None = Field(description=_UNSET)
    tax_exempt: None = Field(description=_UNSET)
    tax_ids: None = Field(description=_UNSET)


class AutomaticTax(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: Literal[False] = Field(description="Tax is not calculated here.")
    liability: None = Field(description=_UNSET)
    provider: None = Field(description=_UNSET)
    status: None = Field(description=_UNSET)


class CustomText(BaseModel):
    model_config = ConfigDict(extra="forbid")

    after_submit: None = Field(description=_UNSET)
    shipping_address: None = Field(description=_UNSET)
    submit: None = Field(description=_UNSET)
    terms_of_service_acceptance: None = Field(description=_UNSET)


class LineItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description=_ID)
    object: Literal["item"] = Field(description="'item'.")
    amount_discount: int = Field(description="Its share of the discount.")
    amount_subtotal: int = Field(description="Price times quantity, before the discount.")
    amount_tax: int = Field(description="Tax (0).")
    amount_total: int = Field(description="After the discount.")
    currency: str = Field(description=_CURRENCY)
    description: str = Field(description="The product's name.")
    price: Price = Field(description="The price bought.")
    quantity: int = Field(description="How many.")


class CheckoutSession(StripeObject):
    object: Literal["checkout.session"] = Field(description="'checkout.session'.")
    allow_promotion_codes: bool | None = Field(description="Whether the customer may enter a "
                                               "promotion code.")
    amount_subtotal: int = Field(description="The items' total before the discount.")
    amount_total: int = Field(description="What the customer pays.")
    cancel_url: str | None = Field(description="Where the customer goes if they go back.")
    client_reference_id: str | None = Field(description="Your reference for it.")
    currency: str = Field(description=_CURRENCY)
    customer: str | Customer | DeletedCustomer | None = Field(
        description="The customer who pays, if one was given (expandable).")
    customer_details: CustomerDetails | None = Field(
        description="Who paid: set once it is complete.")
    customer_email: str | None = Field(description="The email it was created with.")
    discounts: list[SessionDiscount] = Field(description="The discount applied, if any.")
    expires_at: int = Field(description="When it expires if not completed (Unix seconds).")
    line_items: StripeList[LineItem] | None = Field(
        None, description="Only when expanded (expand[]=line_items): the items bought.")
    mode: Literal["payment"] = Field(description="payment.")
    payment_intent: str | PaymentIntent | None = Field(
        description="Its PaymentIntent, once the customer tried to pay (expandable).")
    payment_method_types: list[str] = Field(description="Kinds of payment method it accepts.")
    payment_status: Literal["paid", "unpaid", "no_payment_required"] = Field(
        description="paid once complete (no_payment_required: the discount covered it all).")
    status: Literal["open", "complete", "expired"] = Field(
        description="open until the customer pays (complete) or it expires (expired).")
    success_url: str | None = Field(description="Where the customer goes once paid.")
    total_details: TotalDetails = Field(description="Discount, shipping and tax.")
    url: str | None = Field(description="The checkout page's path on this app (relative to "
                            "its base URL), while open.")
    automatic_tax: AutomaticTax = Field(description="Automatic tax: off.")
    custom_fields: list[dict[str, Any]] = Field(description="No custom fields: empty.")
    custom_text: CustomText = Field(description="No custom text.")
    shipping_options: list[dict[str, Any]] = Field(description="No shipping rates: empty.")
    ui_mode: Literal["hosted"] = Field(description="A page hosted by the checkout: hosted.")
    adaptive_pricing: None = Field(description=_UNSET)
    after_expiration: None = Field(description=_UNSET)
    billing_address_collection: None = Field(description=_UNSET)
    client_secret: None = Field(description=_UNSET)
    collected_information: None = Field(description=_UNSET)
    consent: None = Field(description=_UNSET)
    consent_collection: None = Field(description=_UNSET)
    currency_conversion: None = Field(description=_UNSET)
    customer_creation: None = Field(description=_UNSET)
    invoice: None = Field(description=_UNSET)
    invoice_creation: None = Field(description=_UNSET)
    locale: None = Field(description=_UNSET)
    payment_link: None = Field(description=_UNSET)
    payment_method_collection: None = Field(description=_UNSET)
    payment_method_configuration_details: None = Field(description=_UNSET)
    payment_method_options: None = Field(description=_UNSET)
    permissions: None = Field(description=_UNSET)
    recovered_from: None = Field(description=_UNSET)
    saved_payment_method_options: None = Field(description=_UNSET)
    setup_intent: None = Field(description=_UNSET)
    shipping_address_collection: None = Field(description=_UNSET)
    shipping_cost: None = Field(description=_UNSET)
    submit_type: None = Field(description=_UNSET)
    subscription: None = Field(description=_UNSET)
    wallet_options: None = Field(description=_UNSET)


class StripeList(BaseModel, Generic[T]):
    model_config = ConfigDict(extra="forbid")

    object: Literal["list"] = Field(description="'list'.")
    data: list[T] = Field(description="This page's objects, newest first.")
    has_more: bool = Field(description="Whether more objects follow: pass the last one's id as "
                           "starting_after for them.")
    url: str = Field(description="The list's path.")


class SearchResult(BaseModel, Generic[T]):
    """Stripe's page of search results (docs.stripe.com/api/pagination/search)."""

    model_config = ConfigDict(extra="forbid")

    object: Literal["search_result"] = Field(description="'search_result'.")
    data: list[T] = Field(description="This page's objects, newest first.")
    has_more: bool = Field(description="Whether more objects follow: pass next_page as page "
                           "for them.")
    next_page: str | None = Field(description="The cursor of the next page, if any.")
    url: str = Field(description="The search's path.")
    total_count: int | None = Field(None, description="How many objects match in all (with "
                                    "expand[]=total_count).")
