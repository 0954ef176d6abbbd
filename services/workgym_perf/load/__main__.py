"""`make load`: rollout throughput under locust, in three profiles, and a summary table.

    python -m workgym_perf.load [--profile episodes|capacity|llm-paced|all] [--host URL] ...

* episodes: whole episodes (create + 10 steps + finish), closed loop, at 16 and 64 users
  (workgym_perf/load/episodes.py), this checkout's server and the previous release's side by
  side (workgym_perf/previous.py; --no-baseline: this one alone), ending with one figures
  table: each beside its target and the ratio to the previous release's (--markdown FILE: the
  targeted ones as markdown, into the README's "load-figures" block).
* capacity: agents without think time, at 1, 2, 4, ... users (a locust run each), until the
  p99 step latency passes 100 ms: the knee is the last stage under it.
* llm-paced: 1,024 agents thinking 3-30 s before each of 3-20 steps, as LLM agents do: the
  episodes held at once, steps/s and the p99 step latency at that load.

Without ``--host`` it runs ``workgym serve`` itself on a free port, with a temporary data
directory where the seeds' worlds are built first, and the per-key quotas raised out of the
way; the previous release is measured only so (never against ``--host``). Every run's CSV,
HTML and JSON reports and locust log go to ``<out>/<profile>/users-<n>*``; the server's log to
``<out>/server.log``.
Figures are of one shared machine: compare stages within a run, not runs across machines.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from workgym.processes import serving, wait_http

from .. import figures, previous
from . import episodes
from .stage import Stage, run_stage

KNEE_MS = 100.0
# The server's per-key quotas (live episodes, creation rate) out of the load's way.
QUOTAS = {"WORKGYM_MAX_LIVE_EPISODES": "1000000", "WORKGYM_CREATE_RATE_PER_S": "1000000",
          "WORKGYM_CREATE_BURST": "1000000"}
PROFILES = ("episodes", "capacity", "llm-paced")
HEADER = (f"  {'profile':<10} {'users':>6} {'steps/s':>9} {'episodes/s':>11} {'p50 ms':>8} "
          f"{'p99 ms':>8} {'failures':>9} {'held peak/mean':>15}")


def _users(text: str) -> list[int]:
    return [int(n) for n in text.split(",")]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m workgym_perf.load", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--profile", choices=[*PROFILES, "all"], default="all")
    p.add_argument("--host", help="a running WorkGym's gym API (e.g. the compose stack's "
                   "http://127.0.0.1:8000); default: serve one")
    p.add_argument("--out", type=Path, default=Path(".workgym/load"), help="reports go here")
    p.add_argument("--steps", default="3-20", help="steps per episode, LOW-HIGH")
    p.add_argument("--seeds", default="0-15", help="seeds episodes are drawn from")
    p.add_argument("--users", type=_users, default=_users("1,2,4,8,16,32,64,128"),
                   help="capacity: the user counts stepped through")
    p.add_argument("--stage-s", type=float, default=15.0, help="capacity: seconds per stage")
    p.add_argument("--episode-users", type=_users, default=_users("16,64"),
                   help="episodes: the user counts, each run")
    p.add_argument("--episode-steps", type=int, default=10, help="episodes: steps per episode")
    p.add_argument("--episode-s", type=float, default=30.0,
                   help="episodes: seconds measured per stage, after the warm-up")
    p.add_argument("--warmup-s", type=float, default=5.0,
                   help="episodes: seconds of each stage not measured, once its users run")
    p.add_argument("--quiet-s", type=float, default=10.0, help="episodes: seconds of the quiet "
                   "stage (one agent: the finish's cost alone); 0: none")
    p.add_argument("--no-baseline", action="store_true",
                   help="episodes: do not measure the previous release (no ratios)")
    p.add_argument("--markdown", type=Path, metavar="FILE",
                   help="episodes: write the targeted figures as a markdown table into FILE's "
                   "load-figures block (README.md), or as FILE when it does not exist")
    p.add_argument("--llm-users", type=int, default=1024, help="llm-paced: users")
    p.add_argument("--llm-s", type=float, default=120.0,
                   help="llm-paced: seconds measured once every user has spawned")
    p.add_argument("--think", default="3-30", help="llm-paced: think seconds before each step")
    p.add_argument("--spawn-rate", type=float, default=16.0, help="llm-paced: users started "
                   "per second, each creating an episode at once: faster than the server "
                   "creates them, and the backlog spills into the measured window")
    return p


@contextmanager
def target(host: str | None, out: Path, seeds: str, root: Path | None = None) -> Iterator[str]:
    """``host`` once it answers, else a ``workgym serve`` of this run's own, the worlds of
    ``seeds`` built first: this checkout's, or the one exported at ``root``."""
    if host:
        try:
            wait_http(host.rstrip("/") + "/healthz", timeout_s=5.0)
        except RuntimeError as exc:
            raise SystemExit(f"load: cannot reach WorkGym at {host} ({exc}); start it "
                             "(`workgym serve`, `make up`) or leave out --host") from exc
        yield host.rstrip("/")
        return
    name = "server" if root is None else "server-previous"
    with tempfile.TemporaryDirectory(prefix="workgym-load-") as data:
        env = {**(os.environ if root is None else previous.environment(root)),
               "WORKGYM_DATA_DIR": data, **QUOTAS}
        episodes.prebuild(env, seeds, out / f"{name}-prebuild.log")
        with serving(env=env, log=out / f"{name}.log") as url:
            yield url


