"""The task catalogue: task suites are data under ``tasks/<app>/<name>.yaml``.

A task's id is derived from its file (``helpdesk/refund-partial``), its app from
its folder and its reference step count from its reference solution, so none
of them is written twice. Agents see :class:`TaskSummary` / :class:`TaskDetail`
only: never the setup, verifier, scripted customer or reference solution.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from workgym_core.errors import NotFound
from workgym_core.rowops import parse_ops
from workgym_proxy.faults import parse_plan
from workgym_reward import Verifier

TASKS_DIR = Path(__file__).resolve().parents[2] / "tasks"
# libyaml's safe loader when PyYAML has it (~10x faster: the gym parses every task at start).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Call(BaseModel):
    """One HTTP call of a scripted solution (see workgym.agents.reference)."""

    model_config = ConfigDict(extra="forbid")

    call: str = Field(pattern=r"^(GET|POST|PUT|PATCH|DELETE) /\S*$")
    params: dict[str, Any] = Field(default_factory=dict)
    json_body: Any = Field(None, alias="json")
    save: dict[str, str] = Field(default_factory=dict, description="name -> JMESPath")
    app: str | None = None

    @property
    def method(self) -> str:
        return self.call.split(" ", 1)[0]


class WriteCheck(Call):
    """How to tell whether a write whose answer was lost was applied: ``applied`` is a
    JMESPath over this read's response that is truthy when it was."""

    applied: str


class ReferenceStep(Call):
    expect: int | None = Field(None, description="Status the step must get.")
    check: WriteCheck | None = Field(
        None, description="For writes: the read that tells whether a lost write was applied.")
    recovery: bool = Field(
        False, description="A step that only exists to handle faults (e.g. a fresh re-read "
        "before a write); the naive agent skips it.")


class Reference(BaseModel):
    model_config = ConfigDict(extra="forbid")

    steps: list[ReferenceStep] = Field(min_length=1)
    answer: str | None = None


class TaskSummary(BaseModel):
    id: str = Field(description="'<app>/<name>'.")
    app: str = Field(description="Replica the task runs on.")
    title: str
    difficulty: Literal["easy", "medium", "hard"]
    tags: list[str]


class TaskDetail(TaskSummary):
    instruction: str = Field(description="What the agent is asked to do.")
    max_steps: int = Field(description="Step budget of an episode of this task.")
    reference_steps: int = Field(description="Steps the reference solution takes.")


class Task(BaseModel):
    """A task as authored (everything, including what agents must not see)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    app: str
    title: str
    difficulty: Literal["easy", "medium", "hard"]
    tags: list[str] = Field(min_length=1)
    instruction: str = Field(min_length=20)
    setup: list[dict[str, Any]] = Field(default_factory=list)
    customer: dict[str, Any] | None = None
    reference: Reference
    verifier: Verifier
    faults: list[dict[str, Any]] = Field(
        default_factory=list, description="The task's fault plan (fault-proxy configs).")
    max_steps: int = Field(60, gt=0)

    @field_validator("faults")
    @classmethod
    def _valid_plan(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        parse_plan(value)
        return value

    @field_validator("setup")
    @classmethod
    def _valid_setup(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        parse_ops(value)  # row operations, never SQL
        return value

    @property
    def reference_steps(self) -> int:
        return len(self.reference.steps)

    @property
    def script(self) -> dict[str, Any]:
        """World behaviour handed to the replica (never to the agent)."""
        return {} if self.customer is None else {"customer": self.customer}

    def summary(self) -> TaskSummary:
        return TaskSummary.model_validate(self.model_dump(include=set(TaskSummary.model_fields)))

    def detail(self) -> TaskDetail:
        return TaskDetail(
            **self.summary().model_dump(), instruction=self.instruction,
            max_steps=self.max_steps, reference_steps=self.reference_steps,
        )


class TaskFileError(ValueError):
    """A task file that does not parse; names the file."""


def load_task(path: Path, root: Path = TASKS_DIR) -> Task:
    rel = path.relative_to(root).with_suffix("")
    raw = yaml.load(path.read_text(), Loader=_YAML_LOADER)
    if not isinstance(raw, dict):
        raise TaskFileError(f"{path}: a task file must hold a mapping")
    try:
        return Task.model_validate({**raw, "id": rel.as_posix(), "app": rel.parts[0]})
    except ValidationError as exc:
        raise TaskFileError(f"{path}: {exc}") from exc


class Catalogue:
    def __init__(self, tasks: list[Task]) -> None:
        self._tasks = {task.id: task for task in sorted(tasks, key=lambda t: t.id)}

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._tasks.values())

    def __len__(self) -> int:
        return len(self._tasks)

    def get(self, task_id: str) -> Task:
        task = self._tasks.get(task_id)
        if task is None:
            raise NotFound(f"no task '{task_id}'", code="task_not_found", field="task")
        return task


@cache
def catalogue(root: Path = TASKS_DIR) -> Catalogue:
    """Every task under ``root`` (parsed once per process)."""
    return Catalogue([load_task(path, root) for path in sorted(root.glob("*/*.yaml"))])
