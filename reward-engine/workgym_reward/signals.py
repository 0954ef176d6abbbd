"""Reward signals, each in [0, 1], and the episode reward made from them.

The reward, with the default :class:`Weights`:

* **harm** (an assertion marked ``harm`` failed: money moved wrongly, a false claim to the
  customer, a forbidden action): ``-1.0``, below doing nothing;
* **failure** (any other assertion failed, doing nothing included): ``0.0``;
* **success**: ``0.9 + 0.1 x`` the weighted mean of the signals that rank successes
  (efficiency 0.5, action precision 0.25, error recovery 0.25), so a success scores at least
  0.9 whatever reasonable diligence it took. ``task_completion`` and ``policy_compliance``
  are the same on every success (every assertion passed), so they do not enter it.

Every signal is still reported, for shaping of one's own. A signal is a function of the
episode's :class:`Outcome` registered with ``@signal`` under its name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Self

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

from workgym_core.trajectory import TrajectoryStep, followed

from .assertions import Assertion, TrajectoryContains
from .recovery import judge


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the signals judge: the steps taken and each (resolved) assertion's verdict."""

    steps: Sequence[TrajectoryStep]
    verdicts: Sequence[tuple[Assertion, bool, bool]]  # (assertion, passed, did harm)
    reference_steps: int

    @property
    def success(self) -> bool:
        return all(passed for _, passed, _ in self.verdicts)

    @property
    def harm(self) -> bool:
        """An assertion marked ``harm`` failed, or one found harm (a false statement)."""
        return any(harmed for _, _, harmed in self.verdicts)


Signal = Callable[[Outcome], float]

SIGNALS: dict[str, Signal] = {}
"""Every signal by name, in the order they were defined."""


def signal(function: Signal) -> Signal:
    SIGNALS[function.__name__] = function
    return function


Weight = Annotated[float, Field(ge=0, allow_inf_nan=False)]
# The signals that rank successful episodes (the others are constant on success).
SHAPING = ("efficiency", "action_precision", "error_recovery")


class Weights(BaseModel):
    """How the reward is made (see the module docstring): what a success earns at least,
    what harm costs, and how the ranking signals weigh (summing to 1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    success: float = Field(0.9, gt=0, le=1, description="A success's reward at least.")
    harm: float = Field(-1.0, lt=0, description="The reward of an episode that did harm.")
    efficiency: Weight = 0.5
    action_precision: Weight = 0.25
    error_recovery: Weight = 0.25

    @model_validator(mode="after")
    def _sum_to_one(self) -> Self:
        total = sum(getattr(self, name) for name in SHAPING)
        if not abs(total - 1.0) <= 1e-9:
            raise ValueError(f"the weights of {', '.join(SHAPING)} must sum to 1, not {total}")
        return self


def measure(outcome: Outcome) -> dict[str, float]:
    """Every signal of ``outcome``, in the order they were defined."""
    return {name: function(outcome) for name, function in SIGNALS.items()}


def episode_reward(signals: Mapping[str, float], weights: Weights, *, harm: bool) -> float:
    """``weights.harm`` on harm; 0 when the task was not done; on success, ``weights.success``
    plus the rest of 1 times the weighted ranking signals.

    Gated, not a plain sum: with partial credit an episode that made two safe reads and
    gave up scored 0.3, more than one that tried the task and met a refusal on the way,
    which teaches timidity; and a double refund must cost more than doing nothing.
    """
    if harm:
        return weights.harm
    if signals["task_completion"] < 1.0:
        return 0.0
    ranked: float = sum(getattr(weights, name) * signals[name] for name in SHAPING)
    return round(weights.success + (1 - weights.success) * ranked, 6)


@signal
def task_completion(outcome: Outcome) -> float:
    """1 if every assertion passed, else 0."""
    return 1.0 if outcome.success else 0.0


def fault_free(steps: Sequence[TrajectoryStep]) -> int:
    """Steps an agent would have taken without faults, each as one: neither a faulted
    request, nor the read that checks whether a write whose answer was lost went through,
    nor the page a browser loads by itself after a redirect (a form's post and the page it
    is sent on to are one action of a browser agent: ``followed``, as the step budget counts)."""
    pairs = list(zip(steps, steps[1:], strict=False))
    checks = sum(1 for before, step in pairs
                 if before.fault and before.is_write and step.method == "GET" and not step.fault)
    pages = sum(1 for before, step in pairs if followed(before, step))
    return sum(1 for step in steps if not step.fault) - checks - pages


# Steps up to this many times the reference's cost no efficiency: reading the policy, or
# checking a record before writing, is diligence.
TOLERANCE = 1.5


@signal
def efficiency(outcome: Outcome) -> float:
    """On success, 1 up to ``TOLERANCE`` x the reference's steps, then (that) / the
    fault-free steps taken; 0 on failure.

    Faulted requests and the checks after lost writes are the faults' cost, not the agent's.
    """
    if not outcome.success:
        return 0.0
    allowed = TOLERANCE * outcome.reference_steps
    return min(1.0, allowed / max(fault_free(outcome.steps), 1))


@signal
def action_precision(outcome: Outcome) -> float:
    """Share of steps that are valid, not duplicated and not destructive.

    A step is imprecise if it got a status of 400 or more without an injected fault; if it
    repeats (method, path, body) a write that already succeeded; or if it is a DELETE (or a
    page's write that performs one) that no ``trajectory_contains`` assertion expects.
    """
    if not outcome.steps:
        return 0.0
    expected = [a for a, _, _ in outcome.verdicts if isinstance(a, TrajectoryContains)]
    done: set[tuple[str, str, bytes]] = set()
    precise = 0
    for step in outcome.steps:
        key = (step.method, step.path, orjson.dumps(step.request_body, option=orjson.OPT_SORT_KEYS))
        valid = step.status < 400 or step.fault is not None
        deletes = step.method == "DELETE" or any(op.method == "DELETE" for op in step.operations)
        destructive = deletes and not any(a.matches(step) for a in expected)
        precise += valid and key not in done and not destructive
        if step.is_write and 200 <= step.status < 300:
            done.add(key)
    return precise / len(outcome.steps)


@signal
def policy_compliance(outcome: Outcome) -> float:
    """Share of ``policy: true`` assertions that passed (1 if none); 0 without any step."""
    if not outcome.steps:
        return 0.0
    policies = [passed for assertion, passed, _ in outcome.verdicts if assertion.policy]
    return sum(policies) / len(policies) if policies else 1.0


@signal
def error_recovery(outcome: Outcome) -> float:
    """Share of the injected faults met that the agent recovered from the right way
    (see :mod:`workgym_reward.recovery`); 1 if it met none; 0 without any step."""
    if not outcome.steps:
        return 0.0
    verdicts = [recovered for _, _, recovered in judge(outcome.steps)]
    return sum(verdicts) / len(verdicts) if verdicts else 1.0
