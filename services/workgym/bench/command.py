"""``workgym bench``: choose the tasks, open (or resume) the results file, run, print.

The plan (tasks, seeds, trials, faults, agent, user; or a task set's instances) is the
results file's header: ``--resume`` reads it from there, and refuses options that would
change it.

Exit codes: 0 the run ended (its infra failures, if any, at most ``--max-infra-errors``);
2 it could not start (a bad option, or the preflight: the server, its key, the model's
endpoint); 3 it stopped early, infra failures past ``--max-infra-errors``; 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import fnmatch
import shlex
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from workgym_core.errors import ConfigError

from .. import tasksets
from ..envversion import current, differences
from ..splits import Split, in_split
from ..tasks import Task, catalogue
from .diagnosis import diagnose, weakest_line
from .metrics import summarize
from .preflight import check_agent, check_server, check_user, server_version
from .progress import Progress
from .report import write_report
from .results import Results, claim_next_run, now, planned
from .runner import Agent, OpenEnv, Problem, plan, product, run
from .summary import headline, infra_line, metrics_line, plural, table

DEFAULTS: dict[str, Any] = {"seeds": [0], "trials": 1, "faults": "task", "agent": "reference",
                            "user": None}
STOPPED = 3  # the exit code of a run stopped by its infra failures


def select(suite: str | None, patterns: Sequence[str], split: Split | None = None) -> list[Task]:
    """A suite's tasks, a split's (tasks/splits.yaml), or those whose ids match ``patterns``
    (globs), in catalogue order."""
    tasks = list(catalogue())
    if split:
        return in_split(tasks, split)
    if suite:
        chosen = [t for t in tasks if t.suite == suite]
        if not chosen:
            raise ConfigError(f"no task in suite {suite!r}; the suites are "
                              f"{sorted({t.suite for t in tasks})}")
        return chosen
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(t.id, pattern) for t in tasks):
            raise ConfigError(f"no task matches {pattern!r} (`workgym tasks` lists them)")
    return [t for t in tasks if any(fnmatch.fnmatchcase(t.id, p) for p in patterns)]


def _version() -> str:
    try:
        return version("workgym")
    except PackageNotFoundError:
        return "unknown"


def selection_args(header: dict[str, Any]) -> list[str]:
    """The options that choose the problems of ``header``'s run: its set, or its suite
    (split, tasks), seeds and fault plan."""
    if header.get("set"):
        return ["--set", header["set"]["path"]]
    which = ["--suite", header["suite"]] if header["suite"] else \
        ["--split", header["split"]] if header.get("split") else \
        ["--tasks", ",".join(header["selection"])]
    return [*which, "--seeds", ",".join(str(s) for s in header["seeds"]), "--faults",
            header["faults"]]


def _command(header: dict[str, Any]) -> str:
    """The command that runs this plan again."""
    url = ["--url", header["url"]] if header["url"] else []
    trajectories = ["--trajectories"] if header.get("trajectories") else []
    user = ["--user", header["user"]] if header.get("user") else []
    return shlex.join(["workgym", "bench", *selection_args(header), "--trials",
                       str(header["trials"]), "--agent", header["agent"], *user, *url,
                       *trajectories])


def _from_set(path: str, args: argparse.Namespace) -> dict[str, Any]:
    """The header's fields of a run of the task set at ``path``: the set names the tasks,
    seeds and fault plans (``--seeds``/``--faults`` are refused). A problem is a task at a
    seed: a set listing one under two fault plans is refused. A set made on another
    environment version is run, with a note."""
    if args.seeds is not None or args.faults is not None:
        raise ConfigError(f"--set {path} names each instance's seed and fault plan: drop "
                          f"{'--seeds' if args.seeds is not None else '--faults'}")
    taskset = tasksets.load(Path(path))
    if taskset.env_version and (changed := differences(taskset.env_version,
                                                       current().as_dict())):
        print(f"workgym: note: task set {path} was made on another environment version "
              f"({', '.join(changed)}): what it says of its instances (their rates) may not "
              "hold here", file=sys.stderr)
    seen: dict[tuple[str, int], str] = {}
    for n, instance in enumerate(taskset.instances):
        other = seen.setdefault((instance.task, instance.seed), instance.faults)
        if other != instance.faults:
            raise ConfigError(f"--set {path}: instances[{n}]: {instance.task} seed "
                              f"{instance.seed} is listed under fault plans {other!r} and "
                              f"{instance.faults!r}; the bench scores a task at a seed once "
                              "per trial: give one of them another seed")
    instances = [{"task": i.task, "seed": i.seed, "faults": i.faults}
                 for i in taskset.instances]
    return {"suite": None, "split": None, "selection": [],
            "tasks": list(dict.fromkeys(i.task for i in taskset.instances)),
            "seeds": sorted({i.seed for i in taskset.instances}),
            "faults": ", ".join(sorted({i.faults for i in taskset.instances})),
            "set": {"path": path, "name": taskset.name, "instances": instances}}


def problems_of(header: dict[str, Any]) -> list[Problem]:
    """The problems of the run of ``header``: its set's instances, else its tasks × seeds."""
    tasks = catalogue()
    if header.get("set"):
        return [Problem(tasks.get(i["task"]), i["seed"], i["faults"])
                for i in header["set"]["instances"]]
    return product([tasks.get(t) for t in header["tasks"]], header["seeds"], header["faults"])


