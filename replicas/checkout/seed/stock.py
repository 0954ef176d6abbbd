"""The warehouse's stock by SKU: what is on hand, and how much of it open orders' unshipped
units have been promised (committed), with the mess: a SKU sold out with orders still waiting
for it (more committed than on hand)."""

from __future__ import annotations

from ..rules.orders import open_units
from ..world import data
from .common import Generation


def build(g: Generation) -> None:
    r = g.rng
    open_orders = {o["id"] for o in g.tables["orders"] if o["status"] == "open"}
    committed: dict[str, int] = {}
    for item in g.tables["order_items"]:
        if item["order_id"] in open_orders:
            committed[item["sku"]] = committed.get(item["sku"], 0) + open_units(item)
    products = data()["products"]
    oversold = r.choice(sorted(sku for sku, count in committed.items() if count > 0))
    for sku, spec in products.items():
        promised = committed.get(sku, 0)
        on_hand = 0 if "interval" in spec else (
            max(0, promised - r.randint(1, 3)) if sku == oversold  # MESS: oversold
            else promised + r.randint(5, 240))
        g.add("inventory", {"sku": sku, "name": spec["name"], "on_hand": on_hand,
                            "committed": promised,
                            "updated_at": g.iso(g.unix_ago(r.uniform(0.1, 3)))})
