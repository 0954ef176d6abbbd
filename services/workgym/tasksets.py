"""Task sets: a list of task instances (a task at a seed, under a fault plan, with a weight)
in a file that every part of a training loop reads and writes.

``workgym tasks calibrate`` writes the instances a baseline solves sometimes, ``workgym
curriculum`` those a run's weak skills call for; ``workgym bench --set``, the adapters
(:meth:`TaskSet.rows`, the rows their datasets take) and ``workgym export --set`` read them::

    {"format": "workgym-taskset/1", "name": "helpdesk-calibrated",
     "description": "...", "env_version": {"id": "wg-...", "parts": {...}} | null,
     "made_by": {"command": "workgym tasks calibrate ...", ...},
     "instances": [{"task": "helpdesk/refund-standard", "seed": 3, "faults": "task",
                    "weight": 1, "info": {"rate": 0.6, ...}}, ...]}

``faults`` is ``task`` (the task's own plan) or a preset's name (``workgym run --faults``);
``weight`` (a whole number, at least 1) is how many times the instance is in the rows a
trainer samples from; ``info`` is free (what made the instance: its solve rate, its skills).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from workgym_core.errors import ConfigError

FORMAT = "workgym-taskset/1"


class TaskSetError(ConfigError):
    """A task set file that cannot be read, or an instance that is not valid."""


@dataclass(frozen=True)
class Instance:
    task: str
    seed: int
    faults: str = "task"
    weight: int = 1
    info: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"task": self.task, "seed": self.seed, "faults": self.faults,
                "weight": self.weight, "info": dict(self.info)}

    @property
    def key(self) -> tuple[str, int, str]:
        return self.task, self.seed, self.faults


@dataclass
class TaskSet:
    instances: list[Instance]
    name: str = ""
    description: str = ""
    env_version: Mapping[str, Any] | None = None
    made_by: Mapping[str, Any] = field(default_factory=dict)

    def rows(self) -> list[dict[str, Any]]:
        """One dataset row per instance, ``weight`` times over: ``{"task", "seed",
        "faults"}``, in the set's order (what the adapters' rows carry)."""
        return [{"task": i.task, "seed": i.seed, "faults": i.faults}
                for i in self.instances for _ in range(i.weight)]

    def document(self) -> dict[str, Any]:
        return {"format": FORMAT, "name": self.name, "description": self.description,
                "env_version": dict(self.env_version) if self.env_version else None,
                "made_by": dict(self.made_by),
                "instances": [i.as_dict() for i in self.instances]}

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(orjson.dumps(self.document(), option=orjson.OPT_INDENT_2) + b"\n")


def _instance(raw: Any, where: str, known: Sequence[str] | None) -> Instance:
    if not isinstance(raw, dict):
        raise TaskSetError(f"{where}: an instance is an object with task and seed")
    unknown = set(raw) - {"task", "seed", "faults", "weight", "info"}
    if unknown:
        raise TaskSetError(f"{where}: unknown field {sorted(unknown)[0]!r} (an instance has "
                           "task, seed, faults, weight, info)")
    task, seed = raw.get("task"), raw.get("seed")
    if not isinstance(task, str) or not task:
        raise TaskSetError(f"{where}.task: a task id is required (`workgym tasks` lists them)")
    if known is not None and task not in known:
        raise TaskSetError(f"{where}.task: no task {task!r} in the catalogue "
                           "(`workgym tasks` lists them)")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise TaskSetError(f"{where}.seed: a whole number 0 or more is required, not {seed!r}")
    faults = raw.get("faults", "task")
    if not isinstance(faults, str) or not faults:
        raise TaskSetError(f"{where}.faults: 'task' or a fault preset's name, not {faults!r}")
    if faults != "task":
        from .presets import fault_presets

        if faults not in fault_presets():
            raise TaskSetError(f"{where}.faults: no fault preset {faults!r}; the presets are "
                               f"{', '.join(sorted(fault_presets()))} (or 'task')")
    weight = raw.get("weight", 1)
    if not isinstance(weight, int) or isinstance(weight, bool) or weight < 1:
        raise TaskSetError(f"{where}.weight: a whole number 1 or more is required, not "
                           f"{weight!r}")
    info = raw.get("info", {})
    if not isinstance(info, dict):
        raise TaskSetError(f"{where}.info: an object is required")
    return Instance(task, seed, faults, weight, info)


def parse(document: Any, where: str = "task set", *,
          known: Sequence[str] | None = None) -> TaskSet:
    """A task set from its JSON ``document``; ``known``: the task ids it may name (default:
    the catalogue's). Every error names ``where``, the instance and the field."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TaskSetError(f"{where} is not a task set (format {FORMAT!r})")
    raw = document.get("instances")
    if not isinstance(raw, list) or not raw:
        raise TaskSetError(f"{where}: instances: a non-empty list is required")
    if known is None:
        from .tasks import catalogue

        known = [t.id for t in catalogue()]
    instances = [_instance(item, f"{where}: instances[{n}]", known) for n, item in enumerate(raw)]
    seen: set[tuple[str, int, str]] = set()
    for n, instance in enumerate(instances):
        if instance.key in seen:
            raise TaskSetError(f"{where}: instances[{n}]: {instance.task} seed {instance.seed} "
                               f"faults {instance.faults} is listed twice (raise its weight "
                               "instead)")
        seen.add(instance.key)
    return TaskSet(instances, str(document.get("name") or ""),
                   str(document.get("description") or ""), document.get("env_version"),
                   document.get("made_by") or {})


def load(path: Path, *, known: Sequence[str] | None = None) -> TaskSet:
    """The task set in ``path`` (see :func:`parse`)."""
    try:
        document = orjson.loads(Path(path).read_bytes())
    except OSError as exc:
        raise TaskSetError(f"cannot read task set {path}: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise TaskSetError(f"task set {path} is not JSON: {exc}") from None
    return parse(document, str(path), known=known)
