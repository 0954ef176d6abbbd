"""The checkout replica: the shop's payments on a Stripe-compatible API.

Its spec is ``spec.py``'s ``SPEC`` (found by the catalogue: importing this package imports no
routes); see README.md for the endpoints and Stripe's reference for each, the rules and the
data's mess.
"""
