"""What a load agent does, apart from locust: which tasks and tools a server offers it, and the
steps of one episode (the task's reference script, with read-only tool calls among them)."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

import httpx

from workgym.agents.reference import ReferenceFailed, given, run_step, runs
from workgym.cli.arguments import seed_list
from workgym.sdk import Env
from workgym.tasks import ReferenceStep, Task, catalogue
from workgym.tools import Operation, ToolCatalogue
from workgym_core.credentials import find_api_key
from workgym_core.internal import APPS_PREFIX
from workgym_core.refs import BadReference

from .recorder import Routes

Step: TypeAlias = ReferenceStep | Operation  # a step of an episode: scripted, or a read


class SetupError(RuntimeError):
    """The load cannot start: no operator API key, a server that cannot be reached or
    refuses the key, or no task of this checkout served."""


def span(text: str) -> tuple[float, float]:
    """``LOW-HIGH`` (or one number) as (low, high)."""
    low, _, high = text.partition("-")
    bounds = float(low), float(high or low)
    if not 0 <= bounds[0] <= bounds[1]:
        raise ValueError(f"{text!r}: expected LOW-HIGH with 0 <= LOW <= HIGH")
    return bounds


@dataclass(frozen=True)
class Workload:
    """The served tasks this checkout has reference scripts for (a server never hands those
    out), each app's read-only tools that need no argument, and the routes to name requests
    by; ``steps`` per episode, ``think`` seconds before each step and ``seeds`` are drawn from."""

    api_key: str
    tasks: list[Task]
    reads: dict[str, list[Operation]]
    routes: Routes
    steps: tuple[int, int]
    think: tuple[float, float]
    seeds: list[int]

    @classmethod
    def discover(cls, host: str, *, steps: str, think: str, seeds: str) -> Workload:
        """The workload ``host`` serves; ``steps`` and ``think`` as ``LOW-HIGH``, ``seeds`` as
        ``0-15`` or ``0,3,7-9``."""
        (low, high), pace, drawn_seeds = span(steps), span(think), seed_list(seeds)
        api_key = find_api_key()
        if not api_key:
            raise SetupError("no operator API key: set WORKGYM_API_KEY, or run `workgym serve` "
                              "once on this machine (it stores one in ~/.config/workgym)")
        with httpx.Client(base_url=host, timeout=30.0,
                          headers={"authorization": f"Bearer {api_key}"}) as http:
            served = {task["id"] for task in _get(http, "/v1/tasks")}
            tasks = [task for task in catalogue() if task.id in served]
            if not tasks:
                raise SetupError(f"{host} serves none of this checkout's tasks")
            apps = sorted({app for task in tasks for app in task.apps})
            tools = {app: ToolCatalogue.from_openapi(
                app, _get(http, f"/v1/apps/{app}/openapi.json")) for app in apps}
            gym = ToolCatalogue.from_openapi("gym", _get(http, "/openapi.json"))
        reads = {app: [op for op in ops if op.method == "GET" and not op.path_params
                       and not op.schema["function"]["parameters"]["required"]]
                 for app, ops in tools.items()}
        routes = Routes({"": gym, **{APPS_PREFIX + app: tools[app] for app in apps}})
        return cls(api_key, tasks, reads, routes, steps=(int(low), int(high)), think=pace,
                   seeds=drawn_seeds)

    def plan(self, task: Task, rng: random.Random) -> list[Step]:
        """An episode's steps, as many as drawn: the reference script's first ones, in order,
        with read-only tool calls of the task's apps at random places among them."""
        count = rng.randint(*self.steps)
        chosen: list[Step] = list(task.reference.steps[:count])
        reads = [op for app in task.apps for op in self.reads[app]]
        for _ in range(count - len(chosen)):
            chosen.insert(rng.randint(0, len(chosen)), rng.choice(reads))
        return chosen


def _get(http: httpx.Client, path: str) -> Any:
    try:
        response = http.get(path)
    except httpx.TransportError as exc:
        raise SetupError(f"cannot reach WorkGym at {http.base_url}: {exc}; start it "
                          "(`workgym serve`, `make up`) or point --host at it") from exc
    if response.status_code == 401:
        raise SetupError(f"{http.base_url} refused the operator API key (401): set "
                          "WORKGYM_API_KEY to the server's key")
    if response.status_code != 200:
        raise SetupError(f"GET {http.base_url}{path} answered {response.status_code}: "
                          f"{response.text[:300]}")
    return response.json()


def take(env: Env, task: Task, steps: list[Step], think: Callable[[], None]) -> None:
    """Take an episode's steps, each after ``think``. A reference step goes as the reference
    agent sends it (recovering from faults; a step whose ``when`` does not hold is skipped); one
    the app refuses is passed over, as ``run_script(strict=False)`` does."""
    assert env.observation is not None
    saved = given(task.reference, env.observation.instruction)
    for step in steps:
        if isinstance(step, Operation):
            think()
            env.call(step.method, step.path, app=step.app)
        elif runs(step, saved):
            think()
            with contextlib.suppress(ReferenceFailed, KeyError, BadReference):
                run_step(env, step, saved)

