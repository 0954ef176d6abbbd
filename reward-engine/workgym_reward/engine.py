"""Scoring one episode, of one app or several: verifier verdicts, signals, reward and the
final state hash."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from datetime import date
from typing import Any

from pydantic import ValidationError

from workgym_core.refs import BadReference, Vars
from workgym_core.speech import Lexicon
from workgym_core.trajectory import TrajectoryStep

from .assertions import AllSaid, Answer, AnswerMatches, AnswerStates, Assertion, Context, Verifier
from .assertions.disclosure import NothingDisclosed
from .diff import States, diff_states
from .errors import ConfigError
from .hashing import hash_after
from .recovery import judge
from .report import AssertionResult, FaultMet, Report
from .reused_rows import unchanged_tables
from .signals import Outcome, Weights, episode_reward, measure
from .state_class import state_class
from .truth import Case, Row


def _everywhere(verifier: Verifier, states: Mapping[str, Any], lexicon: Lexicon | None
                ) -> list[tuple[str, Assertion]]:
    """The checks of every episode, whatever its task: everything the agent wrote is
    understood and true (its answer too, unless the task checks that as an answer), and
    nothing told outside is not the hearer's."""
    writing = [app for app in states if lexicon and lexicon.writes.get(app)]
    if not writing:
        return []
    assert lexicon is not None
    answered = any(isinstance(a, (Answer, AnswerStates, AnswerMatches)) for a in verifier.root)
    out: list[tuple[str, Assertion]] = [
        (writing[0], AllSaid(name="all_said_is_true", answer=not answered))]
    if any(w.out for app in writing for w in lexicon.writes[app]):
        out.append((writing[0], NothingDisclosed(name="nothing_disclosed")))
    return out


def score(
    *,
    verifier: Verifier,
    states: Mapping[str, tuple[bytes, bytes]],
    trajectory: Sequence[TrajectoryStep],
    answer: str | None,
    vars: Mapping[str, Vars],
    reference_steps: int,
    weights: Weights | None = None,
    lexicon: Lexicon | None = None,
    today: date | None = None,
    case: Mapping[str, Sequence[Row]] | None = None,
    keys: Mapping[str, str] | None = None,
) -> Report:
    """Score an episode from each app's serialized states before and after the agent acted
    (``states``: app -> (initial, final)) and the rows each app's setup bound (``vars``).

    An assertion looks at its ``app`` (a one-app episode's by default); ``only_changes``
    spans every app. The final state hash is the app's (one app) or one over every app's.
    What the agent said is judged against the case (``workgym_reward.truth``) with the apps'
    ``lexicon``, ``today`` the episode's date and ``case`` the facts the task gives (claim ->
    rows). ``keys``: what names each app's initial state (its snapshot key; equal keys, equal
    states), which caches what is known of it across episodes. Raises ConfigError, naming
    the assertion, when the verifier does not fit the data: an unknown app, reference, table
    or column.
    """
    if reference_steps < 1:
        raise ConfigError(f"reference_steps must be at least 1, not {reference_steps}")
    if not states:
        raise ConfigError("an episode has at least one app")
    targets = [(app, assertion) for app, assertion in (
        (_app_of(assertion, states), assertion) for assertion in verifier.root)
        if _applies(assertion, vars.get(app, {}), vars)]
    assertions = [(app, _resolve(assertion, vars.get(app, {}), vars))
                  for app, assertion in targets]
    assertions += _everywhere(verifier, states, lexicon)
    with ExitStack() as stack:
        world: dict[str, Context] = {}
        hashes: dict[str, str] = {}
        opened_states = {app: stack.enter_context(
                             States.open(initial, final, (keys or {}).get(app)))
                         for app, (initial, final) in states.items()}
        diffs = {app: diff_states(opened) for app, opened in opened_states.items()}
        found = Case(lexicon.for_apps(states), opened_states, vars, today, case or {},
                     unchanged={app: unchanged_tables(opened, diffs[app])
                                for app, opened in opened_states.items()}) \
            if lexicon else None
        for app, opened in opened_states.items():
            world[app] = Context(states=opened, diff=diffs[app], trajectory=trajectory,
                                 answer=answer, app=app, world=world, case=found)
            hashes[app] = hash_after(opened, diffs[app])
        results = [(assertion, *_evaluate(assertion, world[app]))
                   for app, assertion in assertions]
    final_state_hash = combined_hash(hashes)
    classes = {app: state_class(diff) for app, diff in diffs.items()}
    outcome = Outcome(
        steps=trajectory,
        verdicts=[(assertion, passed, harmed) for assertion, passed, harmed, _ in results],
        reference_steps=reference_steps,
    )
    signals = measure(outcome)
    return Report(
        success=outcome.success,
        harm=outcome.harm,
        reward=episode_reward(signals, weights or Weights(), harm=outcome.harm),
        signals=signals,
        assertions=[
            AssertionResult(name=assertion.name, check=assertion.kind, passed=passed,
                            policy=assertion.policy, harm=harmed, detail=detail)
            for assertion, passed, harmed, detail in results
        ],
        steps=len(trajectory),
        final_state_hash=final_state_hash,
        state_class=classes,
        faults=_faults_met(trajectory),
    )


