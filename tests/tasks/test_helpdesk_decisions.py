"""The helpdesk's judgement tasks draw their outcome from the seed (issue 24): one task, one
instruction template, both outcomes across any run of seeds, so "this wording -> decline"
(or "-> act") scores nothing. The must-refuse twins they replace are seeds of them now.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

# Each decision task, and the twin tasks (one per outcome) it replaces.
DECISIONS = {
    "helpdesk/refund-window": ["helpdesk/refund-window-expired", "helpdesk/refund-gold-window"],
    "helpdesk/policy-conflict-window": [],
}
SEEDS = range(20, 24)  # any four consecutive seeds


@pytest.mark.parametrize("task_id", DECISIONS)
def test_the_seed_draws_both_outcomes(make_env: Callable[..., Env], local: LocalServer,
                                      task_id: str) -> None:
    task = catalogue().get(task_id)
    assert task.decision is not None, f"{task_id} declares no decision"
    bind = task.decision.split(".")[-2]
    assert bind not in task.instruction, "the instruction renders the outcome"
    outcomes: Counter[object] = Counter()
    for seed in SEEDS:
        env = make_env(task_id, seed)
        env.reset()
        assert env.observation is not None
        record = local.run(local.server.registry.get(env.observation.episode_id))
        outcomes[task.outcome(record.vars)] += 1
    assert len(outcomes) >= 2, f"{task_id}: one outcome on every seed: {dict(outcomes)}"
    assert min(outcomes.values()) >= len(SEEDS) / 4, dict(outcomes)


@pytest.mark.parametrize("task_id", [task for task, twins in DECISIONS.items() if twins])
def test_the_twins_are_seeds_of_one_task(task_id: str) -> None:
    ids = {task.id for task in catalogue()}
    assert task_id in ids
    assert not ids & set(DECISIONS[task_id]), "a twin of one outcome is still a task"
