"""A fault task's faults are met by every successful solution: on each of the gate's seeds
(``workgym tasks check --seeds 3``), the reference and every alternative meet every fault of
the task's plan (each kind is recorded firing on their trajectory), whatever route they take
and however short it is."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.tiers import tiered
from workgym.agents.reference import reference, run_script
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import catalogue

GATE_SEEDS = (0, 1, 2)
SOLUTIONS = [(task.id, name) for task in catalogue() if task.faults
             for name, (kind, _, _) in task.solutions().items()
             if kind in ("reference", "alternative")]


@pytest.mark.parametrize(("task_id", "solution"), tiered(SOLUTIONS))
def test_every_successful_solution_meets_the_tasks_faults(
    make_env: Callable[..., Env], task_id: str, solution: str
) -> None:
    task = catalogue().get(task_id)
    _, script, _ = task.solutions()[solution]
    planned = {fault["kind"] for fault in task.faults}
    for seed in GATE_SEEDS:
        with make_env(task_id, seed) as env:
            env.reset()
            answer = run_script(env, script, strict=True)
            report = env.finish(answer=answer)
        met = {fault["kind"] for fault in report["faults"]}
        assert report["reward"] == 1.0, (seed, report["reward"])
        assert planned <= met, f"seed {seed}: {solution} never met {sorted(planned - met)}"


def test_a_throw_away_invalid_refund_does_not_absorb_the_lost_answer(
    make_env: Callable[..., Env], local: LocalServer
) -> None:
    """"The first refund's answer is lost": a refund the app refuses, sent first to take the
    fault, gets the app's own refusal; the real refund still meets the fault."""
    env = make_env("checkout/refund-under-timeouts", 0)
    obs = env.reset()
    assert local.server.registry is not None
    order = local.run(local.server.registry.get(obs.episode_id)).vars["checkout"]["order"]
    refused = env.call("POST", "/v1/refunds", json={"payment_intent": "pi_nothing_here"})
    assert 400 <= refused.status_code < 500, refused.text
    real = env.call("POST", "/v1/refunds",
                    json={"payment_intent": order["payment_intent"], "amount": 400})
    assert real.status_code == 504
    assert [(f["step"], f["kind"]) for f in env.finish()["faults"]] == [(1, "timeout_after")]


def test_the_reference_waits_out_rate_limits_on_the_episodes_clock(
    make_env: Callable[..., Env]
) -> None:
    """A 429's Retry-After is waited on the episode's clock (the proxy counts refusals, never
    seconds): each refusal is met and recorded as a wait of its Retry-After, and the reference
    still succeeds, spending no wall time on it."""
    task = catalogue().get("helpdesk/fault-rate-limited-lookup")  # two bursts of three 429s
    with make_env(task.id, 0) as env:
        env.reset()
        answer = reference(env, task)
        refused = [step for step in env.trajectory() if step["status"] == 429]
        assert env.waits == [1.0] * len(refused) and len(refused) == 6, env.waits
        assert env.finish(answer=answer)["success"]
