"""The quality gate (``workgym tasks check``): every task's solutions over many seeds.

For each task and seed: the reference and every alternative must score like a success
(1.0), every near miss 0 or less (below 0 when it does harm), doing nothing exactly 0; and
the seeds must make distinct instances (the instruction each renders). What the reference
says is then changed (:mod:`.restate`): every mutant of its messages (a claim negated, a
value swapped, a hedge, a false claim, a reply made internal, a phone told) must score 0 or
less, every paraphrase (other words, other politeness, the customer's language) 1.0. A task
with a ``browser:`` solution has it run through the pages on each seed too (``browser``: how;
one browser and one served gym for the whole check): it must score 1.0, and its final state
must be in the class the API reference's reaches on the same seed
(``workgym_reward.state_class``). The gate prints each task's kill rate and acceptance rate;
a task that fails the gate does not ship.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import TYPE_CHECKING, Any

from . import restate, shortcuts
from .agents.reference import Branch, run_script
from .restate import Rewrite
from .sdk import Env
from .shortcuts import World
from .tasks import Reference, Task

if TYPE_CHECKING:
    from .local import LocalServer

# Distinct instances a task needs in its seeds: 8 of 10.
MIN_DISTINCT = 0.8
# Seeds a decision's split and a question's answers are counted over (at least).
SAMPLE = 10
# Of the seeds: the most a target may stand out on, the least each outcome occurs on, the
# most one answer is right on.
MAX_TARGET_SHARE = 0.25
MIN_OUTCOME_SHARE = 0.25
MAX_ANSWER_SHARE = 0.2

Inspect = Callable[[Env], World]  # a set-up episode's World
# A task's browser: solution on a seed, through the pages: its reward report.
SolveInBrowser = Callable[[Task, int], dict[str, Any]]


def inspector(local: LocalServer) -> Inspect:
    """How the gate reads an episode of the in-process server ``local``: the rows its setup
    bound and each app's initial state (what scoring reads; never shown to an agent)."""
    from .gym.replica_client import ReplicaClient

    server = local.server
    assert server.registry is not None and server.upstream is not None
    registry = server.registry
    replicas = ReplicaClient(server.upstream, server.settings.internal_secret)

    def world(env: Env) -> World:
        assert env.observation is not None
        record = local.run(registry.get(env.observation.episode_id))
        return World(record.vars, {
            app: local.run(replicas.state(instance, record.id, "initial"))[0]
            for app, instance in record.apps.items()})
    return world


@dataclass
class Verdict:
    """One task over its seeds."""

    task: str
    seeds: int
    instances: set[str] = field(default_factory=set)
    counts: dict[str, list[int]] = field(default_factory=dict)  # kind -> [passed, runs]
    rewards: list[float] = field(default_factory=list)  # every run's, for the spread
    failures: list[str] = field(default_factory=list)
    # The shortcut columns (None: not checked): seeds set up for them; the most seeds one
    # target stood out on; each decision outcome's seeds; the most seeds one answer fits.
    sampled: int = 0
    target: int | None = None
    outcomes: Counter[str] | None = None
    answers: int | None = None

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

    def cell(self, kind: str) -> str:
        """passed/runs of a kind, '-' when there were none."""
        passed, runs = self.counts.get(kind, [0, 0])
        return f"{passed}/{runs}" if runs else "-"

    @property
    def target_hidden(self) -> bool | None:
        """No target stood out on more than a quarter of the seeds (None: not checked)."""
        return None if self.target is None else self.target <= MAX_TARGET_SHARE * self.sampled

    @property
    def decided(self) -> bool | None:
        """Two outcomes or more, each on at least a quarter of the seeds (None: no decision)."""
        if self.outcomes is None:
            return None
        return len(self.outcomes) > 1 and \
            min(self.outcomes.values()) >= MIN_OUTCOME_SHARE * self.sampled

    @property
    def answers_vary(self) -> bool | None:
        """No answer right on more than a fifth of the seeds (None: no question)."""
        return None if self.answers is None else self.answers <= MAX_ANSWER_SHARE * self.sampled

    @property
    def split(self) -> str:
        """The decision column: outcomes on enough seeds / outcomes (two at least), and the
        seeds of each: '2/2 4:6'."""
        if self.outcomes is None:
            return "-"
        enough = sum(n >= MIN_OUTCOME_SHARE * self.sampled for n in self.outcomes.values())
        return f"{enough}/{max(len(self.outcomes), 2)} " + ":".join(
            str(n) for _, n in sorted(self.outcomes.items()))

    @property
    def browser(self) -> str:
        """The browser column: the rate of the ``browser:`` solution's runs that passed,
        blank when the task has none (or the gate ran none)."""
        return self.rate("browser") if "browser" in self.counts else ""

    def share(self, found: int | None) -> str:
        """A sampled column's cell: found/seeds sampled, '-' when not checked."""
        return "-" if found is None else f"{found}/{self.sampled}"


