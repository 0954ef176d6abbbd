"""`make load`'s whole-episodes profile: GRPO's shape of load. Closed-loop agents without think
time, each doing episodes again and again: create, N steps through the proxy (default 10),
finish. A stage per user count (default 16 and 64), every one run (no stopping at a latency
knee), each after a warm-up that is not measured (connections open; the worlds of the seeds
are built before the server is timed at all: :func:`prebuild`). A quiet stage (one agent)
first gives the finish's cost when nothing else runs.

Its figures (:func:`figures_of`): whole episodes/s, steps/s, step p50/p99, create and finish
p50, failed requests, at each user count, and the finish p50 over its quiet cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from replicas.catalog import served_apps
from workgym.processes import running, workgym

from ..figures import Figure, Figures
from .stage import PARTS, Stage, run_stage

QUIET_USERS = 1


@dataclass(frozen=True)
class Profile:
    users: list[int]
    steps: int  # per episode
    seconds: float  # measured, per stage
    warmup_s: float
    quiet_s: float  # the quiet stage's measured seconds; 0: none
    seeds: str


def prebuild(env: dict[str, str], seeds: str, log: Path) -> None:
    """Every served app's worlds of ``seeds`` built into ``env``'s data directory (by the code
    ``env``'s PYTHONPATH names), before a server is started on it."""
    for app in sorted(served_apps(False)):
        with running(workgym("prebuild", app, "--seeds", seeds), env=env,
                     log=log.with_name(f"{log.stem}-{app}.log")) as build:
            if build.wait() != 0:
                raise RuntimeError(f"workgym prebuild {app} failed: see {log.parent}")


def stages(url: str, out: Path, profile: Profile) -> tuple[Stage | None, list[Stage]]:
    """The quiet stage (None when not asked) and a stage per user count, against ``url``."""
    def stage(users: int, seconds: float) -> Stage:
        return run_stage(url, out / f"users-{users:04d}", users=users, seconds=seconds,
                         spawn_rate=users, steps=f"{profile.steps}-{profile.steps}", think="0",
                         seeds=profile.seeds, warmup_s=profile.warmup_s)

    quiet = stage(QUIET_USERS, profile.quiet_s) if profile.quiet_s > 0 else None
    return quiet, [stage(users, profile.seconds) for users in profile.users]


def figures_of(quiet: Stage | None, measured: list[Stage]) -> Figures:
    """The profile's figures, by name (the names ``workgym_perf.targets`` gives targets to)."""
    found: Figures = {}
    if quiet is not None:
        found["finish p50, quiet (1 agent)"] = Figure(quiet.finish_p50_ms, "ms")
    for stage in measured:
        at = f"at {stage.users} agents"
        found[f"whole episodes/s {at}"] = Figure(stage.episodes_per_s, "/s")
        found[f"steps/s in episodes {at}"] = Figure(stage.steps_per_s, "/s")
        found[f"step p50 {at}"] = Figure(stage.p50_ms, "ms")
        found[f"step p99 {at}"] = Figure(stage.p99_ms, "ms")
        found[f"create p50 {at}"] = Figure(stage.create_p50_ms, "ms")
        found[f"finish p50 {at}"] = Figure(stage.finish_p50_ms, "ms")
        if quiet is not None:
            found[f"finish p50 {at} / quiet"] = Figure(
                stage.finish_p50_ms / quiet.finish_p50_ms if quiet.finish_p50_ms else math.nan,
                "x")
        found[f"failed requests {at}"] = Figure(float(stage.failures), "")
    return found


HEADER = (f"  {'server':<17} {'users':>5} {'episodes/s':>10} {'steps/s':>8} {'step p50':>8} "
          f"{'p99 ms':>7} {'create':>7} {'finish':>7} {'failed create/step/finish':>26}")


def row(server: str, stage: Stage) -> str:
    failed = "/".join(str(stage.failed[part]) for part in PARTS)
    return (f"  {server:<17} {stage.users:>5} {stage.episodes_per_s:>10,.1f} "
            f"{stage.steps_per_s:>8,.0f} {stage.p50_ms:>8.0f} {stage.p99_ms:>7.0f} "
            f"{stage.create_p50_ms:>7.0f} {stage.finish_p50_ms:>7.0f} {failed:>26}")
