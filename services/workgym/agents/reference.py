"""Runs a task's scripted reference solution over HTTP, like an agent would.

Each step is ``METHOD /path`` with optional ``params``, ``json``, ``save``,
``maybe``, ``when``, ``expect``, ``check`` and ``recovery``. ``{name}`` in the
path, and a string that is exactly ``{name}`` anywhere in params/json, is
replaced by a value saved earlier; ``{{ name.field | money: name.currency }}``
renders one (workgym_core.templates). ``save`` maps names to JMESPath
expressions over the response body, where ``saved('name')`` is a value saved
earlier; ``when`` (JMESPath over saved values alone) makes a step conditional.
The script knows only what the instruction states (``given``: regular
expressions over it) and what it read from the apps, never the hidden setup.

Two ways to meet faults:

* :func:`reference` recovers the way a careful agent does: it backs off and
  retries 5xx, timeouts, dropped connections and unreadable bodies; waits out
  ``Retry-After``; refreshes an expired token; and after a write whose answer
  was lost, reads (the step's ``check``) before deciding to send it again. Its
  waits are on the episode's clock (:meth:`Env.wait`), never wall time: the
  proxy counts refusals in requests, so waiting longer would change nothing.
* :func:`naive` is the same script without any of that: it skips the steps
  marked ``recovery`` and retries a failed request at once, blindly, twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import httpx
import jmespath
import jmespath.exceptions
import jmespath.functions
import orjson

from workgym_core.refs import BadReference
from workgym_core.templates import render_value

from ..given import Script
from ..restate import Rewrite
from ..sdk import Env
from ..tasks import Call, Reference, ReferenceStep, Task

_NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
ATTEMPTS = 6
NAIVE_ATTEMPTS = 3
BACKOFF_S = 0.02


class ReferenceFailed(AssertionError):
    """The reference solution met a response it was not written for."""


def fill(value: Any, saved: dict[str, Any]) -> Any:
    """``value`` with the saved values in it (``{name}``, ``{{ jinja }}``; a string that is
    exactly ``{name}`` becomes the saved value itself), through dicts and lists."""
    if isinstance(value, str):
        whole = _NAME.fullmatch(value)
        if whole:
            return saved[whole.group(1)]
        value = render_value(value, saved)
        return _NAME.sub(lambda m: str(saved[m.group(1)]), value) if isinstance(value, str) \
            else value
    if isinstance(value, dict):
        return {k: fill(v, saved) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, saved) for v in value]
    return value


@dataclass
class Attempt:
    """One try of a call: the response (None if the connection dropped) and its JSON."""

    response: httpx.Response | None
    body: Any = None
    readable: bool = True

    @property
    def status(self) -> int:
        return 0 if self.response is None else self.response.status_code

    @property
    def token_expired(self) -> bool:
        """A 401 whose challenge (RFC 6750) says the access token expired, in any app's
        error shape."""
        challenge = "" if self.response is None else self.response.headers.get(
            "www-authenticate", "")
        return self.status == 401 and 'error="invalid_token"' in challenge \
            and "expired" in challenge


def _send(env: Env, call: Call, saved: dict[str, Any], body: Any = None) -> Attempt:
    """One try of ``call`` (``body``: its JSON as filled once for every try, else filled
    now)."""
    method, path = call.call.split(" ", 1)
    try:
        response = env.call(method, fill(path, saved),
                            json=body if body is not None else fill(call.json_body, saved),
                            params=fill(call.params, saved) or None, app=call.app,
                            headers=fill(call.headers, saved) or None)
    except httpx.TransportError:
        return Attempt(None, readable=False)
    if not response.content:
        return Attempt(response)
    try:
        return Attempt(response, orjson.loads(response.content))
    except orjson.JSONDecodeError:
        return Attempt(response, readable=False)


def _moment(value: str | int) -> int:
    """Unix seconds of a timestamp as the apps write it (ISO 8601, or Unix seconds)."""
    if isinstance(value, int | float):
        return int(value)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ReferenceFailed(f"days(): {value!r} is no timestamp") from exc
    return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp())


class _Saved(jmespath.functions.Functions):
    """A script's JMESPath functions: ``saved('name')``, a value it saved earlier;
    ``match(text, 'regex')``, the regular expression's first group in ``text`` (else the
    whole match; null when it does not match): a code out of a customer's message; and the
    arithmetic an agent does on amounts: ``add(a, b)``, ``sub(a, b)``, ``mul(a, b)`` and
    ``div(a, b)`` (floor division: money stays in whole minor units); and on dates:
    ``days(a, b)``, the whole days from moment ``a`` to moment ``b`` (ISO 8601 timestamps or
    Unix seconds, as the apps write them): how long ago an order shipped, against the time
    of a record the script read."""

    def __init__(self, saved: dict[str, Any]) -> None:
        super().__init__()
        self.saved = saved

    @jmespath.functions.signature({"types": ["string"]})
    def _func_saved(self, name: str) -> Any:
        if name not in self.saved:
            raise ReferenceFailed(f"saved('{name}'): nothing saved as {name}")
        return self.saved[name]

    @jmespath.functions.signature({"types": ["string", "null"]}, {"types": ["string"]})
    def _func_match(self, text: str | None, pattern: str) -> str | None:
        found = re.search(pattern, text or "")
        if found is None:
            return None
        return found.group(1) if found.groups() else found.group(0)


    @jmespath.functions.signature({"types": ["string", "number"]},
                                  {"types": ["string", "number"]})
    def _func_days(self, a: str | int, b: str | int) -> int:
        return (_moment(b) - _moment(a)) // 86400

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_add(self, a: int, b: int) -> int:
        return a + b

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_sub(self, a: int, b: int) -> int:
        return a - b

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_mul(self, a: int, b: int) -> int:
        return a * b

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_div(self, a: int, b: int) -> int:
        if b == 0:
            raise ReferenceFailed("div(a, 0): division by zero")
        return int(a // b)


def _search(expression: str, data: Any, saved: dict[str, Any]) -> Any:
    """``expression`` over ``data``; an expression that does not apply to the data (a type
    error, an unknown function) fails the script, naming it, as a missing value does."""
    try:
        return jmespath.search(expression, data,
                               options=jmespath.Options(custom_functions=_Saved(saved)))
    except jmespath.exceptions.JMESPathError as exc:
        raise ReferenceFailed(f"{expression!r}: {exc}") from exc


def _save(call: Call, attempt: Attempt, saved: dict[str, Any]) -> None:
    for name, expression in call.save.items():
        value = _search(expression, attempt.body, saved)
        if value is None:
            raise ReferenceFailed(f"{call.call}: '{expression}' found nothing to save as {name}")
        saved[name] = value
    for name, expression in call.maybe.items():
        saved[name] = _search(expression, attempt.body, saved)


def given(script: Script, instruction: str) -> dict[str, Any]:
    """What the script takes from the instruction (``given``): its first saved values."""
    saved: dict[str, Any] = {}
    for name, pattern in script.given.items():
        found = re.search(pattern, instruction)
        if found is None:
            raise ReferenceFailed(f"given.{name}: /{pattern}/ is not in the instruction")
        saved[name] = found.group(1) if found.groups() else found.group(0)
    return saved


def _done(step: ReferenceStep, attempt: Attempt) -> bool:
    """The answer the script expects (readable, and the expected or a non-error status)."""
    if step.expect is not None:
        return attempt.status == step.expect and attempt.readable
    return 0 < attempt.status < 400 and attempt.readable


def _applied(env: Env, step: ReferenceStep, saved: dict[str, Any]) -> bool:
    """After a write's answer was lost: read, and tell whether it went through."""
    assert step.check is not None
    for _ in range(ATTEMPTS):
        seen = _send(env, step.check, saved)
        if 0 < seen.status < 400 and seen.readable:
            if _search(step.check.applied, seen.body, saved):
                _save(step.check, seen, saved)
                return True
            return False
        _recover(env, seen)
    raise ReferenceFailed(f"{step.check.call}: could not read state after a lost write")


