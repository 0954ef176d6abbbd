"""Idempotency keys as Stripe defines them: the first answer saved and replayed (errors
included), validation failures not saved, other parameters refused, a concurrent duplicate
409, and the keys in the episode's database (they reset with it)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from fastapi import FastAPI

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]
BODY = {"amount": 2500, "currency": "gbp", "payment_method": "pm_card_visa", "confirm": True}


async def test_the_first_answer_is_replayed(make_api: MakeApi) -> None:
    api = make_api()
    first = await api.request("POST", "/v1/payment_intents", key="k1", json=BODY)
    again = await api.request("POST", "/v1/payment_intents", key="k1", json=BODY)
    assert again.content == first.content and again.headers["Idempotent-Replayed"] == "true"
    listed = await api.ok("GET", "/v1/charges", params={"payment_intent": first.json()["id"]})
    assert len(listed["data"]) == 1  # charged once
    error = await api.refused("POST", "/v1/payment_intents", 400, "idempotency_key_reused",
                              key="k1", json={**BODY, "amount": 2600})
    assert error["type"] == "idempotency_error"
    refusal = await api.request("POST", "/v1/refunds", key="k2", json={"charge": "ch_none"})
    replayed = await api.request("POST", "/v1/refunds", key="k2", json={"charge": "ch_none"})
    assert (replayed.status_code, replayed.content) == (refusal.status_code, refusal.content)


async def test_a_validation_failure_is_not_saved(make_api: MakeApi) -> None:
    api = make_api()
    await api.refused("POST", "/v1/payment_intents", 400, "parameter_missing", key="k",
                      json={"currency": "usd"})
    assert (await api.ok("POST", "/v1/payment_intents", key="k", json=BODY))["status"] == \
        "succeeded"


async def test_a_concurrent_duplicate_is_refused(make_api: MakeApi, app: FastAPI) -> None:
    api = make_api()
    episode = app.state.store.get(api.episode_id)
    async with episode.lock:  # the first request waits for the episode, its key held
        first = asyncio.ensure_future(
            api.request("POST", "/v1/payment_intents", key="same", json=BODY))
        while not _held(app):
            await asyncio.sleep(0)
        await api.refused("POST", "/v1/payment_intents", 409, "idempotency_key_in_use",
                          key="same", json=BODY)
    assert (await first).status_code == 200


def _held(app: FastAPI) -> bool:
    """Whether a request holds an Idempotency-Key (the middleware's set)."""
    stack = app.middleware_stack
    while stack is not None and not hasattr(stack, "serving"):
        stack = getattr(stack, "app", None)
    return bool(stack is not None and stack.serving)


async def test_keys_reset_with_the_episode(make_api: MakeApi) -> None:
    first, second = make_api(), make_api()
    one = await first.ok("POST", "/v1/customers", key="same", json={"email": "a@example.com"})
    two = await second.ok("POST", "/v1/customers", key="same", json={"email": "a@example.com"})
    assert one["id"] == two["id"]  # the same world, the same request: the same object
    replay = await first.request("POST", "/v1/customers", key="same",
                                 json={"email": "a@example.com"})
    assert replay.headers["Idempotent-Replayed"] == "true"
