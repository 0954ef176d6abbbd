"""`make bench`: WorkGym's performance figures, measured in one run and printed
(`python -m workgym_perf.bench stall`: only the stall figure, workgym_perf/bench/stall.py;
any section alone by its name). A section that runs past its bound (--section-timeout) is
stopped with one line saying where it waited; the others still run, and the exit code is 1.

Figures are medians and tails over many samples; the machines are shared and
noisy, so read ratios within one run, not absolute numbers across runs. Each section runs
twice, side by side: the previous release's own (workgym_perf/previous.py; --no-baseline
skips it), then this checkout's; the run ends with one table of every figure beside its
target (workgym_perf/targets.py: where a figure is given one) and the ratio to the previous
release's. --markdown FILE writes the targeted figures as a markdown table (into the README's
"bench-figures" block).
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from types import FrameType
from typing import TextIO

from replicas.catalog import specs
from replicas.runtime.store import EpisodeStore
from workgym.agents import AGENTS
from workgym.local import LocalServer
from workgym.processes import serving
from workgym.sdk import Env, connect
from workgym.tasks import Task, catalogue
from workgym_core.settings import Settings

from .. import figures, previous
from .boot import bench_boot
from .browser import bench_browser
from .finishing import bench_finishing
from .fork import bench_fork
from .history import bench_history
from .memory import bench_live_episodes
from .proxy import bench_proxy
from .stall import bench_stall
from .stats import line, sample, step_line
from .steps import reads
from .tracing import bench_tracing
from .tracker import bench_tracker_endpoints

# One task of each app (of that app alone): reset, steps and scoring are measured for each,
# side by side.
TASKS = ("helpdesk/stale-contact-update", "checkout/refund-returned-order",
         "tracker/start-work-on-bug")
# A section's bound: several times its longest here (the in-process one, ~8 min with ~6
# other jobs on the 2 cores), so only a hang reaches it.
SECTION_TIMEOUT_S = 1800.0


def _create(store: EpisodeStore, task: Task, episode_id: str, ttl_s: float) -> None:
    """One episode of the (one-app) task straight in the replica's store."""
    app = task.apps[0]
    store.create(episode_id, seed=7, setup=task.setup_of(app), script=task.actors_of(app),
                 ttl_s=ttl_s)


def bench_reset(settings: Settings, task_id: str) -> None:
    task = catalogue().get(task_id)
    store = EpisodeStore(specs()[task.apps[0]], settings)
    _create(store, task, "warm", 60)
    counter = iter(range(10**9))

    def reset() -> None:  # an episode replaced by a fresh one, as a rollout loop does
        episode_id = f"e{next(counter)}"
        _create(store, task, episode_id, 60)
        store.delete(episode_id)

    times = sample(reset, 2000)
    size = len(store.get("warm").initial) / 2**20
    print(line(f"{task.apps[0]}: reset in the replica ({size:.1f} MB world)", times))


def bench_in_process(local: LocalServer, task_id: str) -> None:
    task = catalogue().get(task_id)
    app = task.apps[0]
    env = Env.inprocess(local, task_id, seed=7)

    resets, finishes = [], []
    for _ in range(200):  # the RL loop: reset, (act), finish
        start = time.perf_counter()
        env.reset()
        middle = time.perf_counter()
        env.finish()
        resets.append(middle - start)
        finishes.append(time.perf_counter() - middle)
    print(line(f"{app}: env.reset() in-process (the gym API)", resets))
    print(line(f"{app}: env.finish() in-process, no steps", finishes))
    print(step_line(f"{app}: in-process step (GET through proxy)", lambda: reads(env, 2000)))

    def episode() -> None:
        env.reset()
        AGENTS["reference"](env, task)
        env.finish()

    print(line(f"{app}: whole episode in-process ({task.reference_steps} steps + score)",
               sample(episode, 50, warmup=2)))


def bench_scoring(local: LocalServer, task_id: str) -> None:
    task = catalogue().get(task_id)
    app = task.apps[0]
    env = Env.inprocess(local, task_id, seed=7)
    env.reset()
    AGENTS["reference"](env, task)
    obs = env.observation
    assert obs is not None
    server = local.server
    store = server.replicas[app].state.store
    episode = store.get(obs.episode_id)
    registry = server.registry
    assert registry is not None
    trajectory = local.run(registry.trajectory(obs.episode_id))
    record = local.run(registry.get(obs.episode_id))
    final = episode.state()

    def run() -> None:  # as the gym's scoring does: the initial state named by its snapshot
        task.score({app: (episode.initial, final)}, trajectory, None, record.vars,
                   {app: episode.snapshot_key})

    print(line(f"{app}: scoring one episode (diff, assertions, hash)", sample(run, 300)))
    env.close()


def bench_http_create(data_dir: Path) -> None:
    with serving(env={**os.environ, "WORKGYM_DATA_DIR": str(data_dir)}) as url, \
            connect(url, TASKS[0], seed=7) as env:
        print(line("episode creation over HTTP (POST /v1/episodes)", sample(env.reset, 200)))
        print(step_line("HTTP step through the proxy, one client", lambda: reads(env, 1000)))


class SectionTimeout(Exception):
    """A section of the bench ran past its bound."""


@contextmanager
def bounded(name: str, timeout_s: float) -> Iterator[None]:
    """The block, stopped past ``timeout_s`` (a SIGALRM in this, the main thread, which also
    interrupts a wait on a lock or a thread): SectionTimeout says which section ran past its
    bound and where it was waiting."""
    def stop(_: int, frame: FrameType | None) -> None:
        where = _at(frame)
        ours = next((f for f in _outward(frame) if not _library(f)), None)
        if ours is not None and ours is not frame:
            where += f" from {_at(ours)}"
        raise SectionTimeout(f"bench: {name} ran past {timeout_s:.0f} s, waiting in {where}")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _at(frame: FrameType | None) -> str:
    if frame is None:
        return "?"
    return f"{frame.f_code.co_qualname} ({Path(frame.f_code.co_filename).name}:{frame.f_lineno})"


