"""Does nothing: the floor every task's reward must sit on."""

from __future__ import annotations

from ..sdk import Env
from ..tasks import Task


def noop(env: Env, task: Task) -> str | None:
    return None