def _new(args: argparse.Namespace) -> tuple[Path | None, dict[str, Any]]:
    """Where a new run records (None: the next results/run-NNNN.json) and its header."""
    if not args.suite and not args.tasks and not args.split and not args.set:
        raise ConfigError("bench: choose --suite, --split, --tasks or --set (or --resume a "
                          "results file)")
    if args.retry_errors:
        raise ConfigError("--retry-errors goes with --resume")
    options = {name: getattr(args, name) if getattr(args, name) is not None else default
               for name, default in DEFAULTS.items()}
    if options["trials"] < 1:
        raise ConfigError("--trials must be at least 1")
    if args.set:
        chosen = _from_set(args.set, args)
    else:
        selection = [p.strip() for p in (args.tasks or "").split(",") if p.strip()]
        chosen = {"suite": args.suite, "split": args.split, "selection": selection,
                  "tasks": [t.id for t in select(args.suite, selection, args.split)],
                  "seeds": options["seeds"], "faults": options["faults"]}
    temperature = getattr(args, "temperature", None)
    header = {"agent": options["agent"], "user": options["user"], **({"temperature": temperature}
                                            if temperature is not None else {}),
              **chosen, "trials": options["trials"], "url": args.url,
              "trajectories": args.trajectories, "started": now(),
              "workgym_version": _version()}
    header["command"] = _command(header)
    return (Path(args.out) if args.out else None), header


def _resume(args: argparse.Namespace) -> Results:
    results = Results.load(Path(args.resume))
    if args.suite or args.split or args.tasks or args.set or \
            (args.out and Path(args.out) != results.path):
        raise ConfigError("--resume runs the plan of the results file: drop --suite, --split, "
                          "--tasks, --set and --out")
    for name in DEFAULTS:
        given, recorded = getattr(args, name), results.header.get(name, DEFAULTS[name])
        if given is not None and given != recorded:
            raise ConfigError(f"--resume: {results.path} was run with {name} {recorded!r}; "
                              f"drop --{name} or give the same")
    if args.trajectories and not results.header.get("trajectories"):
        raise ConfigError(f"--resume: {results.path} was run without --trajectories; drop it "
                          "(a run's episodes all carry trajectories or none do)")
    if args.retry_errors and (dropped := results.drop_errors()):
        print(f"workgym: running again {dropped} episodes recorded with an error",
              file=sys.stderr)
    return results


def _agent(spec: str, temperature: float | None = None) -> Agent:
    """The agent ``spec`` names: a browser agent's (:mod:`workgym.browser.agents`) or
    another's (:func:`workgym.agents.resolve`; ``temperature``: a model's sampling)."""
    from ..agents import resolve
    from ..browser import agents as browser_agents

    if browser_agents.is_browser(spec):
        return browser_agents.resolve(spec)
    return resolve(spec, temperature=temperature)


def _served(url: str | None, agent: Agent, stack: ExitStack) -> tuple[str | None, str | None]:
    """(the server's URL, its operator key if ours): ``url``; or, for an agent that works in
    the pages (``serves_pages``: a browser reaches them over HTTP) and no ``url``, a served
    gym of its own for the run (closed with ``stack``). Such an agent is told where
    (``gym_url``)."""
    if not getattr(agent, "serves_pages", False):
        return url, None
    key = None
    if not url:
        from ..browser.env import local_gym

        url, key = stack.enter_context(local_gym())
    agent.gym_url = url  # type: ignore[attr-defined]
    return url, key


def _environments(header: dict[str, Any], tasks: list[Task], url: str | None,
                  key: str | None = None) -> tuple[OpenEnv, dict[str, Any] | None]:
    """A new environment per episode: of the server at ``url`` (checked first: it answers,
    takes the key, has the tasks; ``key``: its operator key, default the SDK's), else of this
    process's; and the environment version they run (the server's, None if it cannot say)."""
    user = header.get("user")
    if url:
        from ..sdk import connect, operator_key

        key = operator_key(key)  # before any episode: a run without one fails at once
        check_server(url, key, header["tasks"])
        return (lambda task, seed, faults: connect(url, task, seed=seed, faults=faults,
                                                   api_key=key, user=user),
                server_version(url, key))
    from workgym_core.settings import Settings

    from ..local import local_server
    from ..sdk import Env

    # Framework tasks need the framework's own apps, served only on request.
    framework = any(t.suite == "framework" for t in tasks)
    server = local_server(Settings(framework_apps=True) if framework else None)
    check_user(user)
    return (lambda task, seed, faults: Env.inprocess(server, task, seed, faults, user),
            current().as_dict())


