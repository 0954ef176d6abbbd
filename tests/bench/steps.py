"""The step every step loop of `make bench` times: a read of one record of the episode's app,
on an episode with budget left (a fresh one, untimed, before the budget runs out)."""

from __future__ import annotations

from workgym.sdk import Env
from workgym.tasks import catalogue

from .stats import sample_steps

# Each app's list of records (its path, the query for a page of one, the key of the page's
# records); one of them is read by id at ``<list>/<id>``.
LISTS = {"helpdesk": ("/api/v2/tickets", {"per_page": 1}, "tickets"),
         "checkout": ("/v1/customers", {"limit": 1}, "data")}


def reads(env: Env, n: int) -> list[float]:
    """``n`` timed reads of one record of the episode's (first) app."""
    task = catalogue().get(env.task)
    listing, one, key = LISTS[task.apps[0]]
    record: list[str] = []

    def fresh() -> None:
        env.reset()
        found = env.call("GET", listing, params=one).json()[key][0]["id"]
        record[:] = [str(found)]

    def read() -> int:
        return env.call("GET", f"{listing}/{record[0]}").status_code

    # The listing in ``fresh`` is a step too.
    return sample_steps(read, n, task.max_steps - 1, fresh)
