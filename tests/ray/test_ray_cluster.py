"""WorkGym on Ray (`workgym ray up`'s code) on a local Ray cluster: the gym API, the proxy, Redis
and two helpdesk replica instances as actors; 256 episodes spread over both instances; one
replica actor killed loses its episodes and only those; `down` leaves no actor behind."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from replicas.catalog import served_apps
from workgym_core import redis_store
from workgym_core.registry import Registry
from workgym_core.settings import Settings

ray = pytest.importorskip("ray", reason="needs the ray extra (workgym[ray]; dev includes it)")

from tests.refusals import refusal  # noqa: E402
from workgym import ray_cluster  # noqa: E402  (after the skip: it needs ray)

pytestmark = pytest.mark.slow

EPISODES = 256
SEEDS = 4  # worlds each instance builds once, then restores per episode
TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone
CONCURRENCY = 16


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(data_dir=tmp_path_factory.mktemp("ray"))


@pytest.fixture(scope="module")
def deployment(settings: Settings) -> Iterator[ray_cluster.Deployment]:
    # "local": a cluster of this test's own, even where `ray start` runs one; no token
    # authentication (Ray would write its token to ~/.ray).
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RAY_AUTH_MODE", "disabled")
        # A CPU for each replica instance: two of the helpdesk's, one of every other app's.
        replicas = {"helpdesk": 2}
        cpus = sum(replicas.values()) + len(served_apps(settings.framework_apps) - set(replicas))
        ray.init(address="local", num_cpus=cpus, include_dashboard=False)
        try:
            yield ray_cluster.up(settings, replicas, port=0, proxy_port=0)
            assert ray_cluster.down()
            assert ray.util.list_named_actors(all_namespaces=True) == []
        finally:
            ray.shutdown()


def _token(episode: dict[str, Any]) -> dict[str, str]:
    return {"authorization": f"Bearer {episode['token']}"}


async def _each(items: list[Any], call: Any) -> list[Any]:
    """``call`` on every item, CONCURRENCY at a time."""
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(item: Any) -> Any:
        async with gate:
            return await call(item)

    return list(await asyncio.gather(*(one(item) for item in items)))


async def _created(http: httpx.AsyncClient, gym: str, operator: dict[str, str],
                   seed: int) -> dict[str, Any]:
    """A new episode, one step taken."""
    created = await http.post(f"{gym}/v1/episodes", headers=operator,
                              json={"task": TASK, "seed": seed, "faults": "none"})
    assert created.status_code == 201, created.text
    episode: dict[str, Any] = created.json()
    step = await http.get(episode["apps"]["helpdesk"] + "/api/v2/tickets",
                          params={"per_page": 1}, headers=_token(episode))
    assert step.status_code == 200, step.text
    return episode


async def _placed(settings: Settings, redis_url: str, ids: list[str]) -> dict[str, str]:
    """Episode id -> the replica instance the gym placed it on (its record in Redis)."""
    redis = redis_store.connect(settings.model_copy(update={"redis_url": redis_url}))
    try:
        registry = Registry(redis, settings.token_secret)
        return {i: (await registry.get(i)).apps["helpdesk"] for i in ids}
    finally:
        await redis.aclose()


async def _after_the_kill(http: httpx.AsyncClient, gym: str, operator: dict[str, str],
                          episode: dict[str, Any]) -> tuple[int, str, int, str | bool]:
    """The episode's next step and its finish: statuses and error codes (for a finish that
    succeeded, whether it answered a report)."""
    step = await http.get(episode["apps"]["helpdesk"] + "/api/v2/tickets",
                          params={"per_page": 1}, headers=_token(episode))
    finish = await http.post(f"{gym}/v1/episodes/{episode['id']}/finish", json={},
                             headers=operator)

    def error(answer: httpx.Response) -> str:
        return str(refusal(answer)["code"]) if answer.status_code >= 400 else ""

    report = "reward" in finish.json() if finish.status_code == 200 else False
    return step.status_code, error(step), finish.status_code, error(finish) or report


def _wait_dead(url: str) -> None:
    """Until the killed instance's port refuses connections (ray.kill returns at once)."""
    with httpx.Client(trust_env=False, timeout=2) as probe:
        for _ in range(600):  # a guard against hanging, not a timing check
            try:
                probe.get(f"{url}/healthz")
            except httpx.TransportError:
                return
            time.sleep(0.1)
    raise AssertionError(f"{url} still answers after its actor was killed")


def test_killing_one_replica_actor_loses_its_episodes_and_only_those(
        deployment: ray_cluster.Deployment, settings: Settings) -> None:
    operator = {"authorization": f"Bearer {settings.api_key}"}
    victim, survivor = deployment.replicas["helpdesk"]
    assert ray_cluster.up(settings, {"helpdesk": 2}, port=0, proxy_port=0) == deployment, \
        "up again reuses the running actors"

    async def run() -> None:
        async with httpx.AsyncClient(trust_env=False, timeout=60) as http:
            episodes = await _each(list(range(EPISODES)), lambda i: _created(
                http, deployment.gym, operator, i % SEEDS))
            where = await _placed(settings, deployment.redis, [e["id"] for e in episodes])
            on_victim = {i for i, url in where.items() if url == victim}
            assert set(where.values()) == {victim, survivor}, "both instances hold episodes"

            ray.kill(ray.get_actor(ray_cluster.replica_name("helpdesk", 0),
                                   namespace=ray_cluster.NAMESPACE))
            await asyncio.to_thread(_wait_dead, victim)
            outcomes = await _each(episodes, lambda e: _after_the_kill(
                http, deployment.gym, operator, e))
            for episode, outcome in zip(episodes, outcomes, strict=True):
                expected = ((502, "episode_lost", 502, "episode_lost")
                            if episode["id"] in on_victim else (200, "", 200, True))
                assert outcome == expected, (episode["id"], outcome)

            later = await _each(list(range(4)), lambda i: _created(
                http, deployment.gym, operator, i))
            assert set((await _placed(settings, deployment.redis,
                                      [e["id"] for e in later])).values()) == {survivor}

    asyncio.run(run())
