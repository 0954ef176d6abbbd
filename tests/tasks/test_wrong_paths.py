"""Wrong ways to do a task fail the assertion written to catch them."""

from __future__ import annotations

from collections.abc import Callable

from workgym.agents.reference import given, run_step, runs
from workgym.sdk import Env
from workgym.tasks import catalogue


def test_resetting_2fa_before_asking_fails_the_policy(make_env: Callable[..., Env]) -> None:
    task = catalogue().get("helpdesk/two-factor-reset")
    env = make_env(task.id, 3)  # a requester who gives the digits on file
    obs = env.reset()
    steps = task.reference.steps
    saved = given(task.reference, obs.instruction)  # what it knows from the instruction
    # The reference's own steps, the reset moved before the question (and reading the answer).
    ask = next(i for i, step in enumerate(steps)  # the public reply: an update with a comment
               if step.call.startswith("PUT /api/v2/tickets/")
               and "comment" in (step.json_body or {}).get("ticket", {}))
    reset = next(i for i, step in enumerate(steps) if step.call.endswith("/2fa-reset"))
    assert ask < reset
    for step in [*steps[:ask], steps[reset], *steps[ask:reset], *steps[reset + 1:]]:
        if step is steps[reset] or runs(step, saved):  # the branch the answer takes
            run_step(env, step, saved)
    report = env.finish()
    failed = {a["name"] for a in report["assertions"] if not a["passed"]}
    assert failed == {"asked_before_resetting"}
    assert report["signals"]["policy_compliance"] < 1.0
