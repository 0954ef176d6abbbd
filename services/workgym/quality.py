"""The quality gate (``workgym tasks check``): every task's solutions over many seeds.

For each task and seed: the reference and every alternative must score like a success
(1.0), every near miss 0 or less (below 0 when it does harm), doing nothing exactly 0; and
the seeds must make distinct instances (the instruction each renders). What the reference
says is then changed (:mod:`.restate`): every mutant of its messages (a claim negated, a
value swapped, a hedge, a false claim, a reply made internal, a phone told) must score 0 or
less, every paraphrase (other words, other politeness, the customer's language) 1.0. The
gate prints each task's kill rate and acceptance rate; a task that fails the gate does not
ship.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from . import restate
from .agents.reference import run_script
from .restate import Rewrite
from .sdk import Env
from .tasks import Reference, Task

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

    def rate(self, kind: str) -> str:
        passed, runs = self.counts.get(kind, [0, 0])
        return f"{passed / runs:.0%}" if runs else "-"


def _expected(kind: str, harm: bool, report: dict[str, object]) -> bool:
    reward = float(report["reward"])  # type: ignore[arg-type]
    if kind in ("reference", "alternative", "paraphrase"):
        return reward == 1.0
    if kind in ("near_miss", "mutant"):
        return reward < 0 if harm else reward <= 0
    return reward == 0.0 and not report.get("harm")  # noop


def restatements(recorded: Rewrite, seed: int) -> list[tuple[str, str, Rewrite]]:
    """(kind, name, rewrite) of every mutant and paraphrase that changes something of what
    the reference said (``recorded``: its first run)."""
    seen = recorded.seen

    def first(change: restate.Change) -> int | None:
        return next((i for i, m in enumerate(seen) if change(m) is not None), None)

    out = []
    changes = dict(restate.MUTANTS)
    phone = restate.phone_in(recorded.saved)
    if phone:
        changes["phone told"] = restate.disclose(phone)
    for name, change in changes.items():
        index = first(change)
        if index is not None:
            out.append(("mutant", name, Rewrite(change, index, recorded.apps)))
    language = restate.customer_language(recorded.saved, seed)
    for name, change in (("other words", restate.reword(None, 1)),
                         ("politeness", restate.polite(seed)),
                         (f"customer's language ({language})", restate.reword(language, 0))):
        if first(change) is not None:
            out.append(("paraphrase", name, Rewrite(change, apps=recorded.apps)))
    return out


def check(tasks: Iterable[Task], seeds: Sequence[int], make: Callable[[str, int], Env],
          progress: Callable[[str], None] = lambda _: None, *, restated: bool = True
          ) -> list[Verdict]:
    """Every task's solutions and noop on each of ``seeds``, and (``restated``) the mutants
    and paraphrases of what its reference says."""
    verdicts = []
    for task in tasks:
        verdict = Verdict(task.id, len(seeds))
        for seed in seeds:
            runs = [(name, kind, script, harm) for name, (kind, script, harm)
                    in task.solutions().items()] + [("noop", "noop", None, False)]
            recorded = Rewrite(apps=tuple(task.apps))
            for name, kind, script, harm in runs:
                _run(verdict, make, task, seed, name, kind, script, harm,
                     recorded if kind == "reference" else None)
            for kind, name, rewrite in restatements(recorded, seed) if restated else []:
                _run(verdict, make, task, seed, name, kind, task.reference, False, rewrite)
        progress(f"{'ok  ' if verdict.ok else 'FAIL'} {task.id}")
        verdicts.append(verdict)
    return verdicts


def _run(verdict: Verdict, make: Callable[[str, int], Env], task: Task, seed: int, name: str,
         kind: str, script: Reference | None, harm: bool, rewrite: Rewrite | None) -> None:
    """One episode of the task, scored and tallied."""
    with make(task.id, seed) as env:
        obs = env.reset()
        verdict.instances.add(obs.instruction)
        try:
            answer = run_script(env, script, strict=kind not in ("near_miss", "mutant"),
                                rewrite=rewrite) if script is not None else None
        except AssertionError as exc:
            verdict.tally(kind, False, f"seed {seed} {name}: {exc}")
            return
        report = env.finish(answer=answer)
    if kind in ("mutant", "paraphrase") and rewrite is not None and not rewrite.applied:
        verdict.tally(kind, False, f"seed {seed} {kind} {name}: found nothing to change")
        return
    verdict.rewards.append(float(report["reward"]))
    verdict.tally(kind, _expected(kind, harm, report),
                  f"seed {seed} {kind if kind in ('mutant', 'paraphrase') else ''} {name}: "
                  f"reward {report['reward']}, failed "
                  f"{[a['name'] for a in report['assertions'] if not a['passed']]}")


def table(verdicts: list[Verdict]) -> str:
    """The gate's table: instances, pass counts by solution kind, reward spread."""
    kinds = ("reference", "alternative", "near_miss", "noop", "mutant", "paraphrase")
    head = f"{'task':<46} {'inst':>5} " + " ".join(f"{k:>11}" for k in kinds) + \
        f" {'killed':>7} {'accepted':>9} {'rewards':>12}  gate"
    lines = [head, "-" * len(head)]
    for v in verdicts:
        cells = " ".join(f"{'{}/{}'.format(*v.counts.get(k, [0, 0])):>11}" for k in kinds)
        spread = f"{min(v.rewards):+.2f}..{max(v.rewards):+.2f}" if v.rewards else "-"
        lines.append(f"{v.task:<46} {len(v.instances):>2}/{v.seeds:<2} {cells} "
                     f"{v.rate('mutant'):>7} {v.rate('paraphrase'):>9} {spread:>12}  "
                     f"{'pass' if v.ok else 'FAIL'}")
    passed = sum(v.ok for v in verdicts)
    total = Verdict("all", 0)
    for v in verdicts:
        for kind, (ok, runs) in v.counts.items():
            counts = total.counts.setdefault(kind, [0, 0])
            counts[0] += ok
            counts[1] += runs
    lines.append(f"{passed} of {len(verdicts)} tasks pass the gate; mutants killed "
                 f"{total.rate('mutant')}, paraphrases accepted {total.rate('paraphrase')}")
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
