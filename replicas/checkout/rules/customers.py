"""Customers: created, updated and deleted (a deleted customer answers as one; it is gone
from lists and cannot pay)."""

from __future__ import annotations

from typing import Any

from ..errors import ResourceMissing
from ..render import Row
from ..schemas.requests import CustomerCreate, CustomerUpdate
from . import payment_methods
from .common import World, dumps, given, metadata, text

_TEXT = ("email", "name", "phone", "description")


def live(w: World, customer_id: str, *, param: str = "id") -> Row:
    """A customer who was not deleted (resource_missing otherwise, as Stripe's writes
    answer; ``param``: the parameter that named them, if not the path)."""
    row = w.objects.row("customers", customer_id, kind="customer", param=param)
    if row["deleted"]:
        raise ResourceMissing("customer", customer_id, param=param)
    return row


def create(w: World, body: CustomerCreate) -> Row:
    row = w.create("customers", {
        **{k: text(getattr(body, k)) for k in _TEXT}, "currency": None,
        "preferred_locales": dumps(body.preferred_locales or []), "deleted": 0,
        "metadata": metadata("{}", body.metadata)})
    w.emit("customer.created", "customers", row)
    if body.payment_method:
        payment_methods.attach(w, payment_methods.resolve(w, body.payment_method),
                               row["stripe_id"])
    return row


def update(w: World, row: Row, body: CustomerUpdate) -> Row:
    values: dict[str, Any] = {k: text(v) for k, v in given(body, *_TEXT).items()}
    if body.preferred_locales is not None:
        values["preferred_locales"] = dumps(body.preferred_locales)
    values["metadata"] = metadata(row["metadata"], body.metadata)
    row = w.update("customers", row, values)
    w.emit("customer.updated", "customers", row)
    return row


def delete(w: World, row: Row) -> Row:
    w.emit("customer.deleted", "customers", row)  # data.object: the customer as it was
    return w.update("customers", row, {"deleted": 1})
