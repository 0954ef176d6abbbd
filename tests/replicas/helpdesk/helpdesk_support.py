"""Setup builders shared by the helpdesk tests (a plain module; fixtures live in conftest)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

# ``episode`` fixture: ``await episode(seed=1, setup=[...], script={...})`` -> conftest.Api
MakeEpisode = Callable[..., Awaitable[Any]]


def money_setup(
    *,
    tier: str = "standard",
    currency: str = "USD",
    amount: int = 10_000,
    fulfilled: str | None = "@now-5d",
    charge_status: str = "captured",
    captured: str = "@now-7d",
) -> list[dict[str, Any]]:
    """Setup ops binding ``customer``, ``order`` and ``charge`` with known values."""
    return [
        {
            "bind": "customer",
            "insert": "customers",
            "values": {
                "name": "Dana Testwell",
                "email": "dana.testwell@example.com",
                "tier": tier,
                "locale": "en-US",
                "created_at": "@now-400d",
                "updated_at": "@now-400d",
            },
        },
        {
            "bind": "order",
            "insert": "orders",
            "values": {
                "number": "Z-90001",
                "customer_id": "$customer.id",
                "currency": currency,
                "total": amount,
                "status": "fulfilled" if fulfilled else "placed",
                "placed_at": "@now-8d",
                "fulfilled_at": fulfilled,
            },
        },
        {
            "bind": "charge",
            "insert": "charges",
            "values": {
                "order_id": "$order.id",
                "amount": amount,
                "currency": currency,
                "status": charge_status,
                "captured_at": None if charge_status == "failed" else captured,
                "created_at": captured,
                "processor_reference": "ch_test0001",
            },
        },
    ]


def ticket_setup(status: str = "open", **values: Any) -> list[dict[str, Any]]:
    """Setup ops binding ``customer`` and ``ticket`` (assigned to agent 1 in Support)."""
    return [
        {
            "bind": "customer",
            "insert": "customers",
            "values": {
                "name": "Tess Ticketson",
                "email": "tess@example.com",
                "tier": "silver",
                "locale": "en-US",
                "created_at": "@now-100d",
                "updated_at": "@now-100d",
            },
        },
        {
            "bind": "ticket",
            "insert": "tickets",
            "values": {
                "subject": "Help with my grinder",
                "description": "It squeaks.",
                "status": status,
                "priority": "normal",
                "type": "question",
                "channel": "email",
                "tags": '["grinder"]',
                "requester_id": "$customer.id",
                "assignee_id": 1,
                "group_id": 1,
                "created_at": "@now-1d",
                "updated_at": "@now-1d",
                **values,
            },
        },
    ]
