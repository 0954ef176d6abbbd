"""Scoring one episode of one app: verifier verdicts, signals, reward and final state hash."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from workgym_core.refs import BadReference, Vars
from workgym_core.trajectory import TrajectoryStep

from .assertions import Assertion, Context, Verifier
from .diff import States, diff_states
from .errors import ConfigError
from .hashing import hash_after
from .recovery import judge
from .report import AssertionResult, FaultMet, Report
from .signals import Outcome, Weights, episode_reward, measure


def score(
    *,
    verifier: Verifier,
    initial: bytes,
    final: bytes,
    trajectory: Sequence[TrajectoryStep],
    answer: str | None,
    vars: Vars,
    reference_steps: int,
    weights: Weights | None = None,
) -> Report:
    """Score an episode from the app's serialized states before and after the agent acted.

    Raises ConfigError, naming the assertion, when the verifier does not fit the data: an
    unknown reference, table or column.
    """
    if reference_steps < 1:
        raise ConfigError(f"reference_steps must be at least 1, not {reference_steps}")
    assertions = [_resolve(assertion, vars) for assertion in verifier.root]
    with States.open(initial, final) as states:
        diff = diff_states(states)
        ctx = Context(states=states, diff=diff, trajectory=trajectory, answer=answer)
        results = [(assertion, *_evaluate(assertion, ctx)) for assertion in assertions]
        final_state_hash = hash_after(states, diff)
    outcome = Outcome(
        steps=trajectory,
        verdicts=[(assertion, passed) for assertion, passed, _ in results],
        reference_steps=reference_steps,
    )
    signals = measure(outcome)
    return Report(
        success=outcome.success,
        reward=episode_reward(signals, weights or Weights()),
        signals=signals,
        assertions=[
            AssertionResult(name=assertion.name, passed=passed, detail=detail)
            for assertion, passed, detail in results
        ],
        steps=len(trajectory),
        final_state_hash=final_state_hash,
        faults=_faults_met(trajectory),
    )


def _faults_met(trajectory: Sequence[TrajectoryStep]) -> list[FaultMet]:
    judged = {(step.index, kind): ok for step, kind, ok in judge(trajectory)}
    return [
        FaultMet(step=step.index, kind=kind, method=step.method, path=step.path,
                 status=step.status, recovered=judged.get((step.index, kind)))
        for step in trajectory if step.fault for kind in step.fault.split(",")
    ]


def _resolve(assertion: Assertion, vars: Vars) -> Assertion:
    try:
        return assertion.resolved(vars)
    except (ConfigError, BadReference) as exc:
        raise ConfigError(f"assertion {assertion.name!r}: {exc}") from exc
    except ValidationError as exc:  # a reference resolved to a value the check refuses
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc']))}: {error['msg']}" for error in exc.errors()
        )
        raise ConfigError(f"assertion {assertion.name!r}: {problems}") from exc


def _evaluate(assertion: Assertion, ctx: Context) -> tuple[bool, str]:
    try:
        return assertion.evaluate(ctx)
    except ConfigError as exc:
        raise ConfigError(f"assertion {assertion.name!r}: {exc}") from exc
