"""Worker processes behind one port (``workgym serve --workers N``), kept running.

The parent opens the listening sockets (and starts the embedded Redis) before it forks the
workers: each serves the sockets it inherited, and the kernel hands each new connection to one
of them. A worker that exits while the server runs is started again, at most once a
``RESTART_S`` (never a crash loop); what it held in memory (its replicas' episodes) is lost,
and their agents are told ``episode_lost`` as for any lost replica instance. SIGINT or SIGTERM
stops them all: each is sent SIGTERM and given its own shutdown bound (which it reports once
its server is built), then killed.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import wait
from multiprocessing.context import ForkProcess
from multiprocessing.sharedctypes import Synchronized
from types import FrameType

from workgym_core.errors import ConfigError

RESTART_S = 1.0  # the least time between two starts of one worker
# Past a worker's own shutdown bound, how long it is still waited for before it is killed.
STOP_MARGIN_S = 5.0

# What a worker runs: (its index, where it reports its shutdown bound once it serves).
Work = Callable[[int, "Synchronized[float]"], None]


def _stop_asked(signum: int, _: FrameType | None) -> None:
    sys.exit(0)


class Supervisor:
    """Runs ``count`` processes of ``work`` until SIGINT or SIGTERM."""

    def __init__(self, count: int, work: Work) -> None:
        self.count, self.work = count, work
        self._context = multiprocessing.get_context("fork")  # inherits sockets and imports
        # The longest a worker's shutdown takes; 0 until one has built its server.
        self.shutdown_s: Synchronized[float] = self._context.Value("d", 0.0)
        self._stopping: list[int] = []
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)

    def _start(self, index: int) -> ForkProcess:
        process = self._context.Process(target=self._child, args=(index,),
                                        name=f"workgym-worker-{index}")
        process.start()
        return process

    def _child(self, index: int) -> None:
        # Its own signal handling, not the parent's (which would wake the parent's loop through
        # the inherited pipe): a stop signal before its server runs, or the one uvicorn raises
        # again once it has shut down, unwinds the worker (its ``finally`` clauses run).
        signal.signal(signal.SIGINT, _stop_asked)
        signal.signal(signal.SIGTERM, _stop_asked)
        os.close(self._wake_r)
        os.close(self._wake_w)
        self.work(index, self.shutdown_s)

    def _on_signal(self, signum: int, _: FrameType | None) -> None:
        self._stopping.append(signum)
        with contextlib.suppress(BlockingIOError):
            os.write(self._wake_w, b"\0")

    def run(self) -> int:
        """Serve until a stop signal (0), or until a worker fails before any has started
        (ConfigError: the same settings would fail in every worker)."""
        previous = {sig: signal.signal(sig, self._on_signal)
                    for sig in (signal.SIGINT, signal.SIGTERM)}
        workers = {index: self._start(index) for index in range(self.count)}
        started = {index: time.monotonic() for index in workers}
        try:
            while not self._stopping:
                due = [started[i] + RESTART_S for i in range(self.count) if i not in workers]
                ready = wait([self._wake_r, *(p.sentinel for p in workers.values())],
                             max(0.0, min(due) - time.monotonic()) if due else None)
                if self._wake_r in ready:
                    os.read(self._wake_r, 64)
                for index, process in list(workers.items()):
                    if process.exitcode is not None:
                        del workers[index]
                        self._exited(index, process)
                for index in range(self.count):
                    if (index not in workers and not self._stopping
                            and time.monotonic() >= started[index] + RESTART_S):
                        workers[index], started[index] = self._start(index), time.monotonic()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self._stop(list(workers.values()))
        return 0

    def _exited(self, index: int, process: ForkProcess) -> None:
        if self._stopping:
            return
        if not self.shutdown_s.value:  # no worker ever built its server
            raise ConfigError(f"worker {index} exited while starting (code {process.exitcode}); "
                              "see its error above")
        print(f"workgym: worker {index} (pid {process.pid}) exited (code {process.exitcode}): "
              "starting it again; the episodes it held are lost", file=sys.stderr, flush=True)

    def _stop(self, workers: list[ForkProcess]) -> None:
        """SIGTERM to every worker, then each waited for within its shutdown bound."""
        for process in workers:
            process.terminate()
        deadline = time.monotonic() + self.shutdown_s.value + STOP_MARGIN_S
        for process in workers:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.exitcode is None:
                print(f"workgym: worker pid {process.pid} did not stop within its shutdown "
                      "bound: killed", file=sys.stderr, flush=True)
                process.kill()
                process.join()
