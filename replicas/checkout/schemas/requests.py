"""Request bodies, as Stripe's API takes them: form-encoded in bracket notation (the runtime's
FormBodies makes them JSON) or JSON; values given as text (``amount=2000``) read as their
types. Unknown parameters are refused (``parameter_unknown``). The objects answered are in
stripe.py and store.py.

Every integer parameter is marked :data:`INTEGER` (``Annotated[int, Interval(...),
INTEGER]``, the bounds checked after it): Stripe's coercion, a JSON integer or its
decimal text (``"2000"``, ``"-5"``); anything else (``" 5"``, ``"5.0"``, ``"1e3"``, ``"true"``,
``true``, ``5.0``) is refused ``parameter_invalid_integer`` "Invalid integer: <value>", where
pydantic's lax mode would read all of them as numbers."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from annotated_types import Interval
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from replicas.runtime.params import MAX_ID

# Stripe's integers are 64-bit: longer text is no integer it takes (and Python's int() of
# more than 4,300 digits raises).
_INTEGER_TEXT = re.compile(r"-?[0-9]{1,19}")
_ECHOED = 100  # characters of a refused value the message repeats


def _integer(value: Any) -> Any:
    if type(value) is int or (isinstance(value, str) and _INTEGER_TEXT.fullmatch(value)):
        return int(value)
    shown = "true" if value is True else "false" if value is False else str(value)
    raise PydanticCustomError("stripe_integer", "Invalid integer: {value}",
                              {"value": shown[:_ECHOED] + ("..." if len(shown) > _ECHOED else "")})


# The marker of every integer parameter (bounds before it: checked after the coercion).
INTEGER = BeforeValidator(_integer)


MetadataKey = Annotated[str, StringConstraints(min_length=1, max_length=40,
                                               pattern=r"^[^\[\]]+$")]
# A number is taken as its text (a form body sends it so), and documented so: a tool's
# arguments are checked against this schema (workgym.tools).
MetadataValue = Annotated[str, BeforeValidator(
    lambda v: str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v),
    StringConstraints(max_length=500), WithJsonSchema(
        {"anyOf": [{"type": "string", "maxLength": 500}, {"type": "number"}]})]
# Stripe's limits: 50 keys of up to 40 characters, values of up to 500; on an update a key
# set to "" (or null) is removed, and metadata="" removes them all.
Metadata = Annotated[dict[MetadataKey, MetadataValue | None], Field(max_length=50)] | Literal[""]
Amount = Annotated[int, Interval(ge=1, le=99_999_999), INTEGER]
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Za-z]{3}$")]
ObjectId = Annotated[str, StringConstraints(min_length=1, max_length=255)]
Text = Annotated[str, StringConstraints(max_length=5000)]
Email = Annotated[str, StringConstraints(max_length=512)]

_EXPAND = "References in the answer to expand into objects, e.g. ['customer']."
_METADATA = ("Key-value pairs (up to 50 keys; keys up to 40 characters, values up to 500). "
             "On an update, a key set to '' is removed; metadata='' removes them all.")


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expand: list[Annotated[str, StringConstraints(max_length=200)]] | None = Field(
        None, max_length=20, description=_EXPAND)


class CustomerFields(Body):
    email: Email | None = Field(None, description="The customer's email address.")
    name: Text | None = Field(None, description="The customer's full name.")
    phone: Annotated[str, StringConstraints(max_length=20)] | None = Field(
        None, description="The customer's phone number.")
    description: Text | None = Field(None, description="An internal description.")
    preferred_locales: list[Annotated[str, StringConstraints(max_length=10)]] | None = Field(
        None, max_length=10, description="Languages the customer prefers, e.g. ['de-DE'].")
    metadata: Metadata | None = Field(None, description=_METADATA)


class CustomerCreate(CustomerFields):
    payment_method: ObjectId | None = Field(
        None, description="A PaymentMethod to attach to the new customer.")


class CustomerUpdate(CustomerFields):
    pass


class ProductFields(Body):
    description: Text | None = Field(None, description="The product's description.")
    active: bool | None = Field(None, description="Whether it can be bought.")
    url: Text | None = Field(None, description="A public page about the product.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class ProductCreate(ProductFields):
    name: Annotated[str, StringConstraints(min_length=1, max_length=250)] = Field(
        description="The product's name, shown to customers.")


class ProductUpdate(ProductFields):
    name: Annotated[str, StringConstraints(min_length=1, max_length=250)] | None = Field(
        None, description="The product's name, shown to customers.")
    default_price: ObjectId | None = Field(None, description="The id of one of its prices.")


class Recurring(BaseModel):
    model_config = ConfigDict(extra="forbid")

    interval: Literal["day", "week", "month", "year"] = Field(description="Billing period.")
    interval_count: Annotated[int, Interval(ge=1, le=36), INTEGER] = Field(
        1, description="Periods between two billings.")


class PriceFields(Body):
    nickname: Annotated[str, StringConstraints(max_length=250)] | None = Field(
        None, description="An internal name.")
    lookup_key: Annotated[str, StringConstraints(max_length=200)] | None = Field(
        None, description="A key to find the price by.")
    active: bool | None = Field(None, description="Whether new payments may use it.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class PriceCreate(PriceFields):
    product: ObjectId = Field(description="The product's id.")
    currency: Currency = Field(description="Three-letter ISO currency code.")
    unit_amount: Annotated[int, Interval(ge=0, le=99_999_999), INTEGER] = Field(
        description="Price in the currency's minor unit (JPY, KRW: whole units).")
    recurring: Recurring | None = Field(None, description="Makes it a recurring price.")


class PriceUpdate(PriceFields):
    pass


class CardDetails(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: Annotated[str, StringConstraints(pattern=r"^[0-9 ]{12,23}$")] = Field(
        description="The card number (Stripe's test cards: docs.stripe.com/testing).")
    exp_month: Annotated[int, Interval(ge=1, le=12), INTEGER] = Field(
        description="Expiry month.")
    exp_year: Annotated[int, Interval(ge=2000, le=2100), INTEGER] = Field(
        description="Expiry year.")
    cvc: Annotated[str, StringConstraints(pattern=r"^[0-9]{3,4}$")] | None = Field(
        None, description="The card's security code.")


class BillingDetails(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Text | None = Field(None, description="The cardholder's name.")
    email: Email | None = Field(None, description="The cardholder's email address.")


class PaymentMethodData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["card"] = Field(description="The kind of payment method.")
    card: CardDetails = Field(description="The card.")
    billing_details: BillingDetails | None = Field(None, description="Who pays.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class PaymentMethodCreate(Body, PaymentMethodData):
    pass


class PaymentMethodUpdate(Body):
    billing_details: BillingDetails | None = Field(None, description="Who pays.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class PaymentMethodAttach(Body):
    customer: ObjectId = Field(description="The customer to attach it to.")


class PaymentMethodDetach(Body):
    pass


CaptureMethod = Literal["automatic", "automatic_async", "manual"]
_CAPTURE = ("When the funds are captured: at once (automatic, automatic_async) or when you "
            "capture the authorization (manual; it expires after 7 days).")
_PAYMENT_METHOD = ("A PaymentMethod id, or one of Stripe's test PaymentMethods "
                   "(pm_card_visa, pm_card_chargeDeclined, ...).")
_RETURN_URL = "Where the customer's browser returns after a 3-D Secure challenge."


class AutomaticPaymentMethodsParam(Body):
    enabled: bool = Field(description="Accept the payment methods the account has switched on "
                          "(cards).")
    allow_redirects: Literal["always", "never"] | None = Field(
        None, description="Whether payment methods that redirect may be used (default always).")


class PaymentIntentCreate(Body):
    amount: Amount = Field(description="Amount in the currency's minor unit (JPY: whole yen).")
    currency: Currency = Field(description="Three-letter ISO currency code, e.g. 'usd'.")
    customer: ObjectId | None = Field(None, description="The customer who pays.")
    payment_method: ObjectId | None = Field(None, description=_PAYMENT_METHOD)
    payment_method_data: PaymentMethodData | None = Field(
        None, description="A card to make a new PaymentMethod from.")
    payment_method_types: list[Literal["card"]] | None = Field(
        None, max_length=5, description="Kinds of payment method it accepts (then automatic "
        "payment methods are off).")
    automatic_payment_methods: AutomaticPaymentMethodsParam | None = Field(
        None, description="On by default when payment_method_types is not given.")
    confirm: bool | None = Field(None, description="Confirm it at once (charges the card).")
    capture_method: CaptureMethod | None = Field(None, description=_CAPTURE)
    description: Text | None = Field(None, description="An internal description.")
    receipt_email: Email | None = Field(None, description="Where the receipt goes.")
    return_url: Text | None = Field(None, description=_RETURN_URL)
    metadata: Metadata | None = Field(None, description=_METADATA)


class PaymentIntentUpdate(Body):
    amount: Amount | None = Field(None, description="Amount in the currency's minor unit.")
    currency: Currency | None = Field(None, description="Three-letter ISO currency code.")
    customer: ObjectId | None = Field(None, description="The customer who pays.")
    payment_method: ObjectId | None = Field(None, description=_PAYMENT_METHOD)
    capture_method: CaptureMethod | None = Field(None, description=_CAPTURE)
    description: Text | None = Field(None, description="An internal description.")
    receipt_email: Email | None = Field(None, description="Where the receipt goes.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class PaymentIntentConfirm(Body):
    payment_method: ObjectId | None = Field(None, description=_PAYMENT_METHOD)
    payment_method_data: PaymentMethodData | None = Field(
        None, description="A card to make a new PaymentMethod from.")
    receipt_email: Email | None = Field(None, description="Where the receipt goes.")
    return_url: Text | None = Field(None, description=_RETURN_URL)


class PaymentIntentCapture(Body):
    amount_to_capture: Amount | None = Field(
        None, description="How much of the authorization to capture (default: all of it); "
        "the rest is released.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class PaymentIntentCancel(Body):
    cancellation_reason: Literal[
        "duplicate", "fraudulent", "requested_by_customer", "abandoned"] | None = Field(
        None, description="Why it is canceled.")


RefundReason = Literal["duplicate", "fraudulent", "requested_by_customer"]


class RefundCreate(Body):
    charge: ObjectId | None = Field(None, description="The charge to refund (or "
                                    "payment_intent).")
    payment_intent: ObjectId | None = Field(
        None, description="The PaymentIntent whose charge to refund (or charge).")
    amount: Amount | None = Field(None, description="How much (default: all that is left), in "
                                  "the charge's currency's minor unit.")
    reason: RefundReason | None = Field(None, description="Why.")
    metadata: Metadata | None = Field(None, description=_METADATA + " metadata[approval]: the "
                                      "id of the manager's refund approval (store API) the "
                                      "shop's refund policy asks for.")


class RefundUpdate(Body):
    metadata: Metadata | None = Field(None, description=_METADATA)


class RefundCancel(Body):
    pass


Evidence = Annotated[str, StringConstraints(max_length=20000)]


class DisputeEvidence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    access_activity_log: Evidence | None = Field(None, description="Activity logs.")
    billing_address: Evidence | None = Field(None, description="The billing address.")
    cancellation_policy_disclosure: Evidence | None = Field(
        None, description="How the cancellation policy was shown.")
    cancellation_rebuttal: Evidence | None = Field(
        None, description="Why the customer is not owed a cancellation.")
    customer_email_address: Evidence | None = Field(None, description="The customer's email.")
    customer_name: Evidence | None = Field(None, description="The customer's name.")
    customer_purchase_ip: Evidence | None = Field(None, description="The purchase's IP.")
    duplicate_charge_explanation: Evidence | None = Field(
        None, description="Why two similar charges are not duplicates.")
    duplicate_charge_id: Evidence | None = Field(None, description="The other charge's id.")
    product_description: Evidence | None = Field(None, description="What was sold.")
    refund_policy_disclosure: Evidence | None = Field(
        None, description="How the refund policy was shown.")
    refund_refusal_explanation: Evidence | None = Field(
        None, description="Why the customer is not owed a refund.")
    service_date: Evidence | None = Field(None, description="When the service was given.")
    shipping_address: Evidence | None = Field(None, description="Where it was shipped.")
    shipping_carrier: Evidence | None = Field(None, description="Who shipped it.")
    shipping_date: Evidence | None = Field(None, description="When it was shipped.")
    shipping_tracking_number: Evidence | None = Field(None, description="Tracking number.")
    uncategorized_text: Evidence | None = Field(None, description="Any other evidence.")


class DisputeUpdate(Body):
    evidence: DisputeEvidence | None = Field(
        None, description="Evidence to add (fields given replace those staged).")
    submit: bool | None = Field(None, description="Submit the evidence to the bank now "
                                "(default false: staged; it can be submitted once).")
    metadata: Metadata | None = Field(None, description=_METADATA)


class DisputeClose(Body):
    pass


class ChallengeAnswer(BaseModel):
    """The customer's answer to a test 3-D Secure challenge (what a browser posts)."""

    model_config = ConfigDict(extra="forbid")

    client_secret: Annotated[str, StringConstraints(max_length=255)] = Field(
        description="The PaymentIntent's client secret.")
    outcome: Literal["authenticate", "fail"] = Field(
        description="Complete the authentication, or fail it.")


