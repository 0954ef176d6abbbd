"""Where a task's skill is a judgement, the seed draws the answer (issue 24): the decision
tasks listed here each declare their ``decision`` and, under their one instruction
template, take every outcome over any 4 consecutive seeds: "this wording -> decline" learns
nothing. Every other task of the catalogue that declares a decision is held
to the same."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

DECISION_TASKS = [
    "checkout/promo-code-forgotten",
    "checkout/cancel-unshipped-order",
    "checkout/refund-requested-order",
    "tracker/perm-assign-requested",
    "helpdesk/charged-order-not-received",
    "checkout/credit-vs-refund-late-code",
    "tracker/wf-triage-new-bug",
    "cross/bug-answer-from-tracker",
    "checkout/dispute-respond",
]
TASKS = sorted({*DECISION_TASKS, *(task.id for task in catalogue() if task.decision)})
SEEDS = range(21, 25)  # 4 consecutive seeds, none of the gate's


def _outcome(make_env: Callable[..., Env], local: LocalServer, task_id: str, seed: int) -> object:
    env = make_env(task_id, seed)
    env.reset()
    assert env.observation is not None
    record = local.run(local.server.registry.get(env.observation.episode_id))
    return catalogue().get(task_id).outcome(record.vars)


@pytest.mark.parametrize("task_id", TASKS)
def test_the_seed_draws_each_outcome(make_env: Callable[..., Env], local: LocalServer,
                                     task_id: str) -> None:
    task = catalogue().get(task_id)
    assert task.decision, f"{task_id} declares no decision"
    outcomes = [_outcome(make_env, local, task_id, seed) for seed in SEEDS]
    # Both outcomes (every one of a longer cycle's), none on more than half of the seeds.
    assert len(set(outcomes)) >= 2, outcomes
    assert max(map(outcomes.count, outcomes)) <= len(SEEDS) // 2, outcomes


# Tasks of one outcome on every seed, each with its own instruction, that are now seeds of a
# decision task above (twins merged, or a task renamed for the work it asks).
RETIRED = (
    "cross/bug-duplicate-ticket-already-linked",  # -> cross/bug-answer-from-tracker
    "checkout/dispute-accept-stolen-card",  # -> checkout/dispute-respond
    "checkout/dispute-submit-evidence",  # -> checkout/dispute-respond
)


def test_one_outcome_tasks_are_seeds_of_a_decision_task() -> None:
    ids = {task.id for task in catalogue()}
    assert ids.isdisjoint(RETIRED), sorted(ids & set(RETIRED))