def _expected(kind: str, harm: bool, report: dict[str, Any]) -> bool:
    reward = float(report["reward"])
    if kind in ("reference", "alternative", "paraphrase"):
        return reward == 1.0
    if kind in ("near_miss", "mutant"):
        return reward < 0 if harm else reward <= 0
    if kind in ("constant answer", "default outcome"):
        return reward <= 0
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
          progress: Callable[[str], None] = lambda _: None, *, restated: bool = True,
          world: Inspect | None = None, browser: SolveInBrowser | None = None
          ) -> list[Verdict]:
    """Every task's solutions and noop on each of ``seeds``, and (``restated``) the mutants
    and paraphrases of what its reference says; with ``world`` (how to read a set-up
    episode), the shortcut columns too; with ``browser``, each ``browser:`` solution."""
    verdicts = []
    for task in tasks:
        verdict = Verdict(task.id, len(seeds))
        seen = Seen()
        for seed in seeds:
            runs = [(name, kind, script, harm) for name, (kind, script, harm)
                    in task.solutions().items()] + [("noop", "noop", None, False)]
            recorded = Rewrite(apps=tuple(task.apps))
            for name, kind, script, harm in runs:
                reference = kind == "reference"
                run = _run(verdict, make, task, seed, name, kind, script, harm,
                           recorded if reference else None,
                           inspect=world if reference else None)
                if world is not None and task.faults and run.report is not None \
                        and kind in ("reference", "alternative", "near_miss"):
                    verdict.tally("fault met", bool(run.report["faults"]),
                                  f"seed {seed} {name}: met none of the task's faults")
                if reference:
                    seen.record(seed, run)
                    if browser is not None and task.browser is not None:
                        _browser(verdict, browser, task, seed, run.report)
            for kind, name, rewrite in restatements(recorded, seed) if restated else []:
                _run(verdict, make, task, seed, name, kind, task.reference, False, rewrite)
        if world is not None:
            _shortcuts(verdict, make, task, seeds, seen, world)
        progress(f"{'ok  ' if verdict.ok else 'FAIL'} {task.id}")
        verdicts.append(verdict)
    return verdicts


@dataclass
class Run:
    """One scored episode: its answer and report (None when the script failed), and, when
    read, its setup (:class:`World`) and the way the script went at its ``when`` steps."""

    answer: str | None = None
    report: dict[str, Any] | None = None
    world: World | None = None
    branch: Branch = field(default_factory=Branch)


@dataclass
class Seen:
    """What the reference's runs showed, by seed: its answer, the way it went, its setup."""

    answers: dict[int, str | None] = field(default_factory=dict)
    branches: dict[int, tuple[bool, ...]] = field(default_factory=dict)
    worlds: dict[int, World] = field(default_factory=dict)

    def record(self, seed: int, run: Run) -> None:
        if run.report is not None:
            self.answers[seed] = run.answer
            self.branches[seed] = tuple(run.branch.taken)
        if run.world is not None:
            self.worlds[seed] = run.world


def _run(verdict: Verdict, make: Callable[[str, int], Env], task: Task, seed: int, name: str,
         kind: str, script: Reference | None, harm: bool, rewrite: Rewrite | None, *,
         inspect: Inspect | None = None, branch: Branch | None = None,
         answer: str | None = None) -> Run:
    """One episode of the task, scored and tallied (``answer``: given instead of the
    script's; ``inspect``: its setup read too)."""
    run = Run(branch=branch or Branch())
    with make(task.id, seed) as env:
        obs = env.reset()
        verdict.instances.add(obs.instruction)
        run.world = inspect(env) if inspect is not None else None
        try:
            run.answer = run_script(env, script, strict=kind not in LENIENT, rewrite=rewrite,
                                    branch=run.branch) if script is not None else None
        except AssertionError as exc:
            verdict.tally(kind, False, f"seed {seed} {name}: {exc}")
            return run
        report = env.finish(answer=run.answer if answer is None else answer)
    if kind in ("mutant", "paraphrase") and rewrite is not None and not rewrite.applied:
        verdict.tally(kind, False, f"seed {seed} {kind} {name}: found nothing to change")
        return run
    run.report = report
    verdict.rewards.append(float(report["reward"]))
    verdict.tally(kind, _expected(kind, harm, report),
                  f"seed {seed} {kind if kind in ('mutant', 'paraphrase') else ''} {name}: "
                  f"reward {report['reward']}, failed "
                  f"{[a['name'] for a in report['assertions'] if not a['passed']]}")
    return run