# -- Coupons and promotion codes ------------------------------------------------------------

CouponId = Annotated[str, StringConstraints(min_length=1, max_length=200,
                                            pattern=r"^[A-Za-z0-9_-]+$")]
Timestamp = Annotated[int, Interval(ge=0, le=MAX_ID), INTEGER]  # Unix seconds


class CouponCreate(Body):
    id: CouponId | None = Field(None, description="An id of your choice, e.g. 'SUMMER25' "
                                "(default: 8 random characters).")
    name: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        None, description="Shown to customers on receipts.")
    percent_off: Annotated[float, Interval(gt=0, le=100)] | None = Field(
        None, description="Percent taken off the subtotal (or amount_off, not both).")
    amount_off: Amount | None = Field(
        None, description="Amount taken off the subtotal, in currency's minor unit (or "
        "percent_off, not both).")
    currency: Currency | None = Field(None, description="The currency of amount_off "
                                      "(required with it).")
    duration: Literal["once", "repeating", "forever"] | None = Field(
        None, description="How long a subscription keeps the discount: once (default), "
        "repeating (duration_in_months) or forever.")
    duration_in_months: Annotated[int, Interval(ge=1, le=36), INTEGER] | None = Field(
        None, description="Months the discount lasts, with duration=repeating only.")
    max_redemptions: Annotated[int, Interval(ge=1, le=1_000_000), INTEGER] | None = Field(
        None, description="How many times it can be redeemed in all.")
    redeem_by: Timestamp | None = Field(None, description="Last moment it can be redeemed "
                                        "(Unix seconds, in the future).")
    metadata: Metadata | None = Field(None, description=_METADATA)


