"""The tracker's covered Jira endpoints, each timed in-process through the proxy (the gym's
in-process server): p50 and p99 of successful requests on fresh episodes, reads and writes.
A write's episode is replaced before its step budget runs out (untimed)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from workgym.local import LocalServer
from workgym.sdk import Env

from .stats import sample_steps, step_line

TASK = "tracker/start-work-on-bug"
N = 300
BUDGET = 50  # requests per episode before a fresh one (the task allows 60)
API = "/rest/api/3"
BUG = {"fields": {"project": {"key": "SHOP"}, "issuetype": {"name": "Bug"},
                  "summary": "Totals off by one cent"}}
# name -> (method, path, params or body): {issue} is an open SHOP bug of the episode's.
ENDPOINTS: dict[str, tuple[str, str, Any]] = {
    "GET issue": ("GET", f"{API}/issue/{{issue}}", None),
    "GET issue expand=changelog": ("GET", f"{API}/issue/{{issue}}",
                                   {"expand": "changelog,transitions"}),
    "GET search/jql ids, 50": ("GET", f"{API}/search/jql",
                               {"jql": "project = SHOP AND statusCategory != Done "
                                       "ORDER BY priority DESC", "maxResults": 50}),
    "GET search/jql *all, 50": ("GET", f"{API}/search/jql",
                                {"jql": "project = SHOP ORDER BY key", "maxResults": 50,
                                 "fields": "*all"}),
    "GET transitions": ("GET", f"{API}/issue/{{issue}}/transitions", None),
    "GET comments": ("GET", f"{API}/issue/{{issue}}/comment", None),
    "GET createmeta fields": ("GET", f"{API}/issue/createmeta/SHOP/issuetypes/10001", None),
    "GET editmeta": ("GET", f"{API}/issue/{{issue}}/editmeta", None),
    "GET project": ("GET", f"{API}/project/SHOP", None),
    "GET user/assignable/search": ("GET", f"{API}/user/assignable/search",
                                   {"project": "SHOP"}),
    "GET agile board issues, 50": ("GET", "/rest/agile/1.0/board/1/issue", None),
    "GET agile backlog, 50": ("GET", "/rest/agile/1.0/board/1/backlog", None),
    "POST issue (create)": ("POST", f"{API}/issue", BUG),
    "PUT issue (edit)": ("PUT", f"{API}/issue/{{issue}}",
                         {"update": {"labels": [{"add": "triaged"}]}}),
    "POST comment": ("POST", f"{API}/issue/{{issue}}/comment",
                     {"body": {"type": "doc", "version": 1, "content": [
                         {"type": "paragraph", "content": [{"type": "text",
                                                            "text": "Looking."}]}]}}),
    "POST worklog": ("POST", f"{API}/issue/{{issue}}/worklog", {"timeSpent": "30m"}),
    "POST issueLink": ("POST", f"{API}/issueLink",
                       {"type": {"name": "Relates"}, "inwardIssue": {"key": "{issue}"},
                        "outwardIssue": {"key": "SHOP-1"}}),
}


def _filled(value: Any, issue: str) -> Any:
    if isinstance(value, str):
        return value.replace("{issue}", issue)
    if isinstance(value, dict):
        return {k: _filled(v, issue) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, issue) for v in value]
    return value


def _timer(env: Env, method: str, path: str, given: Any) -> tuple[Callable[[], int],
                                                                  Callable[[], None]]:
    issue: list[str] = []

    def fresh() -> None:
        env.reset()
        found = env.call("GET", f"{API}/search/jql", params={
            "jql": "project = SHOP AND issuetype = Bug AND status = Open", "maxResults": 1})
        issue[:] = [found.json()["issues"][0]["id"]]

    def step() -> int:
        filled = _filled(given, issue[0])
        params = filled if method == "GET" else None
        body = None if method == "GET" else filled
        return env.call(method, path.replace("{issue}", issue[0]), params=params,
                        json=body).status_code

    return step, fresh


def bench_tracker_endpoints(local: LocalServer) -> None:
    env = Env.inprocess(local, TASK, seed=7)
    print("  tracker, the covered Jira endpoints (in-process, through the proxy):")
    for name, (method, path, given) in ENDPOINTS.items():
        step, fresh = _timer(env, method, path, given)
        print(step_line(f"  {name}", partial(sample_steps, step, N, BUDGET, fresh)))
