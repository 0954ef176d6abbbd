"""The CRM held against HubSpot's shapes: every served operation sent its success and error
cases (scenarios/crm_*.py) through a real ``workgym serve`` (proxy included), each answer
validated against the models of HubSpot's official client (hubspot_shapes.py): lists,
objects, batch, search, associations, pipelines, owners and errors."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator

import httpx
import pytest

import workgym
from tests.conformance import hubspot_shapes
from tests.conformance.crm import TASK
from tests.conformance.harness import Conformance, Report
from workgym.processes import serving


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Report]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("crm")),
           "WORKGYM_STEP_BUDGET": "5000"}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=3, faults="none") as run:
        obs = run.reset()
        headers = {"Authorization": f"Bearer {obs.token}"}
        with httpx.Client(base_url=obs.apps["crm"], headers=headers, timeout=30) as client:
            yield Conformance("crm", client, hubspot_shapes.validate).run()


def test_every_answer_is_hubspots_shape(report: Report, figure: Callable[[str], None]) -> None:
    figure(report.summary())
    by_area: Counter[str] = Counter()
    bad: Counter[str] = Counter()
    for exchange in report.exchanges:
        area = "/".join(exchange.operation[1].split("/")[2:4])  # v3/objects, v4/objects, ...
        by_area[area] += 1
        bad[area] += bool(exchange.problems)
    for area in sorted(by_area):
        print(f"  {area}: {by_area[area] - bad[area]}/{by_area[area]} valid")
    assert not report.invalid, "\n".join(report.invalid)


def test_every_served_operation_meets_a_success_and_an_error(report: Report) -> None:
    assert not report.unmet, "\n".join(report.unmet)
