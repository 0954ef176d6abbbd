"""What the pages' forms post (form-encoded, made JSON by the app's FormBodies: the card
form's fields are named as the API's, ``payment_method_data[card][number]``), and what the
customer is told about a field that will not do."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from ..schemas.requests import ObjectId, PaymentMethodData
from .cart import MAX_TEXT

# Where the shop ships (the countries of the seed's people).
COUNTRIES = {"US": "United States", "GB": "United Kingdom", "DE": "Germany", "FR": "France",
             "ES": "Spain", "JP": "Japan"}

Secret = Annotated[str, StringConstraints(min_length=1, max_length=255)]
Short = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


class ShippingForm(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cart: Annotated[str, StringConstraints(max_length=MAX_TEXT)]
    name: Short
    email: Annotated[str, StringConstraints(strip_whitespace=True, max_length=254,
                                            pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
    line1: Short
    city: Short
    postal_code: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                                  max_length=20)]
    country: Annotated[str, Field(pattern="^(" + "|".join(COUNTRIES) + ")$")]

    @property
    def ship_to(self) -> str:
        """The address on one line, as the order keeps it."""
        return (f"{self.name}, {self.line1}, {self.postal_code} {self.city}, "
                f"{COUNTRIES[self.country]}")


class IntentRef(BaseModel):
    """The PaymentIntent a page acts on, and its client secret (as Stripe.js holds it)."""

    payment_intent: ObjectId
    payment_intent_client_secret: Secret


class PaymentForm(IntentRef):
    model_config = ConfigDict(extra="forbid")

    payment_method_data: PaymentMethodData


# What the customer reads about a field that will not do, by the field's name.
_TOLD = {
    "name": "Enter the name.",
    "email": "Enter an email address such as name@example.com.",
    "line1": "Enter the street address.",
    "city": "Enter the city.",
    "postal_code": "Enter the postal code.",
    "country": "Choose a country we ship to.",
    "number": "Your card number is incomplete.",
    "exp_month": "Your card's expiration month is invalid.",
    "exp_year": "Your card's expiration year is invalid.",
    "cvc": "Your card's security code is incomplete.",
}


def problems(error: ValidationError) -> dict[str, str]:
    """Field name -> what to tell the customer, for each field the form got wrong."""
    found: dict[str, str] = {}
    for detail in error.errors():
        field = str(detail["loc"][-1]) if detail["loc"] else "form"
        found.setdefault(field, _TOLD.get(field, "Check this field."))
    return found
