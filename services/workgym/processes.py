"""Child processes on loopback ports: what the demo, the benchmarks and wire tests share."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

from replicas.catalog import app_names

# How long a child is given to stop on SIGTERM, before it is killed (and said so).
STOP_S = 10.0


BIND_ATTEMPTS = 5  # servers started on ports another process took first


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running(args: Sequence[str], *, env: dict[str, str] | None = None,
            log: Path | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A child process for the block; terminated (then killed) when the block ends."""
    out = open(log, "wb") if log else None  # noqa: SIM115 - closed below, after the child
    try:
        process = subprocess.Popen(list(args), env=env, stdout=out,
                                   stderr=subprocess.STDOUT if out else None)
        try:
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=STOP_S)
            except subprocess.TimeoutExpired:
                print(f"workgym: {' '.join(args)[:200]} did not stop within {STOP_S:.0f} s of "
                      "SIGTERM: killed", file=sys.stderr, flush=True)
                process.kill()
                process.wait(timeout=STOP_S)
    finally:
        if out:
            out.close()


def wait_http(url: str, process: subprocess.Popen[bytes] | None = None,
              timeout_s: float = 60.0, log: Path | None = None) -> None:
    """Poll ``url`` until it answers 200; fail early if ``process`` exits."""
    deadline = time.monotonic() + timeout_s
    with httpx.Client(trust_env=False, timeout=2.0) as probe:
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"the process serving {url} exited with code "
                                   f"{process.returncode}" + _tail(log))
            try:
                if probe.get(url).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer within {timeout_s:.0f} s" + _tail(log))


def _tail(log: Path | None) -> str:
    return f"; see {log}:\n{log.read_text(errors='replace')[-2000:]}" if log else ""


@contextmanager
def serving(args: Sequence[str] = (), *, env: dict[str, str] | None = None,
            health: str = "/healthz", log: Path | None = None) -> Iterator[str]:
    """``workgym serve <args> --port <free port>`` for the block, once it answers; its URL.
    No ``args``: the all-in-one server; ``["--role", "telemetry"]``: the telemetry store.
    Each app's own port (WORKGYM_APP_PORTS, unless ``env`` sets it) is a free one too: an
    episode's ``roots`` name them.

    A port free when chosen can be taken by another process before the server binds it (two
    test workers starting servers at once): then the server exits, or what answers is the
    other one (another operator key: every call a 401). So the answer counts only once the
    port is the server's own listening socket, and a lost race is run again on new ports."""
    given = dict(os.environ if env is None else env)
    for attempt in range(1, BIND_ATTEMPTS + 1):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        run_env = {"WORKGYM_APP_PORTS": json.dumps({app: free_port() for app in app_names()}),
                   **given}
        with running(workgym("serve", *args, "--port", str(port)), env=run_env,
                     log=log) as process:
            try:
                wait_http(url + health, process, log=log)
            except RuntimeError:
                if process.poll() is None or attempt == BIND_ATTEMPTS:
                    raise
                continue  # it exited: a port of its was taken first
            if not listens(process.pid, port):
                if attempt == BIND_ATTEMPTS:
                    raise RuntimeError(f"another process answers on {url}, not workgym serve")
                continue
            yield url
            return


def listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds a socket listening on ``port`` (Linux's /proc; True where
    there is no /proc to tell)."""
    try:
        held = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
        tables = [Path(f"/proc/net/{name}").read_text().splitlines()[1:]
                  for name in ("tcp", "tcp6")]
    except OSError:
        return True
    for line in (line for table in tables for line in table):
        fields = line.split()
        listening = int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A"
        if listening and f"socket:[{fields[9]}]" in held:
            return True
    return False


def workgym(*args: str) -> list[str]:
    """The command line of ``workgym <args>`` run by this interpreter."""
    return [sys.executable, "-m", "workgym", *args]
