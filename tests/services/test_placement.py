"""Placement: replica instances register with a heartbeat that reports the episodes they
hold; new episodes go to the live one holding the fewest; in-process replicas never consult
Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest
from redis import asyncio as aioredis

from workgym.placement import Heartbeat, Placement, counts_key, instances_key
from workgym_core import redis_store
from workgym_core.errors import NotFound, ServiceUnavailable
from workgym_core.settings import Settings

A, B, C = "http://a:8000", "http://b:8000", "http://c:8000"
CONFIGURED = {"helpdesk": "http://helpdesk:8000"}
APPS = frozenset(CONFIGURED)
T = TypeVar("T")


def _run(settings: Settings, body: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
    async def run() -> T:
        redis = redis_store.connect(settings)
        await redis.delete(instances_key("helpdesk"), counts_key("helpdesk"))
        try:
            return await body(redis)
        finally:
            await redis.aclose()

    return asyncio.run(run())


def _holding(held: dict[str, int], url: str) -> Callable[[], int]:
    """An instance's heartbeat report: the episodes ``held[url]``, read at each beat."""
    return lambda: held[url]


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, internal_secret="s")


def test_new_episodes_spread_over_registered_instances(settings: Settings) -> None:
    async def body(redis: aioredis.Redis) -> tuple[list[str], set[str]]:
        beats = [Heartbeat(redis_store.connect(settings), "helpdesk", url) for url in (A, B, C)]
        for beat in beats:
            await beat.start()
        placement = Placement(redis, APPS, CONFIGURED)
        placed = [await placement.place("helpdesk") for _ in range(6)]
        assert sorted(await placement.live("helpdesk")) == [A, B, C]
        await beats[1].stop()  # a clean shutdown deregisters at once
        after = {await placement.place("helpdesk") for _ in range(4)}
        for beat in (beats[0], beats[2]):
            await beat.stop()
        return placed, after

    placed, after = _run(settings, body)
    assert sorted(placed) == sorted([A, B, C] * 2)
    assert after == {A, C}


def test_new_episodes_go_to_the_instance_holding_fewest(settings: Settings) -> None:
    held = {A: 5, B: 1, C: 3}

    async def body(redis: aioredis.Redis) -> list[str]:
        for url in held:
            await Heartbeat(redis, "helpdesk", url, live=_holding(held, url)).beat()
        placement = Placement(redis, APPS, CONFIGURED)
        # Each placement counts at once, before any heartbeat reports it; ties go to the
        # first URL.
        return [await placement.place("helpdesk") for _ in range(8)]

    assert _run(settings, body) == [B, B, B, C, B, C, A, B]


def test_a_heartbeat_corrects_the_count(settings: Settings) -> None:
    async def body(redis: aioredis.Redis) -> tuple[list[str], list[str]]:
        holds = {A: 0, B: 0}
        beats = [Heartbeat(redis, "helpdesk", url, live=_holding(holds, url))
                 for url in (A, B)]
        for beat in beats:
            await beat.beat()
        placement = Placement(redis, APPS, CONFIGURED)
        first = [await placement.place("helpdesk") for _ in range(4)]  # 2 each
        holds[A] = 0  # A's episodes finished; B still holds its two
        holds[B] = 2
        for beat in beats:
            await beat.beat()
        return first, [await placement.place("helpdesk") for _ in range(2)]

    first, then = _run(settings, body)
    assert sorted(first) == [A, A, B, B]
    assert then == [A, A]


def test_lapsed_and_evicted_instances_get_no_episode(settings: Settings) -> None:
    async def body(redis: aioredis.Redis) -> set[str]:
        placement = Placement(redis, APPS, CONFIGURED)
        await Heartbeat(redis, "helpdesk", A, ttl_s=-1).beat()  # lapsed already
        await Heartbeat(redis, "helpdesk", B).beat()
        await Heartbeat(redis, "helpdesk", C).beat()
        await placement.evict("helpdesk", C)
        return {await placement.place("helpdesk") for _ in range(4)}

    assert _run(settings, body) == {B}


def test_without_registered_instances_the_configured_url_is_used(settings: Settings) -> None:
    async def body(redis: aioredis.Redis) -> tuple[str, str]:
        placement = Placement(redis, {*APPS, "shop", "tracker"},
                              {**CONFIGURED, "shop": "http://shop.replica"},
                              local=["http://shop.replica"])
        await Heartbeat(redis, "shop", A).beat()  # never consulted for in-process replicas
        result = (await placement.place("helpdesk"), await placement.place("shop"))
        with pytest.raises(NotFound):
            await placement.place("nope")  # not an app this deployment serves
        with pytest.raises(ServiceUnavailable) as none_runs:
            await placement.place("tracker")  # served, but no instance registered or set
        assert none_runs.value.code == "replica_unavailable" and "tracker" in str(none_runs.value)
        return result

    assert _run(settings, body) == ("http://helpdesk:8000", "http://shop.replica")


def test_a_replica_served_alone_with_redis_registers_itself(tmp_path: Path) -> None:
    from workgym.app import create_app

    server = create_app(Settings(data_dir=tmp_path, internal_secret="s",
                                 roles=frozenset({"replica:helpdesk"}),
                                 redis_url="redis://127.0.0.1:9/0", instance_url=A))
    assert server.heartbeat is not None and server.heartbeat.url == A
    asyncio.run(server.aclose())  # deregistering from an unreachable Redis is not an error