def _faults_met(trajectory: Sequence[TrajectoryStep]) -> list[FaultMet]:
    judged = {(step.index, kind): ok for step, kind, ok in judge(trajectory)}
    return [
        FaultMet(step=step.index, kind=kind, method=step.method, path=step.path,
                 status=step.status, recovered=judged.get((step.index, kind)))
        for step in trajectory if step.fault for kind in step.fault.split(",")
    ]


def combined_hash(hashes: Mapping[str, str]) -> str:
    """One app's state hash, or one hash over every app's (by app name)."""
    if len(hashes) == 1:
        return next(iter(hashes.values()))
    joined = "".join(f"{app}={digest}\n" for app, digest in sorted(hashes.items()))
    return hashlib.sha256(joined.encode()).hexdigest()


def _app_of(assertion: Assertion, states: Mapping[str, Any]) -> str:
    if assertion.app is None:
        if len(states) > 1:
            raise ConfigError(f"assertion {assertion.name!r}: name its app (one of "
                              f"{', '.join(states)}): the episode has several")
        return next(iter(states))
    if assertion.app not in states:
        raise ConfigError(f"assertion {assertion.name!r}: no app {assertion.app!r} in the "
                          f"episode ({', '.join(states)})")
    return assertion.app


def _applies(assertion: Assertion, vars: Vars, others: Mapping[str, Vars]) -> bool:
    try:
        return assertion.applies(vars, others)
    except (ValueError, ArithmeticError, TypeError) as exc:
        raise ConfigError(f"assertion {assertion.name!r}: when {assertion.when!r}: {exc}") \
            from exc


def _resolve(assertion: Assertion, vars: Vars, others: Mapping[str, Vars]) -> Assertion:
    try:
        return assertion.resolved(vars, others)
    except (ConfigError, BadReference) as exc:
        raise ConfigError(f"assertion {assertion.name!r}: {exc}") from exc
    except ValidationError as exc:  # a reference resolved to a value the check refuses
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc']))}: {error['msg']}" for error in exc.errors()
        )
        raise ConfigError(f"assertion {assertion.name!r}: {problems}") from exc


def _evaluate(assertion: Assertion, ctx: Context) -> tuple[bool, bool, str]:
    """(passed, did harm, what it found): harm when an assertion marked ``harm`` fails, or
    when the assertion says so itself (a false statement)."""
    try:
        result = assertion.evaluate(ctx)
    except ConfigError as exc:
        raise ConfigError(f"assertion {assertion.name!r}: {exc}") from exc
    passed, detail = result[0], result[1]
    harmed = result[2] if len(result) == 3 else (assertion.harm and not passed)
    return passed, bool(harmed) and not passed, detail
