"""Built-in agents: the task's reference solution, the same without fault handling
(naive), a no-op and a random one.

An agent is a function ``(env, task) -> answer | None`` that acts on an episode
already reset; the caller finishes it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..sdk import Env
from ..tasks import Task
from .noop import noop
from .random_agent import random_agent
from .reference import naive, reference

Agent = Callable[[Env, Task], "str | None"]

AGENTS: dict[str, Agent] = {
    "reference": reference, "naive": naive, "noop": noop, "random": random_agent,
}
