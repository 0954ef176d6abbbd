"""Products and their prices."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidRequestError
from ..render import Row
from ..schemas.requests import PriceCreate, PriceUpdate, ProductCreate, ProductUpdate
from .common import World, currency, given, metadata, text


def create_product(w: World, body: ProductCreate) -> Row:
    row = w.create("products", {
        "name": body.name, "description": text(body.description),
        "active": int(body.active if body.active is not None else True),
        "default_price": None, "url": text(body.url), "updated": w.now,
        "metadata": metadata("{}", body.metadata)})
    w.emit("product.created", "products", row)
    return row


def update_product(w: World, row: Row, body: ProductUpdate) -> Row:
    values: dict[str, Any] = {k: text(v) for k, v in given(body, "description", "url").items()}
    values |= given(body, "name")
    if body.active is not None:
        values["active"] = int(body.active)
    if body.default_price:
        price = w.objects.row("prices", body.default_price, kind="price",
                              param="default_price")
        if price["product"] != row["stripe_id"]:
            raise InvalidRequestError(
                f"The price {price['stripe_id']} does not belong to this product.",
                code="parameter_invalid", param="default_price")
        values["default_price"] = price["stripe_id"]
    values |= {"metadata": metadata(row["metadata"], body.metadata), "updated": w.now}
    row = w.update("products", row, values)
    w.emit("product.updated", "products", row)
    return row


def create_price(w: World, body: PriceCreate) -> Row:
    product = w.objects.row("products", body.product, kind="product", param="product")
    row = w.create("prices", {
        "product": product["stripe_id"], "currency": currency(body.currency),
        "unit_amount": body.unit_amount,
        "type": "recurring" if body.recurring else "one_time",
        "recurring_interval": body.recurring.interval if body.recurring else None,
        "recurring_interval_count": body.recurring.interval_count if body.recurring else None,
        "nickname": text(body.nickname), "lookup_key": text(body.lookup_key),
        "active": int(body.active if body.active is not None else True),
        "metadata": metadata("{}", body.metadata)})
    w.emit("price.created", "prices", row)
    return row


def update_price(w: World, row: Row, body: PriceUpdate) -> Row:
    values: dict[str, Any] = {k: text(v) for k, v in given(body, "nickname",
                                                           "lookup_key").items()}
    if body.active is not None:
        values["active"] = int(body.active)
    values["metadata"] = metadata(row["metadata"], body.metadata)
    row = w.update("prices", row, values)
    w.emit("price.updated", "prices", row)
    return row
