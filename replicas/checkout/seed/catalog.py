"""The shop's catalogue: a product per SKU with a price per currency (recurring for the Bean
Club), and the mess: a seasonal price archived on a few products."""

from __future__ import annotations

from ..world import data
from .common import Generation

N_SEASONAL = 3


def build(g: Generation) -> None:
    r = g.rng
    created = g.unix_ago(700)
    g.price_of = {}
    for sku, spec in data()["products"].items():
        product = g.new("products", {
            "name": spec["name"], "description": None, "active": 1, "default_price": None,
            "url": None, "metadata": f'{{"sku": "{sku}"}}', "created": created,
            "updated": created})
        interval = spec.get("interval")
        for currency, amount in spec["prices"].items():
            price = g.new("prices", {
                "product": product["stripe_id"], "currency": currency, "unit_amount": amount,
                "type": "recurring" if interval else "one_time",
                "recurring_interval": interval, "recurring_interval_count": 1 if interval
                else None, "nickname": None, "lookup_key": f"{sku.lower()}-{currency}",
                "active": 1, "metadata": "{}", "created": created})
            g.price_of[(sku, currency)] = price["stripe_id"]
            if currency == "usd":
                product["default_price"] = price["stripe_id"]
    # MESS: last winter's sale prices, archived (inactive) beside the current ones.
    for product in r.sample(g.tables["products"], N_SEASONAL):
        usd = next(p for p in g.tables["prices"] if p["stripe_id"] == product["default_price"])
        g.new("prices", {**{k: v for k, v in usd.items() if k not in ("id", "stripe_id")},
                         "unit_amount": usd["unit_amount"] * 80 // 100, "active": 0,
                         "nickname": "Winter sale 2024", "lookup_key": None,
                         "created": g.unix_ago(r.uniform(200, 260))})
