"""The helpdesk held against Zendesk's described shapes: every served operation sent its
success and error cases (scenarios/helpdesk_*.py) through a real ``workgym serve`` (proxy
included), each answer validated against zenpy's objects (zendesk_shapes.py)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator

import httpx
import pytest

import workgym
from tests.conformance import zendesk_shapes
from tests.conformance.harness import Conformance, Report
from workgym.processes import serving

TASK = "helpdesk/stale-contact-update"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Report]:
    zendesk_shapes.classes()  # fetched before the server starts: no request waits on it
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("helpdesk")),
           "WORKGYM_STEP_BUDGET": "5000"}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=3, faults="none") as run:
        obs = run.reset()
        headers = {"Authorization": f"Bearer {obs.token}"}
        with httpx.Client(base_url=obs.apps["helpdesk"], headers=headers,
                          timeout=30) as client:
            yield Conformance("helpdesk", client, zendesk_shapes.validate).run()


def test_every_answer_is_zendesks_shape(report: Report, figure: Callable[[str], None]) -> None:
    figure(report.summary())
    by_resource: Counter[str] = Counter()
    bad: Counter[str] = Counter()
    for exchange in report.exchanges:
        resource = exchange.operation[1].removeprefix("/api/v2/").split("/")[0]
        by_resource[resource] += 1
        bad[resource] += bool(exchange.problems)
    for resource in sorted(by_resource):
        print(f"  {resource}: {by_resource[resource] - bad[resource]}/{by_resource[resource]}"
              " valid")
    assert not report.invalid, "\n".join(report.invalid)


def test_every_served_operation_meets_a_success_and_an_error(report: Report) -> None:
    assert not report.unmet, "\n".join(report.unmet)