class CouponUpdate(Body):
    name: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        None, description="Shown to customers on receipts.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class CodeRestrictions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    first_time_transaction: bool | None = Field(
        None, description="Only customers without a successful payment may redeem it.")
    minimum_amount: Amount | None = Field(
        None, description="The least subtotal it may be redeemed on (minimum_amount_currency "
        "required with it).")
    minimum_amount_currency: Currency | None = Field(None, description="minimum_amount's "
                                                     "currency.")


PromotionCodeText = Annotated[str, StringConstraints(min_length=1, max_length=500,
                                                     pattern=r"^[A-Za-z0-9-]+$")]


class PromotionCodeCreate(Body):
    coupon: ObjectId = Field(description="The coupon it redeems.")
    code: PromotionCodeText | None = Field(
        None, description="What customers type (letters, digits, dashes; unique among active "
        "codes, whatever the case; default: generated).")
    active: bool | None = Field(None, description="Whether it can be redeemed (default true).")
    customer: ObjectId | None = Field(None, description="Only this customer may redeem it.")
    expires_at: Timestamp | None = Field(
        None, description="When it stops working (Unix seconds; not after the coupon's "
        "redeem_by).")
    max_redemptions: Annotated[int, Interval(ge=1, le=1_000_000), INTEGER] | None = Field(
        None, description="How many times it can be redeemed (not more than the coupon's "
        "max_redemptions).")
    restrictions: CodeRestrictions | None = Field(None, description="Who and what it may be "
                                                  "redeemed for.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class PromotionCodeUpdate(Body):
    active: bool | None = Field(None, description="Switch it off (or on again).")
    metadata: Metadata | None = Field(None, description=_METADATA)


# -- Checkout Sessions ----------------------------------------------------------------------

class SessionLineItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    price: ObjectId = Field(description="A one-time price of the catalogue.")
    quantity: Annotated[int, Interval(ge=1, le=999), INTEGER] | None = Field(
        None, description="How many (required).")


class SessionDiscount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    coupon: ObjectId | None = Field(None, description="A coupon to apply.")
    promotion_code: ObjectId | None = Field(None, description="A promotion code (promo_...) "
                                            "to apply.")


class IntentData(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: Text | None = Field(None, description="The PaymentIntent's description.")
    metadata: Metadata | None = Field(None, description="The PaymentIntent's metadata.")


class SessionCreate(Body):
    mode: Literal["payment"] = Field(
        description="payment: one-time prices paid at once (subscription and setup sessions "
        "are not part of this replica).")
    line_items: list[SessionLineItem] | None = Field(
        None, max_length=100, description="What is bought: price and quantity each.")
    customer: ObjectId | None = Field(None, description="An existing customer who pays (or "
                                      "customer_email, not both).")
    customer_email: Email | None = Field(None, description="Prefills the email of a customer "
                                         "without a Customer object.")
    allow_promotion_codes: bool | None = Field(
        None, description="Let the customer enter a promotion code on the page (not with "
        "discounts).")
    discounts: list[SessionDiscount] | None = Field(
        None, max_length=1, description="One coupon or promotion code applied now (not with "
        "allow_promotion_codes).")
    expires_at: Timestamp | None = Field(
        None, description="When it expires if not completed: 30 minutes to 24 hours from now "
        "(default 24 hours).")
    success_url: Text | None = Field(None, description="Where the customer goes once paid.")
    cancel_url: Text | None = Field(None, description="Where the customer goes if they go "
                                    "back.")
    client_reference_id: Annotated[str, StringConstraints(max_length=200)] | None = Field(
        None, description="Your reference for it (a cart, an order).")
    payment_intent_data: IntentData | None = Field(
        None, description="What the PaymentIntent it makes is given.")
    metadata: Metadata | None = Field(None, description=_METADATA)


class SessionExpire(Body):
    pass


# -- The store's own API (ours, not Stripe's) -------------------------------------------------

class StoreBody(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ItemQuantity(BaseModel):
    model_config = ConfigDict(extra="forbid")

    item_id: Annotated[int, Interval(ge=1, le=MAX_ID), INTEGER] = Field(
        description="An item of the order (its items[].id).")
    quantity: Annotated[int, Interval(ge=1, le=999), INTEGER] = Field(
        description="How many units.")


StoreReason = Annotated[str, StringConstraints(min_length=1, max_length=500)]


class OrderCancel(StoreBody):
    items: list[ItemQuantity] | None = Field(
        None, min_length=1, max_length=100, description="The units to cancel (default: every "
        "unit not yet shipped). Shipped units cannot be cancelled: return them.")
    reason: StoreReason | None = Field(None, description="Why (kept on the order).")


class ReturnCreate(StoreBody):
    items: list[ItemQuantity] = Field(min_length=1, max_length=100, description=(
        "The units received back (shipped ones only)."))
    restock: bool = Field(description="Put them back in stock (false: damaged, written off).")
    refund: bool | None = Field(None, description="Refund what was paid for them to the "
                                "order's payment (default true).")
    amount: Amount | None = Field(None, description="Refund this much instead (no more than "
                                  "was paid for them), e.g. keeping a restocking fee.")
    reason: StoreReason | None = Field(None, description="Why they came back.")


class EmailChangeRequest(StoreBody):
    new_email: Annotated[str, StringConstraints(
        max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")] = Field(
        description="The new address; a 6-digit code is sent to it.")


class TwoFactorReset(StoreBody):
    identity_verified: bool = Field(
        description="Set true only after verifying the account holder's identity by "
        "verification_method.")
    verification_method: Literal[
        "security_questions", "id_document", "callback_phone_on_file", "verified_email_link"
    ] = Field(description="How the account holder's identity was verified.")


class PasswordReset(StoreBody):
    pass


class VerifyCode(StoreBody):
    code: Annotated[str, StringConstraints(pattern=r"^\d{6}$")] = Field(
        description="The 6-digit code the account holder received at the new address.")


class ApprovalCreate(StoreBody):
    charge: ObjectId = Field(description="The charge to refund (ch_...).")
    amount: Amount = Field(description="The refund it is for, in the charge's currency's minor "
                           "unit.")
    reason: StoreReason = Field(description="Why the customer is refunded.")
    ticket: Annotated[int, Interval(ge=1, le=MAX_ID), INTEGER] | None = Field(
        None, description="The helpdesk ticket it is for.")