def _browser(verdict: Verdict, solve: SolveInBrowser, task: Task, seed: int,
             reference: dict[str, Any] | None) -> None:
    """The task's ``browser:`` solution on ``seed``, tallied: it scores 1.0 (every assertion
    of its verifier passes, no harm, as efficient as its script should be) and its final
    state's class is the API ``reference`` report's."""
    try:
        report = solve(task, seed)
    except Exception as exc:  # a script that cannot go on names its step and the page
        verdict.tally("browser", False, f"seed {seed} browser: {type(exc).__name__}: {exc}")
        return
    failed = [a["name"] for a in report["assertions"] if not a["passed"]]
    problems = [] if _expected("reference", False, report) and not failed else [
        f"reward {report['reward']}, failed {failed}"]
    if reference is None:
        problems.append("no API reference run to compare its final state with")
    elif report["state_class"] != reference["state_class"]:
        problems.append(f"final state {state_class_difference(report, reference)}")
    verdict.tally("browser", not problems, f"seed {seed} browser: {'; '.join(problems)}")


def state_class_difference(report: dict[str, Any], reference: dict[str, Any]) -> str:
    """How ``report``'s final-state class differs from the ``reference`` report's, per app
    and table: 'checkout.charges: {...} where the API reference has {...}'."""
    ours, theirs = report["state_class"], reference["state_class"]
    return "; ".join(
        f"{app}.{table}: {ours.get(app, {}).get(table)} where the API reference has "
        f"{theirs.get(app, {}).get(table)}"
        for app in sorted({*ours, *theirs})
        for table in sorted({*ours.get(app, {}), *theirs.get(app, {})})
        if ours.get(app, {}).get(table) != theirs.get(app, {}).get(table))


# Kinds scored for what they did: a step the app refuses is passed over (the others' scripts
# must go through as written).
LENIENT = frozenset({"near_miss", "mutant", "default outcome"})


def _sample(seeds: Sequence[int]) -> list[int]:
    """``seeds``, then the next ones up to SAMPLE."""
    extra = (s for s in count(max(seeds, default=-1) + 1) if s not in seeds)
    return [*seeds, *(next(extra) for _ in range(SAMPLE - len(seeds)))]


def _shortcuts(verdict: Verdict, make: Callable[[str, int], Env], task: Task,
               seeds: Sequence[int], seen: Seen, world: Inspect) -> None:
    """The shortcut columns of one task, from what its reference's runs showed."""
    worlds = dict(seen.worlds)
    question = shortcuts.is_question(task)
    if task.decision is not None or question:  # counted over more seeds: set up, no solution
        for seed in _sample(seeds):
            if seed not in worlds:
                with make(task.id, seed) as env:
                    env.reset()
                    worlds[seed] = world(env)
    verdict.sampled = len(worlds)
    _targets(verdict, task, worlds)
    if question:
        _answers(verdict, make, task, seeds, seen, worlds)
    if task.decision is not None:
        _decision(verdict, make, task, seeds, seen, worlds)


def _targets(verdict: Verdict, task: Task, worlds: dict[int, World]) -> None:
    standing: dict[shortcuts.Target, dict[int, list[str]]] = {}
    for seed, found in worlds.items():
        for target, how in shortcuts.extremes(task, found).items():
            standing.setdefault(target, {})[seed] = how
    verdict.target = max((len(by_seed) for by_seed in standing.values()), default=0)
    if not verdict.target_hidden:
        verdict.failures += [
            f"target {target} stands out on {len(by_seed)} of {len(worlds)} seeds: "
            + "; ".join(f"seed {seed} {', '.join(how)}" for seed, how in by_seed.items())
            for target, by_seed in standing.items()]


def _answers(verdict: Verdict, make: Callable[[str, int], Env], task: Task,
             seeds: Sequence[int], seen: Seen, worlds: dict[int, World]) -> None:
    """What the question checks accept, over the sample; and the constant answer: each
    seed's reference answer given on the next seed (where they differ) must not pass."""
    keys = Counter(shortcuts.answer_key(task, found.vars) for found in worlds.values())
    key, verdict.answers = keys.most_common(1)[0]
    if not verdict.answers_vary:
        verdict.failures.append(f"one answer is right on {verdict.answers} of {len(worlds)} "
                                f"seeds: {key[:200]}")
    for before, seed in zip([seeds[-1], *seeds[:-1]], seeds, strict=True):
        given = seen.answers.get(before)
        if before == seed or given is None or seed not in seen.answers \
                or given == seen.answers[seed]:
            continue
        _run(verdict, make, task, seed, f"constant answer (seed {before}'s {given!r})",
             "constant answer", task.reference, False, None, answer=given)


