"""Runs a task's scripted reference solution over HTTP, like an agent would.

Each step is ``METHOD /path`` with optional ``params``, ``json``, ``save`` and
``expect``. ``{name}`` in the path, and a string that is exactly ``{name}``
anywhere in params/json, is replaced by a value saved earlier; ``save`` maps
names to JMESPath expressions over the response body. The script may use only
what it read from the apps, never the task's hidden setup.
"""

from __future__ import annotations

import re
from typing import Any

import jmespath

from ..sdk import Env
from ..tasks import ReferenceStep, Task

_NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ReferenceFailed(AssertionError):
    """The reference solution met a response it was not written for."""


def _fill(value: Any, saved: dict[str, Any]) -> Any:
    if isinstance(value, str):
        whole = _NAME.fullmatch(value)
        if whole:
            return saved[whole.group(1)]
        return _NAME.sub(lambda m: str(saved[m.group(1)]), value)
    if isinstance(value, dict):
        return {k: _fill(v, saved) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, saved) for v in value]
    return value


def run_step(env: Env, step: ReferenceStep, saved: dict[str, Any]) -> None:
    method, path = step.call.split(" ", 1)
    response = env.call(method, _fill(path, saved), json=_fill(step.json_body, saved),
                        params=_fill(step.params, saved) or None, app=step.app)
    if step.expect is not None and response.status_code != step.expect:
        raise ReferenceFailed(f"{step.call}: expected {step.expect}, got "
                              f"{response.status_code} {response.text[:300]}")
    if response.status_code >= 400 and step.expect is None:
        raise ReferenceFailed(f"{step.call}: {response.status_code} {response.text[:300]}")
    body = response.json() if response.content else None
    for name, expression in step.save.items():
        value = jmespath.search(expression, body)
        if value is None:
            raise ReferenceFailed(f"{step.call}: '{expression}' found nothing to save as {name}")
        saved[name] = value


def reference(env: Env, task: Task) -> str | None:
    saved: dict[str, Any] = {}
    for step in task.reference.steps:
        run_step(env, step, saved)
    return _fill(task.reference.answer, saved) if task.reference.answer else None
