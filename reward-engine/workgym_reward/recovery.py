"""Error recovery: for each injected fault the agent met, did it recover the right way?

Judged from the trajectory alone (fault kinds are recorded on the steps):

* ``server_error``, ``timeout_before``, ``connection_reset``, and ``truncated_body``
  on a read: the request was not applied (or its answer was unreadable); recovered
  when the same request later succeeds (a write: or is applied, even if a later fault lost
  that answer). The same request: the same method and path, and for a write a body that
  sets every attribute the failed one did (a reply sent again, in other words or with a
  status change), since one path takes different writes (Zendesk's PUT /tickets/{id} takes
  a reply, a status change or both).
* ``timeout_after`` and ``truncated_body`` on a write: the write *was* applied;
  recovered when the agent read what it changed (a read of one of the tables the write
  changed) before sending it again, or sent it again with the same Idempotency-Key (the
  app replays the first answer); a blind retry is not recovering, and a read of something
  else does not count.
* ``rate_limit``: recovered when the same method and path later succeed (the agent kept
  trying through the burst of refusals rather than giving up). Refusals are counted in
  requests, never timed, so waiting cannot be observed and is not asked for.
* ``token_expiry``: recovered when a later request succeeds (after a refresh).
* ``state_drift``: recovered when the agent read what the other actor changed (a read of
  one of its tables) after the drift and before its next write.

``latency``, ``schema_drift`` and ``duplicate_delivery`` ask nothing of the agent
here (a task's assertions judge their consequences) and are not counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from workgym_core.trajectory import TrajectoryStep

Steps = Sequence[TrajectoryStep]


def _kinds(step: TrajectoryStep) -> list[str]:
    return step.fault.split(",") if step.fault else []


def _ok(step: TrajectoryStep) -> bool:
    return 0 < step.status < 500 and step.status not in (401, 429)


def _shape(body: object, at: str = "") -> frozenset[str]:
    """The attribute paths of a JSON body, without values (``ticket.comment.body``)."""
    if isinstance(body, dict):
        return frozenset().union(*(_shape(v, f"{at}{k}.") for k, v in body.items())) \
            if body else frozenset({at})
    return frozenset({at})


def _redoes(later: TrajectoryStep, failed: TrajectoryStep) -> bool:
    """``later`` sends ``failed`` again: the same method and path, and for a write every
    attribute the failed one set (a reply sent again, in any words, maybe with more)."""
    return later.method == failed.method and later.path == failed.path and (
        not failed.is_write or _shape(failed.request_body) <= _shape(later.request_body))


def _retried_ok(steps: Steps, i: int) -> bool:
    """The same request later went through: it succeeded without a fault, or (a write) it
    was applied even though a fault then lost its answer (the careful agent checks rather
    than sending it a third time)."""
    fault = steps[i]
    return any(_redoes(s, fault)
               and ((_ok(s) and not s.fault) or (s.is_write and bool(s.changes)))
               for s in steps[i + 1:])


def _reads(step: TrajectoryStep, tables: set[str]) -> bool:
    """A successful read that read one of ``tables`` (any read, when none is known)."""
    return step.method == "GET" and _ok(step) and (not tables or bool(tables & set(step.reads)))


def _no_blind_retry(steps: Steps, i: int) -> bool:
    fault = steps[i]
    changed = {change["table"] for change in fault.changes}
    for step in steps[i + 1:]:
        if _reads(step, changed):
            return True
        if (step.method, step.path, step.request_body) == (
                fault.method, fault.path, fault.request_body):
            return fault.idempotency_key is not None \
                and step.idempotency_key == fault.idempotency_key
    return True


def _later_success(steps: Steps, i: int) -> bool:
    return any(_ok(step) and not step.fault for step in steps[i + 1:])


def _read_before_write(steps: Steps, i: int) -> bool:
    drifted = set(steps[i].affected)
    for step in steps[i:]:
        if _reads(step, drifted):
            return True
        if step.is_write:
            return False
    return False


def _lost_answer(steps: Steps, i: int) -> bool:
    return (_no_blind_retry if steps[i].is_write else _retried_ok)(steps, i)


RULES: dict[str, Callable[[Steps, int], bool]] = {
    "server_error": _retried_ok,
    "timeout_before": _retried_ok,
    "connection_reset": _retried_ok,
    "timeout_after": _no_blind_retry,
    "truncated_body": _lost_answer,
    "rate_limit": _retried_ok,
    "token_expiry": _later_success,
    "state_drift": _read_before_write,
}


def judge(steps: Steps) -> list[tuple[TrajectoryStep, str, bool]]:
    """(step, fault kind, recovered) for every counted fault, in order."""
    return [(step, kind, RULES[kind](steps, i))
            for i, step in enumerate(steps) for kind in _kinds(step) if kind in RULES]