def _outward(frame: FrameType | None) -> Iterator[FrameType]:
    while frame is not None:
        yield frame
        frame = frame.f_back


def _library(frame: FrameType) -> bool:
    """Python's own code or an installed package's (not WorkGym's)."""
    path = frame.f_code.co_filename
    return path.startswith((sys.base_prefix, sys.prefix)) or "site-packages" in path


def _in_process(settings: Settings) -> None:
    local = LocalServer(settings)
    try:
        bench_live_episodes(local)  # first: later ones leave freed memory malloc would reuse
        for task_id in TASKS:
            bench_in_process(local, task_id)
            bench_scoring(local, task_id)
        bench_tracker_endpoints(local)
    finally:
        local.close()


def _fork(settings: Settings) -> None:
    local = LocalServer(settings)
    try:
        bench_fork(local)
    finally:
        local.close()


def _resets(settings: Settings) -> None:
    for task_id in TASKS:
        bench_reset(settings, task_id)


def sections(tmp: Path) -> dict[str, Callable[[], None]]:
    """The bench's sections, in order, by name; ``tmp``: their data directory."""
    # The per-key quotas out of the way: the memory figure holds thousands of episodes.
    settings = Settings(data_dir=tmp, max_live_episodes=10**6, create_rate_per_s=10**6,
                        create_burst=10**6)
    return {"in-process": lambda: _in_process(settings),
            "reset": lambda: _resets(settings),
            "fork": lambda: _fork(settings),
            "history": lambda: bench_history(settings),
            "http": lambda: bench_http_create(tmp),
            "proxy": lambda: bench_proxy(tmp),
            "boot": lambda: bench_boot(tmp),
            "tracing": bench_tracing,
            "stall": bench_stall,
            "finishing": lambda: bench_finishing(tmp),
            "browser": bench_browser}


class Tee(io.StringIO):
    """What is printed, kept as well: the figures are read back from it."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self._out = out

    def write(self, text: str) -> int:
        self._out.write(text)
        return super().write(text)

    def flush(self) -> None:
        self._out.flush()


def previous_section(root: Path, name: str, timeout_s: float) -> str:
    """The output of the previous release's section ``name`` (exported at ``root``), run by
    its own bench; when it fails (a section it lacks), one line printed says why."""
    try:
        done = subprocess.run([sys.executable, "-m", "workgym_perf.bench", name,
                               "--section-timeout", str(timeout_s)], cwd=root,
                              env=previous.environment(root), capture_output=True, text=True,
                              timeout=timeout_s + 120, check=False)
    except subprocess.TimeoutExpired as exc:
        print(f"  previous release: the {name} section ran past {timeout_s:.0f} s")
        return exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else ""
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"  previous release: the {name} section gave no figures ({why})")
    return done.stdout


def main() -> int:
    args = argparse.ArgumentParser(prog="python -m workgym_perf.bench", description=__doc__)
    args.add_argument("only", nargs="?", metavar="SECTION",
                      help="that section alone, by its name (an unknown one lists them)")
    args.add_argument("--section-timeout", type=float, default=SECTION_TIMEOUT_S, metavar="S",
                      help="stop a section past S seconds, saying where it waited; the next "
                      f"ones run, and the exit code is 1 (default {SECTION_TIMEOUT_S:.0f})")
    args.add_argument("--no-baseline", action="store_true",
                      help="do not measure the previous release (no ratios)")
    args.add_argument("--markdown", type=Path, metavar="FILE",
                      help="write the targeted figures as a markdown table into FILE's "
                      "bench-figures block (README.md), or as FILE when it does not exist")
    opts = args.parse_args()
    if opts.only is None:
        print(f"WorkGym benchmarks ({os.cpu_count()} cores; one process; medians of many "
              "samples)")
    root, against = None, "not measured (--no-baseline)"
    if not opts.no_baseline:
        try:
            root, against = previous.export(), previous.commit()[:12]
            print(f"  previous release {against}: each section runs there first, in {root}")
        except previous.PreviousMissing as exc:
            against = str(exc)
            print(f"  bench: {exc}")
    stopped, this, before = [], Tee(sys.stdout), io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        run = sections(Path(tmp))
        if opts.only is not None and opts.only not in run:
            args.error(f"no section {opts.only!r} (sections: {', '.join(run)})")
        for name, section in run.items():
            if opts.only not in (None, name):
                continue
            if root is not None:
                before.write(previous_section(root, name, opts.section_timeout))
            try:
                with bounded(f"the {name} section", opts.section_timeout), \
                        redirect_stdout(this):
                    section()
            except SectionTimeout as exc:
                print(exc, file=sys.stderr, flush=True)
                stopped.append(name)
    if opts.only is None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"  peak RSS of the benchmark process: {peak:.0f} MB")
    found = figures.rows(figures.parse(this.getvalue()),
                         figures.parse(before.getvalue()) if root is not None else None)
    print(figures.table(found, against))
    if opts.markdown is not None:
        figures.write_markdown(opts.markdown, "bench-figures", figures.markdown(found, against))
    if stopped:
        print(f"bench: sections stopped past their bound: {', '.join(stopped)}",
              file=sys.stderr)
    return 1 if stopped else 0


if __name__ == "__main__":
    sys.exit(main())
