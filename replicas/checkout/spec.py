"""The checkout's :class:`ReplicaSpec`: what the runtime serves, seeds and sets up."""

from __future__ import annotations

from functools import partial

from replicas.runtime.forms import FormBodies
from replicas.runtime.spec import ReplicaSpec

from .errors import STYLE, render
from .factories import ACTIVITY, FACTORIES
from .idempotency import InFlightKeys
from .routes import TAGS, router
from .rules import accounts

SPEC = ReplicaSpec(
    name="checkout",
    title="Checkout payments",
    description=(
        "The shop's payments, on a Stripe-compatible API (test mode): customers, products and "
        "prices, PaymentMethods, PaymentIntents (confirm, 3-D Secure, capture, cancel), "
        "charges, refunds, disputes, coupons and promotion codes, Checkout Sessions and "
        "events, under /v1; and the shop's own API (not Stripe's) under /store: orders "
        "(cancellations, returns), stock, refund approvals and customer accounts. Bodies "
        "are form-encoded in bracket notation (metadata[order]=A-10423) or JSON; Stripe's "
        "lists are cursor-paged (limit, starting_after, ending_before), the store's "
        "offset-paged; amounts are integers in the currency's minor unit "
        "(JPY, KRW: whole units), currencies lowercase. Errors are Stripe's "
        '{"error": {type, code, message, param, decline_code}}; POSTs take an '
        "Idempotency-Key header."
    ),
    data_version="8",
    router=router,
    probe={"update": "products", "id": 1,
           "values": {"description": "Catalogue review scheduled (probe: no task allows "
                                     "this)."}},
    factories=FACTORIES,
    # The codes an email change sends (the customer in another app reads them).
    mail=lambda episode, changed: accounts.mail(episode.db, episode.secret, changed),
    activity=ACTIVITY,
    openapi_tags=TAGS,
    errors=STYLE,
    # Outermost first: concurrent duplicates refused before anything else, then form bodies.
    middleware=(InFlightKeys, partial(FormBodies, render=render)),
    public_id="stripe_id",
)