def _same_version(results: Results, version: dict[str, Any] | None) -> None:
    """``--resume`` adds episodes only of the environment version the file was run on."""
    recorded = results.header.get("env_version")
    if (recorded or {}).get("id") == (version or {}).get("id"):
        return
    why = ", ".join(differences(recorded, version)) if recorded else \
        "it records none: written before versions were recorded"
    raise ConfigError(f"--resume: {results.path} was run on another environment version "
                      f"({why}): its episodes and new ones would not be comparable; start a "
                      "new run")


def bench(args: argparse.Namespace) -> int:
    if args.max_infra_errors < 0:
        raise ConfigError("--max-infra-errors must be 0 or more")
    with ExitStack() as stack:
        return _bench(args, stack)


def _bench(args: argparse.Namespace, stack: ExitStack) -> int:
    resumed = _resume(args) if args.resume else None
    out, header = (resumed.path, resumed.header) if resumed else _new(args)
    tasks = [catalogue().get(task_id) for task_id in header["tasks"]]
    agent = _agent(header["agent"], header.get("temperature"))
    url, key = _served(args.url or header["url"], agent, stack)
    # Preflight, before the results file is created: the model, the server, its key.
    check_agent(agent)
    open_env, env_version = _environments(header, tasks, url, key)
    if resumed:
        _same_version(resumed, env_version)
    else:
        header["env_version"] = env_version
    if header.get("trajectories") and hasattr(agent, "transcripts"):
        agent.transcripts = {}  # the model's own conversations
    results = resumed or Results.create(out or claim_next_run(), header)
    problems = problems_of(header)
    todo = plan(problems, header["trials"], results.done())
    total = planned(header)
    shape = f"{plural(len(problems), 'instance')} of set {header['set']['path']}" \
        if header.get("set") else \
        f"{plural(len(tasks), 'task')} × {plural(len(header['seeds']), 'seed')}"
    print(f"workgym: bench {len(todo)} episodes of {total} ({shape} × "
          f"{plural(header['trials'], 'trial')}), agent "
          f"{header['agent']}, {args.concurrency} at a time, "
          f"{'server ' + url if url else 'in-process'}; recording to {results.path}",
          file=sys.stderr)
    recorded = [e for e in results.episodes if not e.get("infra_error")]
    progress = Progress(total, len(recorded), sum(bool(e["success"]) for e in recorded),
                        sum(e.get("error") is not None for e in recorded))
    infra = 0  # infra failures of this run

    def record(batch: list[dict[str, Any]]) -> None:
        nonlocal infra
        results.add(batch)
        for episode in batch:
            progress.update(episode)
            infra += bool(episode.get("infra_error"))

    try:
        run(todo, open_env, agent, args.concurrency, record, tick=progress.draw,
            stop=lambda: infra > args.max_infra_errors,
            trajectories=bool(header.get("trajectories")))
    except KeyboardInterrupt:
        progress.close()
        print(f"workgym: interrupted: {len(results.done())} of {total} episodes recorded "
              f"in {results.path}; "
              f"finish them with `workgym bench --resume {results.path}`", file=sys.stderr)
        return 130
    progress.close()
    stopped = infra > args.max_infra_errors
    if not stopped and (todo or not header["finished"]):
        results.finish()
    html = write_report(results.path)
    summary = summarize(results.episodes, header["trials"])
    print(table(summary))
    print()
    print(metrics_line(summary, header["trials"]))
    if weakest := weakest_line(diagnose(results.episodes)):
        print(weakest)
    print(headline(summary, header, f"{results.path} (HTML: {html})"))
    for alarm in summary.alarms:
        print(f"workgym: ALARM: {alarm}", file=sys.stderr)
    if stopped:
        print(f"workgym: bench stopped early: {infra_line(summary)}, more than "
              f"--max-infra-errors {args.max_infra_errors}; {total - len(results.done())} "
              f"of {total} episodes to run: once fixed, `workgym bench --resume "
              f"{results.path}` runs them", file=sys.stderr)
        return STOPPED
    if summary.infra_errors:
        print(f"workgym: {infra_line(summary)}: `workgym bench --resume {results.path}` "
              "runs them again", file=sys.stderr)
    return 0


def report(args: argparse.Namespace) -> int:
    path = Path(args.results)
    out = write_report(path, Path(args.out) if args.out else None)
    print(f"workgym: report of {path} written to {out}", file=sys.stderr)
    return 0
