"""The compose stack end to end, with the framework's test app (the `framework` profile):
images, health, every app of the catalogue registered, a fault-heavy episode over HTTP,
telemetry, MCP through the gym container, a cross-app task (reference 1.0, noop 0,
collateral in either app fails), network isolation, scaling and losing a replica instance,
and Redis restarting mid-episode; `make up` (quiet, keeping a service's scale) and
`compose-boot` refusing over the running stack.

Needs a Docker engine with `docker compose`: runs only with WORKGYM_COMPOSE_TESTS=1 (set by
.ci/run after ../shared/tools/docker-local.sh). The stack is this checkout's compose project
(COMPOSE_PROJECT_NAME, from .env unless set): the tests refuse to start while it runs, and
leave nothing running. The ports are compose's (WORKGYM_GYM_PORT, ... if set).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import workgym
from replicas.catalog import served_apps, spec
from tests.refusals import refusal
from workgym.agents import AGENTS
from workgym.agents.reference import given, reference, run_step
from workgym.tasks import catalogue

pytestmark = [
    pytest.mark.compose,
    pytest.mark.slow,
    pytest.mark.xdist_group("compose"),  # one stack (one project, compose's ports): one worker
    pytest.mark.skipif(os.environ.get("WORKGYM_COMPOSE_TESTS") != "1",
                       reason="needs Docker: set WORKGYM_COMPOSE_TESTS=1 (.ci/run does)"),
]

ROOT = Path(__file__).resolve().parents[2]
GYM, PROXY, TELEMETRY = (f"http://127.0.0.1:{os.environ.get(f'WORKGYM_{name}_PORT', port)}"
                          for name, port in (("GYM", 8000), ("PROXY", 8080), ("TELEMETRY", 4318)))
TASK = "checkout/refund-under-timeouts"  # a fault-heavy task: the refund's answer is lost
HELPDESK_TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone
CROSS_APP_TASK = "helpdesk/refund-standard"  # the checkout's refund, the helpdesk's ticket
TRACKER_TASK = "tracker/start-work-on-bug"  # the tracker, served by its own service


# The framework's test app and its tasks are served too.
# Not a sub-make of `make test` (CI's): `make up` prints as typed in a shell, without
# "make[1]: Entering directory".
ENV = {**{name: value for name, value in os.environ.items()
          if name not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")},
       "COMPOSE_PROFILES": "framework", "WORKGYM_FRAMEWORK_APPS": "true"}
CROSS_APP = "framework/note-contact-preference"


def run(*command: str, timeout: float = 900) -> str:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=ENV)
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stderr[-3000:]}"
    return done.stdout


def compose(*args: str, timeout: float = 900) -> str:
    return run("docker", "compose", *args, timeout=timeout)


def redis(*args: str) -> str:
    return compose("exec", "-T", "-e", f"REDISCLI_AUTH={dotenv('WORKGYM_REDIS_PASSWORD')}",
                   "redis", "redis-cli", *args).strip()


def dotenv(name: str) -> str:
    """A value the stack runs with (.env, written by `make compose-env`)."""
    for line in (ROOT / ".env").read_text().splitlines():
        if line.startswith(f"{name}="):
            return line.split("=", 1)[1]
    raise AssertionError(f"no {name} in .env")


def api_key() -> str:
    """The operator's key the stack runs with."""
    return dotenv("WORKGYM_API_KEY")


def operator() -> dict[str, str]:
    return {"authorization": f"Bearer {api_key()}"}


def placed_on(episode_id: str, app: str = "helpdesk") -> str:
    """The instance of ``app`` serving the episode."""
    return str(json.loads(redis("HGET", f"wg:ep:{episode_id}", "apps"))[app])


@pytest.fixture(scope="module")
def stack() -> Iterator[None]:
    subprocess.run(["bash", str(ROOT / ".ci/compose-env.sh")], check=True)
    if compose("ps", "-a", "-q"):
        pytest.fail("this checkout's compose stack is up: `make down` first (the tests start "
                    "their own and remove it, volumes included)", pytrace=False)
    compose("build", "-q")
    try:
        compose("up", "-d", "--wait", timeout=300)
        yield
    finally:
        compose("down", "-v", "--remove-orphans")
        assert compose("ps", "-a", "-q") == ""


def test_the_reference_agent_scores_one_through_the_proxy_and_is_traced(stack: None) -> None:
    task = catalogue().get(TASK)
    with workgym.connect(GYM, TASK, seed=5, api_key=api_key()) as env:
        obs = env.reset()
        assert obs.apps["checkout"].startswith(f"{PROXY}/apps/checkout")
        report = env.finish(answer=reference(env, task))
    assert report["reward"] == 1.0, report
    assert report["faults"], "the task's faults were injected"
    deadline = time.monotonic() + 20
    while True:  # spans are batched by each service's exporter
        timeline = httpx.get(f"{TELEMETRY}/v1/episodes/{obs.episode_id}/timeline",
                             headers=operator())
        if timeline.status_code == 200 and timeline.json().get("steps"):
            break
        assert time.monotonic() < deadline, f"no timeline: {timeline.status_code}"
        time.sleep(0.5)


