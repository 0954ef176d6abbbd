"""Honest rewards, for every task in the catalogue, whatever its apps:

* the quality gate (``workgym tasks check``) on two seeds other than the CLI's: the
  reference and every alternative score 1.0, every near miss 0 or less (below 0 when it does
  harm), doing nothing exactly 0, and the two seeds make two instances (the mutants and
  paraphrases of what the reference says, and the shortcut columns, are the CLI gate's,
  ``make gate``);
* the reference plus one unrelated write in any of its apps (the app's probe) fails the
  collateral-damage check;
* a task whose difficulty is faults is failed by the naive agent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from replicas.catalog import spec
from tests.conftest import replica_post
from tests.tiers import tiered
from workgym.agents.reference import naive, reference
from workgym.local import LocalServer
from workgym.quality import check, report_failures
from workgym.sdk import Env
from workgym.tasks import catalogue
from workgym_core.internal import INTERNAL_PREFIX

TASKS = [task.id for task in catalogue()]
COLLATERAL = [(task.id, app) for task in catalogue() for app in task.apps]
SEED = 11
GATE_SEEDS = (11, 12)


def _unrelated_write(local: LocalServer, env: Env, app: str) -> None:
    """Another actor makes the app's probe change (a harmless edit no task allows) through
    the replica's internal apply route: the same for any app."""
    assert local.server.registry is not None and env.observation is not None
    episode_id = env.observation.episode_id
    instance = local.run(local.server.registry.get(episode_id)).apps[app]
    status, body = replica_post(local, f"{instance}{INTERNAL_PREFIX}/episodes/{episode_id}/apply",
                                {"ops": [spec(app).probe]})
    assert status == 200, body


@pytest.mark.parametrize("task_id", tiered(TASKS))
def test_the_gate(make_env: Callable[..., Env], task_id: str) -> None:
    verdict, = check([catalogue().get(task_id)], GATE_SEEDS, make_env, restated=False)
    assert verdict.ok, report_failures([verdict])


@pytest.mark.parametrize(("task_id", "app"), tiered(COLLATERAL))
def test_collateral_damage_fails(
    make_env: Callable[..., Env], local: LocalServer, task_id: str, app: str
) -> None:
    """In any app of the task: the reference plus one unrelated write there fails."""
    env = make_env(task_id, SEED)
    env.reset()
    answer = reference(env, catalogue().get(task_id))
    _unrelated_write(local, env, app)
    report: dict[str, Any] = env.finish(answer=answer)
    by_check = {a["name"]: a for a in report["assertions"]}
    collateral = [name for name, a in by_check.items() if not a["passed"]]
    assert report["success"] is False
    assert collateral, "an unrelated write must fail an assertion"
    task = catalogue().get(task_id)
    only_changes = [a.name for a in task.verifier.root if a.check == "only_changes"]
    assert any(not by_check[name]["passed"] for name in only_changes)


FAULT_TASKS = [task.id for task in catalogue() if task.faults]


@pytest.mark.parametrize("task_id", tiered(FAULT_TASKS))
def test_naive_agent_fails_fault_tasks(make_env: Callable[..., Env], task_id: str) -> None:
    """The reference without fault handling must not pass a task whose difficulty is faults."""
    env = make_env(task_id, SEED)
    env.reset()
    report = env.finish(answer=naive(env, catalogue().get(task_id)))
    assert report["success"] is False
    assert report["faults"], "the plan injected no fault"
