"""What every checkout rule shares: the world a request acts on, new objects with their ids and
events, metadata, currencies and amounts, and the state errors of Stripe's state machines."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso

from ..errors import InvalidRequestError
from ..ids import next_row, stripe_id
from ..render import Objects, Row

# Stripe's zero-decimal currencies: amounts are whole units (docs.stripe.com/currencies).
ZERO_DECIMAL = frozenset({"bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf",
                          "ugx", "vnd", "vuv", "xaf", "xof", "xpf"})
# The currencies this replica's account settles, with Stripe's minimum charge amounts.
MINIMUM = {"usd": 50, "eur": 50, "gbp": 30, "jpy": 50, "krw": 100, "cad": 50, "aud": 50,
           "chf": 50, "sek": 300, "nzd": 50}


def unix(moment: datetime) -> int:
    return int(moment.timestamp())


@dataclass(frozen=True)
class World:
    """One request's view of an episode: its database, clock (Unix seconds), seed (which new
    ids derive from), the request's Idempotency-Key (events name it) and the episode's secret
    (which the codes the store emails derive from: never shown to the agent)."""

    db: sqlite3.Connection
    now: int
    seed: int
    idempotency_key: str | None = None
    secret: str = ""

    @property
    def stamp(self) -> str:
        """The clock in the store's time format (ISO 8601, the runtime's)."""
        return iso(datetime.fromtimestamp(self.now, UTC))

    @property
    def objects(self) -> Objects:
        return Objects(self.db, self.now)

    def create(self, table: str, values: dict[str, Any]) -> Row:
        """Insert a new object into ``table`` (its ids and ``created`` made here)."""
        row_id, rng = next_row(self.db, table, self.seed)
        row = {"id": row_id, "stripe_id": stripe_id(table, rng), "created": self.now, **values}
        sql.insert(self.db, table, row)
        found = sql.one(self.db, f"SELECT * FROM {table} WHERE id = ?", (row_id,))
        assert found is not None
        return found

    def update(self, table: str, row: Row, values: dict[str, Any]) -> Row:
        """Write ``values`` to ``row``; the row as it is now."""
        sql.update(self.db, table, row["id"], values)
        found = sql.one(self.db, f"SELECT * FROM {table} WHERE id = ?", (row["id"],))
        assert found is not None
        return found

    def emit(self, kind: str, table: str, row: Row) -> None:
        """Record the event ``kind`` (``payment_intent.succeeded``) of ``row`` as it is now."""
        obj = self.objects.render(table, row)
        self.create("events", {"type": kind, "data": dumps({"object": obj}),
                               "idempotency_key": self.idempotency_key})


def dumps(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def metadata(current: str, given: dict[str, str | None] | str | None) -> str:
    """Stripe's metadata update: given keys set, a key given '' (or null) removed, '' for the
    whole of it removes every key; None leaves it as it is."""
    if given is None:
        return current
    if given == "":
        return "{}"
    assert isinstance(given, dict)
    merged = {**orjson.loads(current), **given}
    kept = {k: v for k, v in merged.items() if v not in ("", None)}
    if len(kept) > 50:
        raise InvalidRequestError("Invalid metadata: metadata can have at most 50 keys.",
                                  code="parameter_invalid", param="metadata")
    return dumps(kept)


def currency(code: str, *, param: str = "currency") -> str:
    """A currency code as Stripe keeps it (lowercase), if this account settles it."""
    lowered = code.lower()
    if lowered not in MINIMUM:
        raise InvalidRequestError(
            f"Invalid currency: {lowered}. This account supports these currencies: "
            f"{', '.join(sorted(MINIMUM))}.", code="parameter_invalid", param=param)
    return lowered


def charge_amount(amount: int, code: str, *, param: str = "amount") -> None:
    """Stripe's minimum charge amount of the currency (``amount_too_small``)."""
    least = MINIMUM[code]
    if amount < least:
        whole = code in ZERO_DECIMAL
        shown = f"{least}" if whole else f"{least / 100:.2f}"
        raise InvalidRequestError(
            f"Amount must be at least {shown} {code}", code="amount_too_small", param=param)


def refused(message: str, code: str, param: str | None = None) -> InvalidRequestError:
    """A refusal of the store's own (its code, the parameter it is about)."""
    return InvalidRequestError(message, code=code, param=param)


def exclusive(*names: str) -> InvalidRequestError:
    """Stripe's refusal of parameters that exclude each other."""
    return InvalidRequestError(f"You may only specify one of these parameters: "
                               f"{', '.join(names)}.", code="parameters_exclusive",
                               param=names[0])


def text(value: str | None) -> str | None:
    """A text parameter as stored: '' unsets it (Stripe's form convention)."""
    return value or None


def given(body: Any, *names: str) -> dict[str, Any]:
    """The parameters among ``names`` the request set (form bodies cannot send null)."""
    return {name: getattr(body, name) for name in names if name in body.model_fields_set}