def _decision(verdict: Verdict, make: Callable[[str, int], Env], task: Task,
              seeds: Sequence[int], seen: Seen, worlds: dict[int, World]) -> None:
    """The decision's split over the sample; and the default outcome: on each seed, the
    reference forced down the branch it took on a seed of another outcome must not pass."""
    outcomes = {seed: str(task.outcome(dict(found.vars))) for seed, found in worlds.items()}
    verdict.outcomes = Counter(outcomes.values())
    if not verdict.decided:
        verdict.failures.append(f"decision {task.decision}: outcomes "
                                f"{dict(verdict.outcomes)} over {len(worlds)} seeds")
    ways: dict[str, tuple[bool, ...]] = {}  # outcome -> the branch the reference takes
    for seed, way in seen.branches.items():
        ways.setdefault(outcomes[seed], way)
    for seed, value in outcomes.items():  # an outcome no gate seed had: learn its branch
        if value not in ways:
            learnt = _run(Verdict(task.id, 1), make, task, seed, "reference", "reference",
                          task.reference, False, None)
            if learnt.report is not None:
                ways[value] = tuple(learnt.branch.taken)
    if len(set(ways.values())) < 2:
        verdict.failures.append(
            f"decision {task.decision}: the reference takes the same `when` steps on every "
            f"outcome ({', '.join(sorted(ways))}), so no default outcome can be forced: branch "
            "with `when` on what decides it")
    for seed in seeds:
        if seed not in seen.branches:
            continue
        for value, way in ways.items():
            if value != outcomes[seed] and way != seen.branches[seed]:
                _run(verdict, make, task, seed, f"default outcome ({task.decision} = {value})",
                     "default outcome", task.reference, False, None,
                     branch=Branch(forced=way))


def table(verdicts: list[Verdict]) -> str:
    """The gate's table: instances, pass counts by solution kind, reward spread; then the
    shortcut columns: targets standing out, the decision's split, seeds one answer fits,
    runs meeting the fault, constant answers and default outcomes scoring 0 or less."""
    kinds = ("reference", "alternative", "near_miss", "noop", "mutant", "paraphrase")
    ours = ("fault met", "constant answer", "default outcome")
    head = f"{'task':<46} {'inst':>5} " + " ".join(f"{k:>11}" for k in kinds) + \
        f" {'killed':>7} {'accepted':>9} {'rewards':>12} {'target':>7} {'decision':>9} " \
        f"{'answers':>7} {'fault met':>9} {'const':>6} {'default':>7} {'browser':>7}  gate"
    lines = [head, "-" * len(head)]
    for v in verdicts:
        cells = " ".join(f"{'{}/{}'.format(*v.counts.get(k, [0, 0])):>11}" for k in kinds)
        spread = f"{min(v.rewards):+.2f}..{max(v.rewards):+.2f}" if v.rewards else "-"
        faults, const, default = (v.cell(kind) for kind in ours)
        lines.append(f"{v.task:<46} {len(v.instances):>2}/{v.seeds:<2} {cells} "
                     f"{v.rate('mutant'):>7} {v.rate('paraphrase'):>9} {spread:>12} "
                     f"{v.share(v.target):>7} {v.split:>9} {v.share(v.answers):>7} "
                     f"{faults:>9} {const:>6} {default:>7} {v.browser:>7}  "
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

    def held(column: Callable[[Verdict], bool | None]) -> str:
        judged = [column(v) for v in verdicts if column(v) is not None]
        return f"{sum(map(bool, judged))}/{len(judged)}"

    total.counts["shortcut"] = [sum(total.counts.get(k, [0, 0])[i] for k in ours[1:])
                                for i in (0, 1)]
    if total.counts.get("browser"):
        lines.append(f"browser solutions passed in {total.rate('browser')} of runs "
                     f"({total.cell('browser')})")
    lines.append(f"targets hidden in {held(lambda v: v.target_hidden)} tasks, decisions split "
                 f"in {held(lambda v: v.decided)}, answers varied in "
                 f"{held(lambda v: v.answers_vary)}; faults met by {total.rate('fault met')} of "
                 f"runs; shortcuts scored 0 or less in {total.rate('shortcut')} of runs")
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


def main_check(tasks: list[Task], seeds: int, make: Callable[[str, int], Env],
               world: Inspect | None = None, browser: SolveInBrowser | None = None) -> int:
    verdicts = check(tasks, range(seeds), make, progress=lambda line: print(line, file=sys.stderr),
                     world=world, browser=browser)
    print(table(verdicts))
    failures = report_failures(verdicts)
    if failures:
        print(failures, file=sys.stderr)
    return 0 if all(v.ok for v in verdicts) else 1
