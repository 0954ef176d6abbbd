"""``make compose-boot``: boot the compose stack (images built), time it, tear it down.

It refuses to start while this checkout's compose project (``COMPOSE_PROJECT_NAME``, from
.env) has containers or volumes, or while the gym's port answers: it removes what it starts,
volumes included, and must neither take a running stack's data nor time another stack.

Prints the wall time from ``docker compose up -d`` until a first episode of every app the
stack serves (its replica services, as ``docker compose config`` resolves them) is created and
a request to each through the proxy is answered, and per container the CPU seconds it spent
until its healthcheck first passed and until those first episodes were answered (the Docker
engine's cumulative cgroup CPU usage: what a replica does for its first episode, its OpenAPI
document, comes after it is healthy), then the image sizes. Stdlib only; talks to the
engine on /var/run/docker.sock.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

GYM_PORT = int(os.environ.get("WORKGYM_GYM_PORT", "8000"))
GYM = f"http://127.0.0.1:{GYM_PORT}"


class _Unix(http.client.HTTPConnection):
    def __init__(self, path: str = "/var/run/docker.sock") -> None:
        super().__init__("localhost", timeout=10)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def engine(path: str) -> object:
    conn = _Unix()
    try:
        conn.request("GET", path)
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def config() -> dict[str, Any]:
    """The compose file as compose resolves it here (the project's name among it)."""
    return json.loads(compose_output("config", "--format", "json"))  # type: ignore[no-any-return]


def labelled(kind: str, project: str) -> Any:
    """The engine's containers (every state) or volumes of compose project ``project``."""
    filters = urllib.parse.quote(json.dumps({"label": [f"com.docker.compose.project={project}"]}))
    return engine(f"/containers/json?all=1&filters={filters}" if kind == "containers"
                  else f"/volumes?filters={filters}")


def containers(project: str) -> list[dict[str, Any]]:
    return labelled("containers", project)  # type: ignore[no-any-return]


def refusal(project: str, port: int = GYM_PORT) -> str | None:
    """Why compose-boot must not run now (None: nothing of ``project`` exists, the port is
    free)."""
    found = containers(project)
    volumes = labelled("volumes", project)["Volumes"] or []
    if found or volumes:
        services = Counter(str(c["Labels"]["com.docker.compose.service"]) for c in found)
        running = sum(c["State"] == "running" for c in found)
        held = (f"{len(found)} containers, {running} running: "
                + ", ".join(f"{n} x{k}" if k > 1 else n for n, k in sorted(services.items()))
                + f"; {len(volumes)} volumes")
        return (f"compose-boot: this checkout's stack {project} exists ({held}): `make down` "
                "first (compose-boot times a fresh stack and removes it, volumes included)")
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            return (f"compose-boot: 127.0.0.1:{port} answers already (another checkout's stack? "
                    "`docker ps`): stop it, or set WORKGYM_GYM_PORT")
    return None


def cpu_seconds(container_id: str) -> float:
    stats = engine(f"/containers/{container_id}/stats?stream=false&one-shot=true")
    return stats["cpu_stats"]["cpu_usage"]["total_usage"] / 1e9  # type: ignore[index]


def watch_health(project: str, healthy: dict[str, tuple[float, float]], started: float,
                 stop: threading.Event) -> None:
    """name -> (seconds after `up` it was first seen healthy, its CPU seconds then)."""
    while not stop.is_set():
        for c in containers(project):
            name = c["Names"][0].lstrip("/")  # type: ignore[index]
            if name not in healthy and "(healthy)" in str(c.get("Status", "")):
                healthy[name] = (time.perf_counter() - started, cpu_seconds(str(c["Id"])))
        time.sleep(0.05)


def call(method: str, url: str, body: object = None, token: str | None = None) -> dict:
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode()
                                     if body is not None else None)
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")  # type: ignore[no-any-return]


def api_key() -> str:
    """The operator's key the stack runs with (.env, written by compose-env.sh)."""
    for line in (ROOT / ".env").read_text().splitlines():
        if line.startswith("WORKGYM_API_KEY="):
            return line.split("=", 1)[1]
    raise SystemExit("compose-boot: no WORKGYM_API_KEY in .env")