def whole_episodes(urls: dict[str, str], out: Path, args: argparse.Namespace,
                   against: str) -> list[figures.Row]:
    """The episodes profile against each server of ``urls`` (this checkout's, perhaps the
    previous release's), stage by stage side by side; its figures table printed."""
    profile = episodes.Profile(users=args.episode_users, steps=args.episode_steps,
                               seconds=args.episode_s, warmup_s=args.warmup_s,
                               quiet_s=args.quiet_s, seeds=args.seeds)
    print(f"whole episodes (create + {profile.steps} steps + finish), closed loop\n"
          f"{episodes.HEADER}", flush=True)
    found: dict[str, figures.Figures] = {}
    for server, url in urls.items():
        quiet, measured = episodes.stages(url, out / server.replace(" ", "-"), profile)
        for stage in ([quiet] if quiet else []) + measured:
            print(episodes.row(server, stage), flush=True)
            for error in stage.errors:
                print(f"    FAILED ({server}, {stage.users} users): {error}")
        found[server] = episodes.figures_of(quiet, measured)
    rows = figures.rows(found["this checkout"], found.get("previous release"))
    print(figures.table(rows, against))
    return rows


def row(profile: str, stage: Stage) -> str:
    busy = "  (locust CPU-bound)" if stage.generator_busy else ""
    return (f"  {profile:<10} {stage.users:>6} {stage.steps_per_s:>9,.0f} "
            f"{stage.episodes_per_s:>11,.1f} {stage.p50_ms:>8.0f} {stage.p99_ms:>8.0f} "
            f"{stage.failures:>9} {stage.held_peak:>7}/{stage.held_mean:<7.0f}{busy}")


def knee(stages: list[Stage]) -> str:
    """Where the p99 step latency passes KNEE_MS, and the throughput just before."""
    under = [s for s in stages if s.p99_ms <= KNEE_MS]
    past = next((s for s in stages if s.p99_ms > KNEE_MS), None)
    if not under:
        return f"p99 step latency is past {KNEE_MS:.0f} ms from the first stage"
    best = under[-1]
    found = (f"knee at {best.users} users: {best.steps_per_s:,.0f} steps/s, "
             f"{best.episodes_per_s:,.1f} episodes/s, p99 {best.p99_ms:.0f} ms")
    if past is None:
        return found + f" (p99 stays under {KNEE_MS:.0f} ms up to the last stage)"
    return found + f"; p99 passes {KNEE_MS:.0f} ms at {past.users} users ({past.p99_ms:.0f} ms)"


def capacity(url: str, out: Path, args: argparse.Namespace) -> list[Stage]:
    stages = []
    for users in args.users:
        stage = run_stage(url, out / f"users-{users:04d}", users=users, seconds=args.stage_s,
                          spawn_rate=users, steps=args.steps, think="0", seeds=args.seeds)
        print(row("capacity", stage), flush=True)
        stages.append(stage)
        if stage.p99_ms > KNEE_MS:
            break
    return stages


def llm_paced(url: str, out: Path, args: argparse.Namespace) -> list[Stage]:
    users = args.llm_users
    stage = run_stage(url, out / f"users-{users:04d}", users=users, seconds=args.llm_s,
                      spawn_rate=args.spawn_rate, steps=args.steps, think=args.think,
                      seeds=args.seeds)
    print(row("llm-paced", stage), flush=True)
    return [stage]


RUNS = {"capacity": capacity, "llm-paced": llm_paced}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    profiles = PROFILES if args.profile == "all" else (args.profile,)
    args.out.mkdir(parents=True, exist_ok=True)
    for profile in profiles:
        shutil.rmtree(args.out / profile, ignore_errors=True)  # no stale stages
    results: dict[str, list[Stage]] = {}
    with ExitStack() as stack:
        url = stack.enter_context(target(args.host, args.out, args.seeds))
        print(f"WorkGym load at {url} ({os.cpu_count()} cores, shared by the server and "
              f"locust); reports in {args.out}/<profile>/", flush=True)
        if "episodes" in profiles:
            urls, against = {"this checkout": url}, "not measured (--no-baseline)"
            if args.host:
                against = "not measured (--host: only against a server this run starts)"
            elif not args.no_baseline:
                try:
                    root = previous.export()
                    urls = {"previous release": stack.enter_context(
                        target(None, args.out, args.seeds, root)), **urls}
                    against = previous.commit()[:12]
                except previous.PreviousMissing as exc:
                    against = str(exc)
                    print(f"load: {exc}")
            rows = whole_episodes(urls, args.out / "episodes", args, against)
            if args.markdown is not None:
                figures.write_markdown(args.markdown, "load-figures",
                                       figures.markdown(rows, against))
        others = [profile for profile in profiles if profile in RUNS]
        if others:
            print(HEADER, flush=True)
        for profile in others:
            results[profile] = RUNS[profile](url, args.out / profile, args)
    if not results:
        return 0
    print(f"\nSummary\n{HEADER}")
    for profile, stages in results.items():
        for stage in stages:
            print(row(profile, stage))
    if "capacity" in results:
        print(f"  capacity: {knee(results['capacity'])}")
    for profile, stages in results.items():
        for stage in stages:
            for error in stage.errors:
                print(f"  FAILED ({profile}, {stage.users} users): {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
