"""``workgym curriculum``: the next task set from a bench run, weighted to its weak skills.

The run's diagnosis (:mod:`workgym.bench.diagnosis`) ranks the skills its failed episodes
show. For each weak skill, in that order, the set takes the tasks that exercise it
(:func:`~workgym.bench.diagnosis.exercised`: the same mapping, from the task files' side),
those exercising it most first, among the tasks of the run's apps, at seeds the run did not
use: the next training round practises the skill on instances the agent has not seen
(generalisation, not memorisation). Each skill has a share of the set's ``size`` in
proportion to its rate; an instance's weight is its skills' weakness (a skill of rate r
weighs ``max(1, round(10 r))``; an instance several weak skills picked adds them); fault
recovery is practised under the ``hard`` fault preset. The set is a function of the results
file and the options alone: the same ones write the same bytes.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workgym_core.errors import ConfigError

from .bench.diagnosis import FAULT, Weakness, diagnose, exercised, shown
from .bench.results import Results
from .tasks import Task, catalogue
from .tasksets import Instance, TaskSet

SIZE = 40  # instances in a set, by default
SEEDS = 5  # unused seeds to draw from, by default
HARD = "hard"  # the fault preset that practises recovery


class NothingToPractise(Exception):
    """No set to write: why (no scored episode failed, or no task exercises the weak skills)."""


def weight(rate: float) -> int:
    """An instance's weight for a skill of this rate (the share of problems showing it)."""
    return max(1, round(10 * rate))


def shares(weak: Sequence[Weakness], size: int) -> list[int]:
    """``size`` instances split among the weak skills in proportion to their rates (largest
    remainders; ties to the weaker skill, listed first)."""
    total = sum(w.rate.mean for w in weak)
    exact = [size * w.rate.mean / total for w in weak]
    counts = [int(x) for x in exact]
    by_remainder = sorted(range(len(weak)), key=lambda i: -(exact[i] - counts[i]))
    for i in by_remainder[:size - sum(counts)]:
        counts[i] += 1
    return counts


def unused_seeds(run: Sequence[int], count: int) -> list[int]:
    """The ``count`` smallest seeds the run did not use."""
    found: list[int] = []
    seed = 0
    while len(found) < count:
        if seed not in run:
            found.append(seed)
        seed += 1
    return found


@dataclass
class _Picked:
    skills: list[str] = field(default_factory=list)
    weight: int = 0
    why: list[str] = field(default_factory=list)


def _in_scope(results: Results) -> list[Task]:
    """The catalogue's tasks the run's apps serve (a run of the helpdesk: helpdesk tasks)."""
    tasks = catalogue()
    ran = {task_id for task_id in results.header["tasks"]}
    apps = {app for task in tasks if task.id in ran for app in task.apps}
    return [task for task in tasks if set(task.apps) <= apps]


def _candidates(skill: str, tasks: Sequence[Task], showed: set[str]
                ) -> list[tuple[Task, list[str]]]:
    """The tasks exercising ``skill``, most first (what they exercise it with), then those
    where the run showed it, then by id."""
    found = [(task, reasons) for task in tasks if (reasons := exercised(task).get(skill))]
    return sorted(found, key=lambda tr: (-len(tr[1]), tr[0].id not in showed, tr[0].id))


def curriculum(results: Results, source: str, *, size: int = SIZE,
               seeds: Sequence[int] | None = None) -> TaskSet:
    """The next task set for the run in ``results`` (``source``: its path as given, which
    the set records); NothingToPractise when no scored episode failed, or no task of the
    run's apps exercises the skills they show."""
    if size < 1:
        raise ConfigError(f"--size must be at least 1, not {size}")
    scored = [e for e in results.episodes if not e.get("infra_error")]
    if not scored:
        raise ConfigError(f"{source} has no scored episode: nothing to diagnose")
    run_seeds = sorted({int(s) for s in results.header["seeds"]} | {int(e["seed"]) for e in scored})
    if seeds is not None:
        if reused := sorted(set(seeds) & set(run_seeds)):
            raise ConfigError(f"--seeds {','.join(map(str, reused))}: the run used them; a "
                              "curriculum practises at unseen seeds (generalisation, not "
                              "memorisation)")
        chosen_seeds = sorted(set(seeds))
    else:
        chosen_seeds = unused_seeds(run_seeds, SEEDS)
    weak = diagnose(scored)
    if not weak:
        raise NothingToPractise(f"no weak skill in {source}: no scored episode failed")
    tasks = _in_scope(results)
    picked: dict[tuple[str, int, str], _Picked] = {}
    unexercised = []
    for weakness, share in zip(weak, shares(weak, size), strict=True):
        skill = weakness.skill
        showed = {e["task"] for e in scored if skill in shown(e)}
        faults = HARD if skill == FAULT else "task"
        candidates = _candidates(skill, tasks, showed)
        if not candidates:
            unexercised.append(skill)
        pairs = [(task, reasons, seed) for seed in chosen_seeds for task, reasons in candidates]
        for task, reasons, seed in pairs[:share]:
            entry = picked.setdefault((task.id, seed, faults), _Picked())
            entry.skills.append(skill)
            entry.weight += weight(weakness.rate.mean)
            more = f" and {len(reasons) - 3} more" if len(reasons) > 3 else ""
            entry.why.append(f"{skill} ({weakness.rate} of the run's problems): "
                             f"{', '.join(reasons[:3])}{more}")
    if not picked:
        raise NothingToPractise(f"no task of the run's apps exercises {', '.join(unexercised)}")
    instances = [Instance(task, seed, faults, entry.weight,
                          {"skills": entry.skills, "why": "; ".join(entry.why)})
                 for (task, seed, faults), entry in picked.items()]
    command = ["workgym", "curriculum", source, "--size", str(size)]
    if seeds is not None:
        command += ["--seeds", ",".join(map(str, chosen_seeds))]
    agent = results.header.get("agent", "the agent")
    return TaskSet(
        instances, name=f"curriculum-{Path(source).stem}",
        description=(f"The next tasks for {agent}, weighted to the weak skills of {source} ("
                     + ", ".join(f"{w.skill} {w.rate}" for w in weak)
                     + f"), at seeds the run did not use ({', '.join(map(str, chosen_seeds))}):"
                     " generalisation, not memorisation."
                     + (f" No task of the run's apps exercises {', '.join(unexercised)}."
                        if unexercised else "")),
        env_version=results.header.get("env_version"),
        made_by={"command": shlex.join(command), "results": source})


def planned(taskset: TaskSet) -> dict[str, int]:
    """Per skill of the set: how many of its instances practise it."""
    found: dict[str, int] = {}
    for instance in taskset.instances:
        for skill in instance.info["skills"]:
            found[skill] = found.get(skill, 0) + 1
    return found