def _recover(env: Env, attempt: Attempt) -> None:
    """What a careful agent does before trying again (its waits on the episode's clock)."""
    if attempt.token_expired:
        env.refresh_token()
    elif attempt.status == 429 and attempt.response is not None:
        env.wait(float(attempt.response.headers.get("retry-after", "1")))
    else:
        env.wait(BACKOFF_S)


def _lost_write(step: ReferenceStep, attempt: Attempt) -> bool:
    """A write that may have been applied although its answer did not arrive."""
    return step.method != "GET" and (attempt.status == 504 or (
        0 < attempt.status < 400 and not attempt.readable))


def run_step(env: Env, step: ReferenceStep, saved: dict[str, Any],
             rewrite: Rewrite | None = None) -> None:
    """One step, recovering from faults like a careful agent; ``rewrite`` changes what it
    writes (the quality gate's mutants and paraphrases)."""
    body = fill(step.json_body, saved)
    if rewrite is not None:
        body = rewrite.body(body)
    for _ in range(ATTEMPTS):
        attempt = _send(env, step, saved, body)
        if _done(step, attempt):
            _save(step, attempt, saved)
            return
        if _lost_write(step, attempt) and step.check is not None and _applied(env, step, saved):
            return
        if attempt.readable and 400 <= attempt.status < 500 and attempt.status not in (401, 429):
            break  # the app refused the request itself: no fault to recover from
        _recover(env, attempt)
    raise ReferenceFailed(f"{step.call}: {attempt.status} "
                          f"{attempt.response.text[:300] if attempt.response else 'no response'}")


