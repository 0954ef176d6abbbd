"""The checkout's pages: the shop's checkout in a browser (cart, shipping, payment,
confirmation) and the test 3-D Secure challenge (routes.py), and the operator's payments
dashboard and the store's orders (payments.py, disputes.py, customers.py, orders.py):
server-rendered HTML on the episode's own state, through the same proxy, recorded step by
step like any other request. Outside the agent's OpenAPI: they are pages, not API
operations."""

from __future__ import annotations

from . import customers, disputes, orders, payments
from .routes import router

for module in (payments, disputes, customers, orders):
    router.routes.extend(module.router.routes)

__all__ = ["router"]
