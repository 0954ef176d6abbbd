"""`make bench`, written episodes: what one that wrote 5 times costs its replica instance held
among 10,000, and what a write costs on an episode whose database is open, closed (past
``WORKGYM_HOT_EPISODES``: opened again from its changed pages) or not made yet (its first).

The episodes are made in the helpdesk's store and written through its app in-process, as the
proxy calls it (the internal headers, no HTTP, no gym API): the figures are the store's.
"""

from __future__ import annotations

import gc
import statistics
import time

import httpx

from replicas.runtime.memory import resident_mb
from workgym.local import LocalServer
from workgym.tasks import catalogue
from workgym_core.internal import EPISODE_HEADER, INTERNAL_HEADER, STEP_HEADER

from .stats import Refused, line

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone
SEED = 7
WRITTEN = 10_000
WRITES = 5  # a note on each of 5 open tickets
# Episodes written in turn for the closed figure: past the default WORKGYM_HOT_EPISODES (128)
# twice over, so each write opens one episode's database again and closes another's.
IN_TURN = 512
SAMPLES = 500


class _Writer:
    """Episodes of TASK in the helpdesk's store, written through its app."""

    def __init__(self, local: LocalServer, prefix: str) -> None:
        self.local, self.prefix = local, prefix
        self.app = local.server.replicas["helpdesk"]
        self.store = self.app.state.store
        self.task = catalogue().get(TASK)
        self.made = 0
        self.steps: dict[str, int] = {}

    def create(self) -> str:
        episode_id = f"{self.prefix}{self.made}"
        self.made += 1
        self.store.create(episode_id, seed=SEED, setup=self.task.setup_of("helpdesk"),
                          script=self.task.actors_of("helpdesk"), ttl_s=3600)
        self.steps[episode_id] = 0
        return episode_id

    async def write(self, client: httpx.AsyncClient, episode_id: str, ticket: int) -> float:
        """A note on ``ticket`` (the episode's next step); the seconds it took."""
        self.steps[episode_id] += 1
        headers = {INTERNAL_HEADER: self.local.server.settings.internal_secret,
                   EPISODE_HEADER: episode_id, STEP_HEADER: str(self.steps[episode_id])}
        start = time.perf_counter()
        answer = await client.put(f"/api/v2/tickets/{ticket}", headers=headers, json={
            "ticket": {"comment": {"body": "Looking into it.", "public": False}}})
        elapsed = time.perf_counter() - start
        if answer.status_code != 200:
            raise Refused(f"a write was answered {answer.status_code}: {answer.text[:200]}")
        return elapsed

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app),
                                 base_url="http://helpdesk.local")

    def tickets(self) -> list[int]:
        """WRITES open tickets of the world (the same in every episode of it)."""
        episode_id = self.create()

        async def search() -> list[int]:
            async with self.client() as client:
                found = await client.get("/api/v2/search", params={
                    "query": "type:ticket status:open", "per_page": WRITES}, headers={
                    INTERNAL_HEADER: self.local.server.settings.internal_secret,
                    EPISODE_HEADER: episode_id})
            return [ticket["id"] for ticket in found.json()["results"]]

        found = self.local.run(search())
        self.store.delete(episode_id)
        return found

    def delete_all(self) -> None:
        for episode_id in self.steps:
            self.store.delete(episode_id)


def bench_written_episodes(local: LocalServer, count: int = WRITTEN) -> None:
    writer = _Writer(local, "written")
    try:
        _written_episodes(local, writer, count)
    except Refused as exc:
        print(f"  {'written episodes':<44} NO FIGURE: {exc}")
    finally:
        writer.delete_all()


def _written_episodes(local: LocalServer, writer: _Writer, count: int) -> None:
    tickets = writer.tickets()

    async def make() -> None:
        async with writer.client() as client:
            for _ in range(count):
                episode_id = writer.create()
                for ticket in tickets:
                    await writer.write(client, episode_id, ticket)

    gc.collect()
    rss = resident_mb()
    local.run(make())
    gc.collect()
    per_mb = (resident_mb() - rss) / count
    print(f"  {f'MB per written episode ({WRITES} writes)':<44} {per_mb:8.3f} MB   "
          f"(resident growth over {count:,})")
    print(f"  {'written episodes held':<44} {count:>8,}   ({per_mb * count / 1024:.2f} GB; "
          f"{1024 / per_mb:,.0f} per GiB)")
    _write_costs(local, tickets)


def _write_costs(local: LocalServer, tickets: list[int]) -> None:
    """A write's latency in the replica (the written episodes still held): on a fresh episode
    (its first), on one open, and on IN_TURN episodes written in turn (each closed since its
    last)."""
    writer = _Writer(local, "costs")
    first: list[float] = []
    open_: list[float] = []
    closed: list[float] = []

    async def measure() -> None:
        async with writer.client() as client:
            for i in range(SAMPLES):
                first.append(await writer.write(client, writer.create(), tickets[i % WRITES]))
            hot = writer.create()
            for i in range(SAMPLES):
                open_.append(await writer.write(client, hot, tickets[i % WRITES]))
            turn = [writer.create() for _ in range(IN_TURN)]
            for episode_id in turn:  # each written once: a database of its own
                await writer.write(client, episode_id, tickets[0])
            for i in range(SAMPLES):
                closed.append(await writer.write(client, turn[i % IN_TURN], tickets[1]))

    try:
        local.run(measure())
    finally:
        writer.delete_all()
    print(line("write, the episode's first (replica app)", first))
    print(line("write, the episode's database open", open_))
    print(line(f"write, {IN_TURN} episodes in turn", closed))
    print(f"  {'write in turn / database open (p50)':<44} "
          f"{statistics.median(closed) / statistics.median(open_):.2f} x")