def naive_step(env: Env, step: ReferenceStep, saved: dict[str, Any]) -> None:
    """One step as a naive client sends it: on failure, the same request again at once."""
    for _ in range(NAIVE_ATTEMPTS):
        attempt = _send(env, step, saved)
        if _done(step, attempt):
            _save(step, attempt, saved)
            return
    raise ReferenceFailed(f"{step.call}: gave up after {NAIVE_ATTEMPTS} blind tries")


class Conditional(Protocol):
    """A script's step that may have a ``when`` (an API reference's, a browser script's)."""

    @property
    def when(self) -> str | None: ...


def runs(step: Conditional, saved: dict[str, Any]) -> bool:
    """Whether the step runs: it has no ``when``, or its ``when`` holds."""
    return step.when is None or bool(_search(step.when, {}, saved))


@dataclass
class Branch:
    """The way a script went at its ``when`` steps: ``taken`` records, in order, whether
    each ran; ``forced`` (when given) decides that instead of what the script read (the
    quality gate's default-outcome shortcut: a branch followed whatever the case)."""

    forced: tuple[bool, ...] | None = None
    taken: list[bool] = field(default_factory=list)

    def runs(self, step: ReferenceStep, saved: dict[str, Any]) -> bool:
        if step.when is None:
            return True
        going = runs(step, saved) if self.forced is None else self.forced[len(self.taken)]
        self.taken.append(going)
        return going


def _answer(script: Reference, saved: dict[str, Any]) -> str | None:
    return fill(script.answer, saved) if script.answer else None


def run_script(env: Env, script: Reference, *, strict: bool = True,
               rewrite: Rewrite | None = None, branch: Branch | None = None) -> str | None:
    """A scripted solution (the reference, an alternative, a near miss), recovering from
    faults like a careful agent; its answer. Not ``strict`` (a near miss), a step the app
    refuses is passed over: what was done is scored, as it would be of an agent.
    ``rewrite`` changes what it writes and answers (and is given what it saved); ``branch``
    records (or forces) which of its ``when`` steps ran."""
    saved = given(script, env.observation.instruction if env.observation else "")
    if rewrite is not None:
        rewrite.saved = saved
    branch = branch or Branch()
    for step in script.steps:
        if not branch.runs(step, saved):
            continue
        try:
            run_step(env, step, saved, rewrite)
        except (ReferenceFailed, KeyError, BadReference):
            if strict:
                raise
    try:
        answer = _answer(script, saved)
    except (KeyError, BadReference):  # the answer names what a refused step would have read
        return None
    return rewrite.answer(answer) if rewrite is not None else answer


def reference(env: Env, task: Task) -> str | None:
    return run_script(env, task.reference)


def naive(env: Env, task: Task) -> str | None:
    """The reference without fault handling; it stops at the first step it cannot do."""
    saved = given(task.reference, env.observation.instruction if env.observation else "")
    for step in task.reference.steps:
        if step.recovery or not runs(step, saved):
            continue
        try:
            naive_step(env, step, saved)
        except (ReferenceFailed, KeyError, BadReference):
            return None
    return _answer(task.reference, saved)
