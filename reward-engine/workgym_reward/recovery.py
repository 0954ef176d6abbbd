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
  recovered when the agent read what it changed before sending it again (a read that showed
  one of the rows the write changed: the object it targeted, or a list that includes it),
  or sent it again with the same Idempotency-Key (the app replays the first answer); a
  blind retry is not recovering, and a read of other rows, even of the same table, does not
  count.
* ``rate_limit``: recovered when the same method and path later succeed (the agent kept
  trying through the burst of refusals rather than giving up). Refusals are counted in
  requests, never timed, so waiting cannot be observed and is not asked for.
* ``token_expiry``: recovered when a later request succeeds (after a refresh).
* ``state_drift``: recovered when the agent read the rows the other actor changed (a read
  that showed one of them) after the drift and before its next write to them (an agent
  that never writes them again has nothing to lose).

A read *showed* a row when its answer (a successful GET, as kept on the trajectory) holds an
object whose ``id`` is the row's ``ref`` (the id the app's API shows for it) and the read
read the row's table. A body too large to keep on the trajectory is judged by the tables it
read alone.

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


def _ids(body: object) -> set[str]:
    """The ``id`` of every object in a JSON body, as text."""
    if isinstance(body, dict):
        found = {str(body["id"])} if "id" in body and not isinstance(body["id"], dict | list) \
            else set()
        return found.union(*(_ids(v) for v in body.values()))
    if isinstance(body, list):
        return set().union(*(_ids(v) for v in body))
    return set()


def _shows(step: TrajectoryStep, rows: Sequence[dict[str, object]]) -> bool:
    """A successful read that showed one of ``rows`` ({table, id, ref}) to the agent."""
    if step.method != "GET" or not _ok(step):
        return False
    read = {row["table"] for row in rows} & set(step.reads)
    if step.response_body is None:  # too large to keep: the tables it read
        return bool(read) and not step.fault
    ids = _ids(step.response_body)
    return any(row["table"] in read and str(row.get("ref", row["id"])) in ids for row in rows)


def _touches(step: TrajectoryStep, rows: Sequence[dict[str, object]]) -> bool:
    """A write that changed one of ``rows``."""
    keys = {(row["table"], row["id"]) for row in rows}
    return any((change["table"], change["id"]) in keys for change in step.changes)


def _no_blind_retry(steps: Steps, i: int) -> bool:
    fault = steps[i]
    for step in steps[i + 1:]:
        if _shows(step, fault.changes):
            return True
        if (step.method, step.path, step.request_body) == (
                fault.method, fault.path, fault.request_body):
            return fault.idempotency_key is not None \
                and step.idempotency_key == fault.idempotency_key
    return True


def _later_success(steps: Steps, i: int) -> bool:
    return any(_ok(step) and not step.fault for step in steps[i + 1:])


def _read_before_write(steps: Steps, i: int) -> bool:
    drifted = steps[i].affected  # changed right after step i, before the next one
    for step in steps[i + 1:]:
        if _shows(step, drifted):
            return True
        if step.is_write and _touches(step, drifted):
            return False
    return True


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
