"""The quality gate (``workgym tasks check``): every task's solutions over many seeds.

For each task and seed: the reference and every alternative must score like a success
(1.0), every near miss 0 or less (below 0 when it does harm), doing nothing exactly 0; and
the seeds must make distinct instances (the instruction each renders). A task that fails
the gate does not ship.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .agents.reference import run_script
from .sdk import Env
from .tasks import Task

# Distinct instances a task needs in its seeds: 8 of 10.
MIN_DISTINCT = 0.8


@dataclass
class Verdict:
    """One task over its seeds."""

    task: str
    seeds: int
    instances: set[str] = field(default_factory=set)
    counts: dict[str, list[int]] = field(default_factory=dict)  # kind -> [passed, runs]
    rewards: list[float] = field(default_factory=list)  # every run's, for the spread
    failures: list[str] = field(default_factory=list)

    def tally(self, kind: str, passed: bool, what: str) -> None:
        passed_runs = self.counts.setdefault(kind, [0, 0])
        passed_runs[0] += passed
        passed_runs[1] += 1
        if not passed:
            self.failures.append(what)

    @property
    def ok(self) -> bool:
        distinct = len(self.instances) >= MIN_DISTINCT * self.seeds or self.seeds < 2
        return distinct and not self.failures and all(
            self.counts.get(kind, [0, 0])[1] for kind in ("alternative", "near_miss"))


def _expected(kind: str, harm: bool, report: dict[str, object]) -> bool:
    reward = float(report["reward"])  # type: ignore[arg-type]
    if kind in ("reference", "alternative"):
        return reward == 1.0
    if kind == "near_miss":
        return reward < 0 if harm else reward <= 0
    return reward == 0.0 and not report.get("harm")  # noop


def check(tasks: Iterable[Task], seeds: Sequence[int], make: Callable[[str, int], Env],
          progress: Callable[[str], None] = lambda _: None) -> list[Verdict]:
    """Every task's solutions and noop on each of ``seeds``."""
    verdicts = []
    for task in tasks:
        verdict = Verdict(task.id, len(seeds))
        for seed in seeds:
            runs = [(name, kind, script, harm) for name, (kind, script, harm)
                    in task.solutions().items()] + [("noop", "noop", None, False)]
            for name, kind, script, harm in runs:
                with make(task.id, seed) as env:
                    obs = env.reset()
                    verdict.instances.add(obs.instruction)
                    try:
                        answer = run_script(env, script, strict=kind != "near_miss") \
                            if script is not None else None
                    except AssertionError as exc:
                        verdict.tally(kind, False, f"seed {seed} {name}: {exc}")
                        continue
                    report = env.finish(answer=answer)
                verdict.rewards.append(float(report["reward"]))
                verdict.tally(kind, _expected(kind, harm, report),
                              f"seed {seed} {name}: reward {report['reward']}, failed "
                              f"{[a['name'] for a in report['assertions'] if not a['passed']]}")
        progress(f"{'ok  ' if verdict.ok else 'FAIL'} {task.id}")
        verdicts.append(verdict)
    return verdicts


def table(verdicts: list[Verdict]) -> str:
    """The gate's table: instances, pass counts by solution kind, reward spread."""
    kinds = ("reference", "alternative", "near_miss", "noop")
    head = f"{'task':<46} {'inst':>5} " + " ".join(f"{k:>11}" for k in kinds) + \
        f" {'rewards':>12}  gate"
    lines = [head, "-" * len(head)]
    for v in verdicts:
        cells = " ".join(f"{'{}/{}'.format(*v.counts.get(k, [0, 0])):>11}" for k in kinds)
        spread = f"{min(v.rewards):+.2f}..{max(v.rewards):+.2f}" if v.rewards else "-"
        lines.append(f"{v.task:<46} {len(v.instances):>2}/{v.seeds:<2} {cells} {spread:>12}  "
                     f"{'pass' if v.ok else 'FAIL'}")
    passed = sum(v.ok for v in verdicts)
    lines.append(f"{passed} of {len(verdicts)} tasks pass the gate")
    return "\n".join(lines)


def report_failures(verdicts: list[Verdict], limit: int = 8) -> str:
    out = []
    for v in verdicts:
        if not v.ok:
            out.append(f"{v.task}: {len(v.instances)} distinct instances of {v.seeds}")
            out += [f"  {failure}" for failure in v.failures[:limit]]
            if not v.counts.get("alternative", [0, 0])[1]:
                out.append("  no alternative solution")
            if not v.counts.get("near_miss", [0, 0])[1]:
                out.append("  no near miss")
    return "\n".join(out)


def main_check(tasks: list[Task], seeds: int, make: Callable[[str, int], Env]) -> int:
    verdicts = check(tasks, range(seeds), make, progress=lambda line: print(line, file=sys.stderr))
    print(table(verdicts))
    failures = report_failures(verdicts)
    if failures:
        print(failures, file=sys.stderr)
    return 0 if all(v.ok for v in verdicts) else 1
