"""A trainer's dataset from a task set (:mod:`workgym.tasksets`): the rows each adapter takes,
one per instance, ``weight`` times over, in the set's order (:meth:`TaskSet.rows`)::

    from workgym import tasksets
    from workgym.adapters.datasets import rows

    taskset = tasksets.load(Path("sets/calibrated-openai-gpt-4o.json"))
    rows(taskset, "skyrl")   # [{"prompt": [], "env_class": "workgym",
                             #   "env_extras": {"task", "seed", "faults"}}, ...]

- ``skyrl``: ``{"prompt": [], "env_class": "workgym", "env_extras": {task, seed, faults}}``
  (the env's ``init`` puts the brief, tools and instruction first);
- ``trl``: ``{"prompt": [{"role": "user", "content": ""}], "task", "seed", "faults"}`` (``reset``
  appends the brief and the instruction to the last user message);
- ``verl``: ``{"agent_name": "workgym", "prompt": [], "extra_info": {task, seed, faults}}``;
- ``verifiers``: ``{task, seed, faults}``, ``load_environment(instances=...)``'s;
- ``openenv``: ``{task, seed, faults}``, the keyword arguments of ``reset``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tasksets import TaskSet

Row = dict[str, Any]

SHAPES: dict[str, Callable[[Row], Row]] = {
    "skyrl": lambda row: {"prompt": [], "env_class": "workgym", "env_extras": row},
    "trl": lambda row: {"prompt": [{"role": "user", "content": ""}], **row},
    "verl": lambda row: {"agent_name": "workgym", "prompt": [], "extra_info": row},
    "verifiers": lambda row: row,
    "openenv": lambda row: row,
}


def rows(taskset: TaskSet, framework: str) -> list[Row]:
    """The dataset rows of ``taskset`` for ``framework`` (one of :data:`SHAPES`)."""
    if framework not in SHAPES:
        raise ValueError(f"no dataset shape for {framework!r}: choose from "
                         f"{', '.join(sorted(SHAPES))}")
    return [SHAPES[framework](row) for row in taskset.rows()]
