"""Stripe ids: a prefix naming the object's kind and a random-looking token (``cus_`` and 14
characters, ``pi_`` and 24, ...), drawn from a deterministic stream: the world's generator
and factories draw from their seeded ``Random``; an object the API creates draws from (the
episode's seed, its table, its row id), so the same seed and the same requests give the same
ids, byte for byte."""

from __future__ import annotations

import random
import sqlite3
import string

# table -> (the prefix of its objects' ids, the length of the token after it). Coupons have
# no prefix (Stripe's are 8 random characters, or an id the merchant chose).
FORMATS = {
    "customers": ("cus_", 14), "products": ("prod_", 14), "prices": ("price_", 24),
    "payment_methods": ("pm_", 24), "payment_intents": ("pi_", 24), "charges": ("ch_", 24),
    "refunds": ("re_", 24), "disputes": ("dp_", 24), "events": ("evt_", 24),
    "coupons": ("", 8), "promotion_codes": ("promo_", 24),
    "checkout_sessions": ("cs_test_", 58), "checkout_line_items": ("li_", 24),
    "subscriptions": ("sub_", 24), "subscription_items": ("si_", 14), "invoices": ("in_", 24),
    "invoice_lines": ("il_", 24), "credit_notes": ("cn_", 24), "credit_note_lines": ("cnli_", 24),
    "customer_balance_transactions": ("cbtxn_", 24), "balance_transactions": ("txn_", 24),
    "payouts": ("po_", 24),
}
TABLES = {prefix.partition("_")[0]: table for table, (prefix, _) in FORMATS.items() if prefix}
_ALPHABET = string.digits + string.ascii_letters


def token(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(_ALPHABET) for _ in range(length))


def stripe_id(table: str, rng: random.Random) -> str:
    """A new Stripe id for a row of ``table``, drawn from ``rng``."""
    prefix, length = FORMATS[table]
    return prefix + token(rng, length)


def table_of(object_id: str) -> str | None:
    """The table whose objects have ids like ``object_id`` (None: no prefix of ours)."""
    return TABLES.get(object_id.partition("_")[0])


def next_row(db: sqlite3.Connection, table: str, seed: int,
             ahead: int = 0) -> tuple[int, random.Random]:
    """The row id the API's next ``table`` object gets (``ahead``: the one so many after
    it), and its id stream."""
    last = db.execute(f"SELECT coalesce(max(id), 0) AS n FROM {table}").fetchone()["n"]
    at = last + 1 + ahead
    return at, random.Random(f"checkout:{seed}:{table}:{at}")
