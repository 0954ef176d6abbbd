"""`make load`: rollout throughput under locust, in two profiles, and a summary table.

    python -m workgym_perf.load [--profile capacity|llm-paced|all] [--host URL] [--out DIR] ...

* capacity: agents without think time, at 1, 2, 4, ... users (a locust run each), until the
  p99 step latency passes 100 ms: the knee is the last stage under it.
* llm-paced: 1,024 agents thinking 3-30 s before each of 3-20 steps, as LLM agents do: the
  episodes held at once, steps/s and the p99 step latency at that load.

Without ``--host`` it runs ``workgym serve`` itself on a free port, with a temporary data
directory and the per-key quotas raised out of the way. Every run's CSV, HTML and JSON reports
and locust log go to ``<out>/<profile>/users-<n>*``; the server's log to ``<out>/server.log``.
Figures are of one shared machine: compare stages within a run, not runs across machines.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from workgym.processes import serving, wait_http

from .stage import Stage, run_stage

KNEE_MS = 100.0
# The server's per-key quotas (live episodes, creation rate) out of the load's way.
QUOTAS = {"WORKGYM_MAX_LIVE_EPISODES": "1000000", "WORKGYM_CREATE_RATE_PER_S": "1000000",
          "WORKGYM_CREATE_BURST": "1000000"}
PROFILES = ("capacity", "llm-paced")
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
    p.add_argument("--llm-users", type=int, default=1024, help="llm-paced: users")
    p.add_argument("--llm-s", type=float, default=120.0,
                   help="llm-paced: seconds measured once every user has spawned")
    p.add_argument("--think", default="3-30", help="llm-paced: think seconds before each step")
    p.add_argument("--spawn-rate", type=float, default=16.0, help="llm-paced: users started "
                   "per second, each creating an episode at once: faster than the server "
                   "creates them, and the backlog spills into the measured window")
    return p


@contextmanager
def target(host: str | None, out: Path) -> Iterator[str]:
    """``host`` once it answers, else a ``workgym serve`` of this run's own."""
    if host:
        try:
            wait_http(host.rstrip("/") + "/healthz", timeout_s=5.0)
        except RuntimeError as exc:
            raise SystemExit(f"load: cannot reach WorkGym at {host} ({exc}); start it "
                             "(`workgym serve`, `make up`) or leave out --host") from exc
        yield host.rstrip("/")
        return
    with tempfile.TemporaryDirectory(prefix="workgym-load-") as data, \
            serving(env={**os.environ, "WORKGYM_DATA_DIR": data, **QUOTAS},
                    log=out / "server.log") as url:
        yield url


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
    results: dict[str, list[Stage]] = {}
    with target(args.host, args.out) as url:
        print(f"WorkGym load at {url} ({os.cpu_count()} cores, shared by the server and "
              f"locust); reports in {args.out}/<profile>/\n{HEADER}", flush=True)
        for profile in profiles:
            shutil.rmtree(args.out / profile, ignore_errors=True)  # no stale stages
            results[profile] = RUNS[profile](url, args.out / profile, args)
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
