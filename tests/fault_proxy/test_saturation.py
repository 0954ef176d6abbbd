"""Under load the proxy never answers 500: connection pools wait for a free connection, and a
saturated proxy sheds load with 503 ``server_busy`` and Retry-After before it counts or
forwards anything."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from tests.refusals import refusal
from workgym.local import LocalServer
from workgym.sdk import Env

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone


Factory = Callable[..., LocalServer]


def test_requests_wait_for_a_redis_connection_instead_of_failing(server: Factory) -> None:
    two_connections = server(redis_connections=2, redis_wait_s=10)
    envs = [Env.inprocess(two_connections, TASK, seed=1, faults="none") for _ in range(8)]
    for env in envs:
        env.reset()

    def steps(env: Env) -> list[int]:
        return [env.call("GET", "/api/v2/groups").status_code for _ in range(6)]

    with ThreadPoolExecutor(len(envs)) as pool:
        statuses = [s for batch in pool.map(steps, envs) for s in batch]
    assert statuses == [200] * 48  # 8 episodes at once over 2 connections: all waited
    registry = two_connections.server.registry
    assert registry is not None
    for env in envs:
        assert env.observation is not None
        assert len(two_connections.run(registry.trajectory(env.observation.episode_id))) == 6
        env.close()


def test_a_saturated_proxy_sheds_load_with_503_and_retry_after(server: Factory) -> None:
    one_at_a_time = server(max_inflight=1)
    slow = Env.inprocess(one_at_a_time, TASK, seed=1,
                         faults=[{"kind": "latency", "delay_ms": 1500}])
    other = Env.inprocess(one_at_a_time, TASK, seed=1, faults="none")
    slow.reset()
    other.reset()
    with ThreadPoolExecutor(1) as pool:
        held = pool.submit(slow.call, "GET", "/api/v2/groups")
        while one_at_a_time.server.proxy is None or not one_at_a_time.server.proxy.inflight:
            pass  # the slow request is being served
        shed = other.call("GET", "/api/v2/groups")
        assert held.result().status_code == 200
    assert shed.status_code == 503
    assert refusal(shed)["code"] == "server_busy"
    assert int(shed.headers["retry-after"]) >= 1
    # A shed request was never admitted: not counted, not on the trajectory.
    assert other.state()["steps"] == 0
    assert other.call("GET", "/api/v2/groups").status_code == 200
    slow.close()
    other.close()
