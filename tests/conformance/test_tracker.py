"""The tracker held against Jira's published OpenAPI (``tests/conformance/tracker.py``): one
episode through a real ``workgym serve`` (proxy included), every served operation sent its
success and error cases (``scenarios/tracker_*.py``), each answer's status and body checked
against the schema Jira documents for it. Prints the figures: answers valid, and valid
ignoring extra properties (members Jira's schemas do not list where they forbid others)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator

import httpx
import pytest

import workgym
from tests.conformance import tracker
from tests.conformance.coverage import template
from tests.conformance.harness import Conformance, Report
from tests.conformance.openapi_shapes import EXTRA
from workgym.processes import serving

TASK = "tracker/start-work-on-bug"
# Operations the agent meets only refused, as Jira would refuse it: the old search is gone
# (410); Delete issues is the Administrators' alone and the agent is a Developer in every
# project (403; the deletion itself: tests/replicas/tracker/test_api_links.py).
ERROR_ONLY = {"GET /rest/api/3/search: no success case",
              "DELETE /rest/api/3/issue/{issue}: no success case",
              # Administer projects: the episode's Developer is refused; their successes are
              # tests/replicas/tracker/test_api_admin.py's.
              *(f"{method} /rest/api/3/{path}: no success case" for method, path in (
                  ("POST", "version"), ("PUT", "version/{version_id}"),
                  ("DELETE", "version/{version_id}"), ("POST", "component"),
                  ("PUT", "component/{component_id}"), ("DELETE", "component/{component_id}")))}
# Where Jira's document names a shape its API does not answer with: GET remotelink documents
# one RemoteIssueLink, the API (and every client) gives the list of them.
DOCUMENT_SLIPS = {("GET", "/rest/api/3/issue/{}/remotelink", "200"): "RemoteIssueLink[]"}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Report]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("jira-conformance")),
           "WORKGYM_STEP_BUDGET": "10000"}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=3, faults="none") as run:
        obs = run.reset()
        with httpx.Client(base_url=obs.apps["tracker"], timeout=30,
                          headers={"Authorization": f"Bearer {obs.token}"}) as client:
            found = Conformance("tracker", client, tracker.validate).run()
    by_resource: Counter[str] = Counter()
    bad: Counter[str] = Counter()
    for ex in found.exchanges:
        resource = "/".join(ex.operation[1].split("/")[:5])
        by_resource[resource] += 1
        bad[resource] += bool(ex.problems)
    for resource in sorted(by_resource):
        print(f"  {resource}: {by_resource[resource] - bad[resource]}/{by_resource[resource]}"
              " exchanges as Jira answers")
    yield found


def test_every_answer_is_jiras(report: Report, figure: Callable[[str], None]) -> None:
    valid = [ex for ex in report.exchanges if ex.shape is not None]
    loose = sum(all(p.startswith(EXTRA) for p in ex.problems) for ex in valid)
    figure(f"{report.summary()}; {loose}/{len(valid)} valid ignoring extra properties "
           f"({100 * loose / len(valid):.1f}%)")
    assert report.invalid == [], "\n".join(report.invalid)


def test_every_served_operation_meets_a_success_and_an_error(report: Report) -> None:
    unmet = [m for m in report.unmet if m not in ERROR_ONLY]
    assert unmet == [], "\n".join(unmet)


def test_the_shapes_checked_are_those_jira_documents(report: Report) -> None:
    """A scenario names the shape Jira's document gives for that operation and status (or,
    where the document names none, any of its schemas)."""
    documented = tracker.documented()
    wrong = []
    for ex in report.exchanges:
        key = (ex.operation[0], template(ex.operation[1]), str(ex.expected))
        expected = DOCUMENT_SLIPS.get(key, documented.get(key))
        if ex.shape is not None and expected is not None and ex.shape != expected:
            wrong.append(f"{' '.join(key)}: {ex.shape}, Jira documents {expected}")
    assert wrong == [], "\n".join(wrong)
