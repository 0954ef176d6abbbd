"""The step every step loop of `make bench` times: a read of one record of the episode's app,
on an episode with budget left (a fresh one, untimed, before the budget runs out)."""

from __future__ import annotations

from workgym.sdk import Env
from workgym.tasks import catalogue

from .stats import sample_steps

# Each app's list of records (its path, the query for a page of one, the key of the page's
# records, where one of them is read by its id).
Listing = tuple[str, dict[str, object], str, str]
LISTS: dict[str, Listing] = {
    "helpdesk": ("/api/v2/tickets", {"per_page": 1}, "tickets", "/api/v2/tickets/{id}"),
    "checkout": ("/v1/customers", {"limit": 1}, "data", "/v1/customers/{id}"),
    "tracker": ("/rest/api/3/search/jql", {"jql": "project = SHOP", "maxResults": 1},
                "issues", "/rest/api/3/issue/{id}")}


def reads(env: Env, n: int) -> list[float]:
    """``n`` timed reads of one record of the episode's (first) app."""
    task = catalogue().get(env.task)
    listing, one, key, path = LISTS[task.apps[0]]
    record: list[str] = []

    def fresh() -> None:
        env.reset()
        found = env.call("GET", listing, params=one).json()[key][0]["id"]
        record[:] = [str(found)]

    def read() -> int:
        return env.call("GET", path.format(id=record[0])).status_code

    # The listing in ``fresh`` is a step too.
    return sample_steps(read, n, task.max_steps - 1, fresh)