def test_every_app_of_the_catalogue_registers_an_instance(stack: None) -> None:
    deadline = time.monotonic() + 20
    for app in sorted(served_apps(True)):
        while not redis("ZRANGE", f"wg:replicas:{app}", "0", "-1"):
            assert time.monotonic() < deadline, f"no {app} instance registered"
            time.sleep(0.2)


def test_the_tracker_runs_as_its_own_service(stack: None) -> None:
    task = catalogue().get(TRACKER_TASK)
    with workgym.connect(GYM, TRACKER_TASK, seed=2, faults="none", api_key=api_key()) as env:
        obs = env.reset()
        instances = redis("ZRANGE", "wg:replicas:tracker", "0", "-1").split()
        assert placed_on(obs.episode_id, "tracker") in instances
        info = httpx.get(obs.apps["tracker"] + "/rest/api/2/serverInfo",
                         headers={"authorization": f"Bearer {obs.token}"}, timeout=30)
        assert info.json()["deploymentType"] == "Cloud"
        report = env.finish(answer=reference(env, task))
    assert report["reward"] == 1.0, report


def test_the_gyms_mcp_endpoint_reaches_the_proxy_inside_the_network(stack: None) -> None:
    """The gym container calls the tools of an MCP client through the proxy's service name
    (WORKGYM_PROXY_URL), never the host's published address."""
    import asyncio

    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import TextContent

    async def over_mcp(token: str) -> tuple[bool, str]:
        async with httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}) as http, \
                streamable_http_client(f"{GYM}/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as mcp:
            await mcp.initialize()
            me = await mcp.call_tool("tracker_get_myself", {})
            await mcp.call_tool("finish", {"answer": "looked myself up"})
            said = me.content[0]
            assert isinstance(said, TextContent), said
            return bool(me.is_error), said.text

    with workgym.connect(GYM, TRACKER_TASK, seed=2, faults="none", api_key=api_key()) as env:
        obs = env.reset()
        error, text = asyncio.run(over_mcp(obs.token))
        assert (error, text.splitlines()[0]) == (False, "HTTP 200"), text
        state = env.state()
    assert state["status"] == "finished" and state["steps"] == 1, state


def _cross_app(agent: str, collateral: str | None = None) -> dict[str, Any]:
    """The cross-app task with ``agent``; with ``collateral``, that app's probe change is
    made by another actor (a state_drift the operator adds) before finishing."""
    task = catalogue().get(CROSS_APP)
    with workgym.connect(GYM, CROSS_APP, seed=4, faults="none", api_key=api_key()) as env:
        obs = env.reset()
        answer = AGENTS[agent](env, task)
        if collateral is not None:
            drift = {"kind": "state_drift", "target": {"app": collateral},
                     "ops": [spec(collateral).probe]}
            added = httpx.post(f"{GYM}/v1/control/episodes/{obs.episode_id}/faults",
                               json=drift, headers=operator(), timeout=30)
            assert added.status_code == 201, added.text
            listed = env.call_tool(next(t["function"]["name"] for t in obs.tools
                                        if t["function"]["name"].startswith(collateral)
                                        and "list" in t["function"]["name"]), {})
            assert listed["status"] == 200, listed
        return env.finish(answer=answer)


def test_a_cross_app_task_runs_through_the_stack(stack: None) -> None:
    reference_report = _cross_app("reference")
    assert reference_report["reward"] == 1.0, reference_report
    assert _cross_app("noop")["reward"] == 0.0
    for app in catalogue().get(CROSS_APP).apps:
        report = _cross_app("reference", collateral=app)
        verdicts = {a["name"]: a["passed"] for a in report["assertions"]}
        assert verdicts["no_collateral_damage"] is False, (app, report)


def test_replicas_are_not_reachable_from_the_host(stack: None) -> None:
    ids = compose("ps", "-q", "helpdesk").split()
    assert ids
    for container in ids:
        inspect = subprocess.run(["docker", "inspect", container], capture_output=True,
                                 text=True, check=True)
        info = json.loads(inspect.stdout)[0]
        assert not any(info["NetworkSettings"]["Ports"].values()), "no published port"
        for network in info["NetworkSettings"]["Networks"].values():
            try:
                answer = httpx.get(f"http://{network['IPAddress']}:8000/_env/health", timeout=2)
                reached = '"helpdesk"' in answer.text
            except httpx.HTTPError:
                reached = False
            assert not reached, f"the host reached a replica at {network['IPAddress']}"


def test_compose_boot_refuses_to_run_over_the_stack(stack: None) -> None:
    project = json.loads(compose("config", "--format", "json"))["name"]
    running = compose("ps", "-q")

    done = subprocess.run([sys.executable, str(ROOT / ".ci/compose_boot.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=ENV)

    assert done.returncode == 1
    assert done.stderr.startswith(f"compose-boot: this checkout's stack {project} exists (")
    assert "`make down` first" in done.stderr and len(done.stderr.splitlines()) == 1
    assert compose("ps", "-q") == running


def test_make_up_is_quiet_and_keeps_a_services_scale(stack: None) -> None:
    """`make up` after `docker compose up --scale` keeps the instances; SCALE sets them."""
    compose("up", "-d", "--wait", "--scale", "helpdesk=2", timeout=300)
    project = json.loads(compose("config", "--format", "json"))["name"]

    printed = run("make", "up", timeout=600).splitlines()

    assert len(compose("ps", "-q", "helpdesk").split()) == 2
    for line in printed:  # an image a line, the scale kept, the status table: no build log
        assert line.startswith(("images: ", "up: --scale helpdesk=2", "NAME ", project)), line
    run("make", "up", "SCALE=helpdesk=1", timeout=600)
    assert len(compose("ps", "-q", "helpdesk").split()) == 1


def test_scaled_replicas_share_episodes_and_losing_one_fails_only_its_own(stack: None) -> None:
    compose("up", "-d", "--wait", "--scale", "helpdesk=3", timeout=300)
    deadline = time.monotonic() + 20
    while len(redis("ZRANGE", "wg:replicas:helpdesk", "0", "-1").split()) < 3:
        assert time.monotonic() < deadline, "three instances registered"
        time.sleep(0.2)
    http = httpx.Client(timeout=30, headers=operator())
    episodes = []
    for seed in range(6):
        created = http.post(f"{GYM}/v1/episodes",
                            json={"task": HELPDESK_TASK, "seed": seed, "faults": "none"})
        assert created.status_code == 201, created.text
        episodes.append(created.json())
    where = {e["id"]: placed_on(e["id"]) for e in episodes}
    assert len(set(where.values())) == 3, where
    victim = sorted(set(where.values()))[0]
    subprocess.run(["docker", "kill", victim.split("//")[1].split(":")[0]], check=True,
                   capture_output=True)
    for episode in episodes:
        auth = {"authorization": f"Bearer {episode['token']}"}
        step = http.get(episode["apps"]["helpdesk"] + "/api/v2/tickets",
                        params={"per_page": 1}, headers=auth)
        finish = http.post(f"{GYM}/v1/episodes/{episode['id']}/finish", json={})
        if where[episode["id"]] == victim:
            assert step.status_code == 502 and refusal(step)["code"] == "episode_lost"
            assert finish.status_code == 502
            assert finish.json()["error"]["code"] == "episode_lost"
        else:
            assert step.status_code == 200, step.text
            assert finish.status_code == 200 and "reward" in finish.json()
    for seed in range(3):  # new episodes go to the survivors
        created = http.post(f"{GYM}/v1/episodes",
                            json={"task": HELPDESK_TASK, "seed": seed})
        assert created.status_code == 201, created.text
        assert placed_on(created.json()["id"]) != victim
    http.close()


def test_redis_restarting_mid_episode_loses_nothing(stack: None) -> None:
    """While Redis is down every service answers JSON 503 with Retry-After; once it is back
    (its append-only file reloaded) the episode goes on and finishes with the right reward."""
    task = catalogue().get(CROSS_APP_TASK)
    with workgym.connect(GYM, task.id, seed=3, faults="none", api_key=api_key()) as env:
        obs = env.reset()
        saved = given(task.reference, obs.instruction)
        half = len(task.reference.steps) // 2
        for step in task.reference.steps[:half]:
            run_step(env, step, saved)
        compose("stop", "redis")
        try:
            auth = {"authorization": f"Bearer {obs.token}"}
            for answer in (httpx.get(obs.apps["helpdesk"] + "/groups", headers=auth),
                           httpx.get(f"{GYM}/v1/episodes/{obs.episode_id}", headers=operator(),
                                     timeout=30)):
                assert answer.status_code == 503, answer.text
                assert refusal(answer)["code"] == "store_unavailable"
                assert int(answer.headers["retry-after"]) >= 1
        finally:
            compose("start", "redis")
        deadline = time.monotonic() + 30
        while httpx.get(f"{GYM}/v1/episodes/{obs.episode_id}", headers=operator(),
                        timeout=30).status_code != 200:
            assert time.monotonic() < deadline, "the gym answers again once Redis is back"
            time.sleep(0.2)
        for step in task.reference.steps[half:]:
            run_step(env, step, saved)
        report = env.finish(answer=None)
    assert report["success"] and report["reward"] == 1.0, report
    # The refused request was never admitted: it is no step. Every admitted one is recorded.
    assert report["steps"] == len(task.reference.steps)
