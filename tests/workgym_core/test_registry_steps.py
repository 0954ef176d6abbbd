"""The proxy's requests are counted in Redis together: concurrent ones in one call, each
episode's in the order they came, each refused or admitted on its own."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from workgym_core import redis_store
from workgym_core.errors import Conflict, Unauthorized
from workgym_core.registry import Identity, Quota, Registry
from workgym_core.settings import Settings


def _run(tmp_path: Path, body: Callable[[Registry, list[Identity]], Awaitable[None]]) -> None:
    async def run() -> None:
        redis = redis_store.connect(Settings(data_dir=tmp_path, internal_secret="s"))
        registry = Registry(redis, "secret")
        identities = [registry.new_identity(600) for _ in range(4)]
        for n, identity in enumerate(identities):
            await registry.create(identity, owner="o", task="t", seed=n, max_steps=4,
                                  apps={"helpdesk": "http://h"}, vars={}, faults=[],
                                  quota=Quota(max_live=100, rate_per_s=100.0, burst=100))
        try:
            await body(registry, identities)
        finally:
            await redis.aclose()

    asyncio.run(run())


def _counting(registry: Registry) -> list[int]:
    """The batch sizes of the registry's step-counting calls to Redis, from now on."""
    sizes: list[int] = []
    script = registry._begin_steps

    async def counted(*, keys: list[str], args: list[Any]) -> Any:
        sizes.append(len(keys))
        return await script(keys=keys, args=args)

    registry._begin_steps = counted  # type: ignore[assignment]
    return sizes


def test_concurrent_requests_are_counted_in_two_calls_each_episode_in_order(
        tmp_path: Path) -> None:
    async def body(registry: Registry, identities: list[Identity]) -> None:
        sizes = _counting(registry)
        tokens = [identity.token for _ in range(4) for identity in identities]
        grants = await asyncio.gather(*(registry.begin_step(token) for token in tokens))
        assert sizes == [1, 15]
        for identity in identities:
            steps = [g.step for g in grants if g.episode_id == identity.episode_id]
            assert steps == [1, 2, 3, 4]  # in the order they came
        assert {g.seed for g in grants} == {0, 1, 2, 3}
        for identity in identities:
            assert (await registry.get(identity.episode_id)).inflight == 4

    _run(tmp_path, body)


def test_each_request_of_a_batch_is_refused_or_admitted_on_its_own(tmp_path: Path) -> None:
    async def body(registry: Registry, identities: list[Identity]) -> None:
        spent = identities[0]
        for _ in range(4):
            await registry.begin_step(spent.token)
        forged = registry.tokens.mint(identities[1].episode_id, identities[1].expires_at)
        await registry.limit(identities[2].episode_id, 1, 7)
        sizes = _counting(registry)
        outcomes = await asyncio.gather(
            registry.begin_step(identities[3].token), registry.begin_step(spent.token),
            registry.begin_step(forged), registry.begin_step(identities[2].token),
            registry.begin_step(identities[3].token), return_exceptions=True)
        assert sizes == [1, 4]
        first, budget, bad, limited, second = outcomes
        assert isinstance(budget, Conflict) and budget.code == "step_budget_exhausted"
        assert isinstance(bad, Unauthorized)
        assert not isinstance(limited, BaseException) and limited.limited_s == 7
        assert not isinstance(first, BaseException) and first.step == 1
        assert not isinstance(second, BaseException) and second.step == 2

    _run(tmp_path, body)


def test_a_lone_request_is_counted_at_once(tmp_path: Path) -> None:
    async def body(registry: Registry, identities: list[Identity]) -> None:
        sizes = _counting(registry)
        for step in (1, 2):
            assert (await registry.begin_step(identities[0].token)).step == step
        assert sizes == [1, 1]

    _run(tmp_path, body)
