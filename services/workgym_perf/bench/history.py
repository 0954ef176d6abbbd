"""A write's cost against the record's history: a note on a helpdesk ticket that has 1,000
notes already, beside a note on a ticket as the world seeded it (target ~1x: no per-write work
grows with a ticket's notes or audits), in-process through the proxy."""

from __future__ import annotations

import statistics
from itertools import cycle

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.settings import Settings

from .stats import line, sample

TASK = "helpdesk/stale-contact-update"
HISTORY = 1_000
N = 100
NOTE = {"ticket": {"comment": {"body": "Checked the order again.", "public": False}}}


def bench_history(settings: Settings) -> None:
    # The notes of the long history and the timed ones, in one episode.
    local = LocalServer(settings.model_copy(update={"step_budget": HISTORY + 3 * N}))
    try:
        env = Env.inprocess(local, TASK, seed=7)
        env.reset()
        found = env.call("GET", "/api/v2/search",
                         params={"query": "type:ticket status<solved", "per_page": 100})
        tickets = [t["id"] for t in found.json()["results"]]

        def note(ticket: int) -> None:
            answer = env.call("PUT", f"/api/v2/tickets/{ticket}", json=NOTE)
            if answer.status_code != 200:
                raise RuntimeError(f"a note on ticket {ticket}: {answer.status_code} "
                                   f"{answer.text[:200]}")

        long, fresh = tickets[0], cycle(tickets[1:])
        for _ in range(HISTORY):
            note(long)
        after: list[float] = []
        seeded: list[float] = []
        for _ in range(N):  # interleaved: the machine's noise falls on both alike
            after += sample(lambda: note(long), 1, warmup=0)
            seeded += sample(lambda: note(next(fresh)), 1, warmup=0)
        print(line(f"helpdesk: a note on a ticket with {HISTORY:,} notes", after))
        print(line("helpdesk: a note on a ticket as seeded", seeded))
        ratio = statistics.median(after) / statistics.median(seeded)
        print(f"  {'history / seeded (p50)':<44} {ratio:8.2f} x   target ~1x")
    finally:
        local.close()