def probe(app: str, key: str, tasks: list[dict[str, Any]], gym: str = GYM) -> None:
    """An episode of a task of ``app`` alone (of the gym's ``tasks``), and one read through
    the proxy (the first list operation of the app's OpenAPI document that needs no
    parameter, e.g. not a search)."""
    task = next(t["id"] for t in tasks if t["apps"] == [app])
    document = call("GET", f"{gym}/v1/apps/{app}/openapi.json", token=key)
    path = next(p for p, item in document["paths"].items() if "get" in item and "{" not in p
                and not any(q.get("required") for q in item["get"].get("parameters", [])))
    episode = call("POST", f"{gym}/v1/episodes", {"task": task, "seed": 0, "faults": "none"},
                   token=key)
    call("GET", episode["apps"][app] + path, token=episode["token"])


def served(resolved: dict[str, Any]) -> list[str]:
    """The apps the stack serves: its replica services' (the catalogue's, less the profiles
    not enabled)."""
    return sorted(s["build"]["args"]["APP"] for s in resolved["services"].values()
                  if (s.get("build") or {}).get("target") == "replica")


def first_episodes(apps: list[str], deadline: float, key: str, gym: str = GYM) -> float:
    """Poll until every app of ``apps`` answers an episode through the proxy. The task list
    is read once: polling it while the replicas start would load the gym (and Redis) the
    boot is timing."""
    pending = list(apps)
    tasks: list[dict[str, Any]] = []
    while time.perf_counter() < deadline:
        try:
            tasks = tasks or call("GET", f"{gym}/v1/tasks", token=key)  # type: ignore[assignment]
            probe(pending[0], key, tasks, gym)
            pending.pop(0)
            if not pending:
                return time.perf_counter()
        except (urllib.error.URLError, ConnectionError, OSError, KeyError, StopIteration):
            time.sleep(0.02)
    raise SystemExit(f"compose-boot: no episode of {pending} within the deadline")


def compose(*args: str) -> None:
    subprocess.run(["docker", "compose", *args], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def compose_output(*args: str) -> str:
    return subprocess.run(["docker", "compose", *args], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout


def main() -> int:
    subprocess.run(["bash", str(ROOT / ".ci/compose-env.sh")], check=True)
    resolved = config()
    project, apps = str(resolved["name"]), served(resolved)
    reason = refusal(project)
    if reason:
        print(reason, file=sys.stderr)
        return 1
    healthy: dict[str, tuple[float, float]] = {}
    stop = threading.Event()
    started = time.perf_counter()
    up = subprocess.Popen(["docker", "compose", "up", "-d"], cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    watcher = threading.Thread(target=watch_health, args=(project, healthy, started, stop),
                               daemon=True)
    watcher.start()
    try:
        ready = first_episodes(apps, started + 120, api_key())
        wall = ready - started
        at_ready = {c["Names"][0].lstrip("/"): cpu_seconds(str(c["Id"]))
                    for c in containers(project)}
        if up.wait(timeout=120) != 0:
            raise SystemExit("compose-boot: docker compose up failed")
        deadline = time.perf_counter() + 60
        while len(healthy) < len(containers(project)) and time.perf_counter() < deadline:
            time.sleep(0.1)
    finally:
        stop.set()
        watcher.join(timeout=5)
        compose("down", "-v", "--remove-orphans")
    print(f"compose-boot: `up -d` to a first episode of every app ({', '.join(apps)}) answered "
          f"through the proxy: {wall:.2f} s")
    print(f"  {'container':<44} {'healthy at':>10} {'CPU-s until healthy':>20} "
          f"{'until the episodes':>19}")
    for name, (at, cpu) in sorted(healthy.items(), key=lambda kv: kv[1][0]):
        print(f"  {name:<44} {at:>9.2f}s {cpu:>20.3f} {at_ready.get(name, float('nan')):>19.3f}")
    print("  images:")
    for image in sorted(compose_output("config", "--images").split()):
        ref = image if ":" in image else f"{image}:latest"
        try:
            size = engine(f"/images/{ref}/json")["Size"]  # type: ignore[index]
            print(f"  {ref:<44} {size / 1e6:>9.0f} MB")
        except (KeyError, TypeError):
            print(f"  {ref:<44} (not built)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
