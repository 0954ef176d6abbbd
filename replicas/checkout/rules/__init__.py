"""Business rules of the checkout: Stripe's, as plain functions over one request's
:class:`~.common.World` (the episode's database, clock and seed), everything else keyword-only
or typed request bodies. A refused request raises a Stripe error (errors.py); routes run in
one transaction, so a refusal leaves the database untouched. A declined card is the one
outcome that is written *and* answered with an error (payment_intents.py, sessions.py). One
module per area; every change of a Stripe object records its events (``World.emit``).

The store's own rules (``orders``, ``accounts``: not Stripe's) work on the same World and
pay money back through the payments rules (``refunds``, ``payment_intents``)."""
