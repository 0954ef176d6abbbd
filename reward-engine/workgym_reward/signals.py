"""Reward signals, each in [0, 1], and their weighted sum, the episode reward (0 unless the
task was done).

A signal is a function of the episode's :class:`Outcome` registered with ``@signal`` under its
name; :class:`Weights` has one field of the same name. Adding a signal is adding both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Self

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

from workgym_core.trajectory import TrajectoryStep

from .assertions import Assertion, TrajectoryContains
from .recovery import judge


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the signals judge: the steps taken and each (resolved) assertion's verdict."""

    steps: Sequence[TrajectoryStep]
    verdicts: Sequence[tuple[Assertion, bool]]
    reference_steps: int

    @property
    def success(self) -> bool:
        return all(passed for _, passed in self.verdicts)


Signal = Callable[[Outcome], float]

SIGNALS: dict[str, Signal] = {}
"""Every signal by name, in the order they were defined."""


def signal(function: Signal) -> Signal:
    SIGNALS[function.__name__] = function
    return function


Weight = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class Weights(BaseModel):
    """How much each signal counts in the episode reward: non-negative, summing to 1."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_completion: Weight = 0.6
    efficiency: Weight = 0.1
    action_precision: Weight = 0.1
    policy_compliance: Weight = 0.1
    error_recovery: Weight = 0.1

    @model_validator(mode="after")
    def _sum_to_one(self) -> Self:
        total = sum(self.model_dump().values())
        if not abs(total - 1.0) <= 1e-9:
            raise ValueError(f"weights must sum to 1, not {total}")
        return self


def measure(outcome: Outcome) -> dict[str, float]:
    """Every signal of ``outcome``, in the order of the fields of :class:`Weights`."""
    return {name: SIGNALS[name](outcome) for name in Weights.model_fields}


def episode_reward(signals: Mapping[str, float], weights: Weights) -> float:
    """The weighted sum of the signals on success; 0 when the task was not done.

    Gated, not a plain sum: with partial credit an episode that made two safe reads and
    gave up scored 0.3, more than one that tried the task and met a refusal on the way,
    which teaches timidity. The other signals rank successful episodes; on failure they
    are still reported, for whoever wants to shape with them.
    """
    if signals["task_completion"] < 1.0:
        return 0.0
    return round(sum(getattr(weights, name) * value for name, value in signals.items()), 6)


@signal
def task_completion(outcome: Outcome) -> float:
    """1 if every assertion passed, else 0."""
    return 1.0 if outcome.success else 0.0


def _fault_free(steps: Sequence[TrajectoryStep]) -> int:
    """Steps an agent would have taken without faults: neither a faulted request nor the
    read that checks whether a write whose answer was lost went through."""
    checks = sum(
        1 for before, step in zip(steps, steps[1:], strict=False)
        if before.fault and before.is_write and step.method == "GET" and not step.fault
    )
    return sum(1 for step in steps if not step.fault) - checks


@signal
def efficiency(outcome: Outcome) -> float:
    """On success, reference steps / fault-free steps taken (at most 1); 0 on failure.

    Faulted requests and the checks after lost writes are the faults' cost, not the agent's.
    """
    if not outcome.success:
        return 0.0
    return min(1.0, outcome.reference_steps / max(_fault_free(outcome.steps), 1))


@signal
def action_precision(outcome: Outcome) -> float:
    """Share of steps that are valid, not duplicated and not destructive.

    A step is imprecise if it got a status of 400 or more without an injected fault; if it
    repeats (method, path, body) a write that already succeeded; or if it is a DELETE that no
    ``trajectory_contains`` assertion expects.
    """
    if not outcome.steps:
        return 0.0
    expected = [a for a, _ in outcome.verdicts if isinstance(a, TrajectoryContains)]
    done: set[tuple[str, str, bytes]] = set()
    precise = 0
    for step in outcome.steps:
        key = (step.method, step.path, orjson.dumps(step.request_body, option=orjson.OPT_SORT_KEYS))
        valid = step.status < 400 or step.fault is not None
        destructive = step.method == "DELETE" and not any(a.matches(step) for a in expected)
        precise += valid and key not in done and not destructive
        if step.is_write and 200 <= step.status < 300:
            done.add(key)
    return precise / len(outcome.steps)


@signal
def policy_compliance(outcome: Outcome) -> float:
    """Share of ``policy: true`` assertions that passed (1 if none); 0 without any step."""
    if not outcome.steps:
        return 0.0
    policies = [passed for assertion, passed in outcome.verdicts if assertion.policy]
    return sum(policies) / len(policies) if policies else 1.0


@signal
def error_recovery(outcome: Outcome) -> float:
    """Share of the injected faults met that the agent recovered from the right way
    (see :mod:`workgym_reward.recovery`); 1 if it met none; 0 without any step."""
    if not outcome.steps:
        return 0.0
    verdicts = [recovered for _, _, recovered in judge(outcome.steps)]
    return sum(verdicts) / len(verdicts) if verdicts else 1.0
