"""The helpdesk's judgement tasks draw their outcome from the seed (issue 24): one task, one
instruction template, both outcomes across any run of seeds, so "this wording -> decline"
(or "-> act") scores nothing. The must-refuse twins they replace are seeds of them now.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from workgym.agents.reference import run_script
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import Reference, catalogue


@dataclass(frozen=True)
class Decision:
    judged: str  # what the reference saves as its judgement (what it read decides it)
    twins: tuple[str, ...] = ()  # the tasks of one outcome each that it replaces


DECISIONS = {
    "helpdesk/refund-window": Decision(
        "eligible", ("helpdesk/refund-window-expired", "helpdesk/refund-gold-window")),
    "helpdesk/policy-conflict-window": Decision("entitled"),
    "helpdesk/two-factor-reset": Decision(
        "verified",
        ("helpdesk/ask-identity-before-2fa", "helpdesk/two-factor-reset-cannot-verify")),
    "helpdesk/email-change": Decision(
        "holder", ("helpdesk/email-change-verify", "helpdesk/email-change-impostor")),
    "helpdesk/returned-machines-refund": Decision(
        "approved", ("helpdesk/refund-approval-required", "helpdesk/refund-approval-denied")),
    "helpdesk/two-factor-reset-after-check": Decision(
        "verified", ("helpdesk/two-factor-reset-verified",)),
}
SEEDS = range(20, 24)  # any four consecutive seeds


def _without_looking(script: Reference, judged: str, verdict: bool) -> Reference:
    """The reference, its judgement made without what it read: always act, or never."""
    steps = [step.model_copy(update={"save": {**step.save, judged: f"`{str(verdict).lower()}`"}})
             if judged in step.save else step for step in script.steps]
    assert steps != script.steps, f"the reference saves no {judged!r}"
    return script.model_copy(update={"steps": steps})


@pytest.mark.parametrize("task_id", DECISIONS)
def test_the_seed_draws_the_outcome_and_a_fixed_one_fails(
    make_env: Callable[..., Env], local: LocalServer, task_id: str
) -> None:
    """Both outcomes on any four consecutive seeds, under an instruction that does not
    render them; on each seed, the reference that takes the other outcome without looking
    (acts where it must not, or declines where it must act) does not pass, and acting
    wrongly is harm."""
    task, judged = catalogue().get(task_id), DECISIONS[task_id].judged
    assert task.decision is not None, f"{task_id} declares no decision"
    assert task.decision.split(".")[-2] not in task.instruction, "the instruction renders it"
    outcomes: Counter[object] = Counter()
    for seed in SEEDS:
        env = make_env(task_id, seed)
        env.reset()
        assert env.observation is not None
        record = local.run(local.server.registry.get(env.observation.episode_id))
        outcome = task.outcome(record.vars)
        outcomes[outcome] += 1
        shortcut = _without_looking(task.reference, judged, not outcome)
        report = env.finish(answer=run_script(env, shortcut, strict=False))
        assert report["reward"] <= 0, (seed, outcome, report["reward"])
        assert report["reward"] < 0 or outcome, f"seed {seed}: acting wrongly is no harm"
    assert len(outcomes) >= 2, f"{task_id}: one outcome on every seed: {dict(outcomes)}"
    assert min(outcomes.values()) >= len(SEEDS) / 4, dict(outcomes)


@pytest.mark.parametrize("task_id", [task for task, d in DECISIONS.items() if d.twins])
def test_the_twins_are_seeds_of_one_task(task_id: str) -> None:
    ids = {task.id for task in catalogue()}
    assert task_id in ids
    assert not ids & set(DECISIONS[task_id].twins), "a twin of one outcome is still a task"
