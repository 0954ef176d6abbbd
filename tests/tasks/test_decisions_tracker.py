"""Where the skill is a judgement, the seed draws the answer (issue 24): a task below has one
instruction template, declares its ``decision`` and, set up on any four consecutive seeds,
has each outcome on two of them (a ``cycle`` draw), so "this wording -> this outcome" is no
policy. Its former twins, one outcome each, are gone from the catalogue."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

# The decision tasks, and the outcomes their decision takes.
DECISIONS = {
    # engineering tracks the customers' defect (link to it) or not (file a Bug, link to it)
    "cross/bug-reports-from-customers": (0, 1),
    # the agent may transition the bug (resolve it) or not (ask its assignee)
    "tracker/perm-resolve-verified-bug": (0, 1),
}
# The tasks merged into them: one outcome on every seed, each with its own instruction.
MERGED = ("cross/bug-several-customers-existing-issue", "cross/bug-file-new-with-evidence",
          "tracker/perm-support-role-comment")
SEEDS = range(5, 9)  # any four consecutive seeds


@pytest.mark.parametrize("task_id", sorted(DECISIONS))
def test_the_seed_draws_each_outcome_in_turn(
    make_env: Callable[..., Env], local: LocalServer, task_id: str
) -> None:
    task = catalogue().get(task_id)
    assert task.decision is not None, f"{task_id} declares no decision"
    assert local.server.registry is not None
    outcomes = []
    for seed in SEEDS:
        env = make_env(task_id, seed)
        env.reset()
        assert env.observation is not None
        record = local.run(local.server.registry.get(env.observation.episode_id))
        outcomes.append(task.outcome(record.vars))
    half = len(SEEDS) // len(DECISIONS[task_id])
    assert Counter(outcomes) == dict.fromkeys(DECISIONS[task_id], half), outcomes


def test_the_twins_are_seeds_of_one_task() -> None:
    ids = {task.id for task in catalogue()}
    assert ids.isdisjoint(MERGED), sorted(ids & set(MERGED))
