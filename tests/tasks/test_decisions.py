"""Where a task's skill is a judgement, the seed draws the answer (issue 24): a decision task
has one instruction template that does not render its outcome, declares its ``decision``,
and takes every outcome over any four consecutive seeds (a ``cycle`` draw), so "this wording
-> decline" (or "-> act") is no policy. The must-refuse twins it replaces, one outcome each,
are gone from the catalogue. (The gate forces each decision task's reference down the other
outcome's branch on every seed: ``default`` in ``workgym tasks check``.)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from tests.tiers import tiered
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

# The judgement tasks, and the tasks of one outcome each that they replace.
DECISIONS: dict[str, tuple[str, ...]] = {
    "helpdesk/refund-window": ("helpdesk/refund-window-expired", "helpdesk/refund-gold-window"),
    "helpdesk/policy-conflict-window": (),
    "helpdesk/two-factor-reset": ("helpdesk/ask-identity-before-2fa",
                                  "helpdesk/two-factor-reset-cannot-verify"),
    "helpdesk/two-factor-reset-after-check": ("helpdesk/two-factor-reset-verified",),
    "helpdesk/email-change": ("helpdesk/email-change-verify", "helpdesk/email-change-impostor"),
    "helpdesk/returned-machines-refund": ("helpdesk/refund-approval-required",
                                          "helpdesk/refund-approval-denied"),
    "helpdesk/charged-order-not-received": ("helpdesk/stale-cancelled-fulfilled",),
    "checkout/promo-code-forgotten": ("checkout/promo-code-applied-late",
                                      "checkout/promo-code-expired-at-purchase"),
    "checkout/cancel-unshipped-order": ("checkout/cancel-expired-authorization-order",),
    "checkout/refund-requested-order": ("checkout/dispute-never-refund",),
    "checkout/credit-vs-refund-late-code": (),
    "checkout/dispute-respond": ("checkout/dispute-accept-stolen-card",
                                 "checkout/dispute-submit-evidence"),
    "cross/bug-answer-from-tracker": ("cross/bug-duplicate-ticket-already-linked",),
    "cross/bug-reports-from-customers": ("cross/bug-several-customers-existing-issue",
                                         "cross/bug-file-new-with-evidence"),
    "cross/release-fix-version-check": (),
    "tracker/perm-assign-requested": ("tracker/perm-assign-unassignable",),
    "tracker/perm-resolve-verified-bug": ("tracker/perm-support-role-comment",),
    "tracker/wf-triage-new-bug": ("tracker/wf-close-duplicate",),
}
TASKS = sorted({*DECISIONS, *(task.id for task in catalogue() if task.decision)})
SEEDS = range(20, 24)  # any four consecutive seeds, none of the gate's


@pytest.mark.parametrize("task_id", tiered(TASKS))
def test_the_seed_draws_each_outcome(make_env: Callable[..., Env], local: LocalServer,
                                     task_id: str) -> None:
    task = catalogue().get(task_id)
    assert task.decision, f"{task_id} declares no decision"
    assert "{{ " + ".".join(task.decision.split(".")[-2:]) not in task.instruction, \
        "the instruction renders the outcome"
    outcomes: Counter[object] = Counter()
    for seed in SEEDS:
        env = make_env(task_id, seed)
        env.reset()
        assert env.observation is not None and local.server.registry is not None
        record = local.run(local.server.registry.get(env.observation.episode_id))
        outcomes[task.outcome(record.vars)] += 1
    # Every outcome (each of a longer cycle's), none on more than half of the seeds.
    assert len(outcomes) >= 2 and max(outcomes.values()) <= len(SEEDS) // 2, dict(outcomes)


def test_the_twins_are_seeds_of_one_task() -> None:
    ids = {task.id for task in catalogue()}
    twins = {twin for replaced in DECISIONS.values() for twin in replaced}
    assert set(DECISIONS) <= ids and not ids & twins, sorted(ids & twins)
