"""The checkout held against Stripe's published types: every operation it serves, sent its
success and error cases through a real ``workgym serve``, each answer validated against the
``stripe`` npm package's generated types for the API version the replica claims
(``stripe_types.py``); the store's own API (ours) is held to its statuses and, for its
refusals, Stripe's error envelope."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import httpx
import pytest

import workgym
from tests.conformance.harness import Conformance, Report
from tests.conformance.scenarios.checkout_core import INTERNAL_SECRET, SEED
from tests.conformance.stripe_types import EXTRA, validate
from workgym.processes import serving

TASK = "checkout/refund-returned-order"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Report]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("conformance")),
           "WORKGYM_STEP_BUDGET": "100000", "WORKGYM_INTERNAL_SECRET": INTERNAL_SECRET}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=SEED, faults="none") as run:
        obs = run.reset()
        with httpx.Client(base_url=obs.apps["checkout"], timeout=30,
                          headers={"Authorization": f"Bearer {obs.token}"}) as client:
            yield Conformance("checkout", client, validate).run()


def figures(found: Report) -> list[str]:
    """The summary, the share valid ignoring members Stripe's types lack, and per resource."""
    checked = [ex for ex in found.exchanges if ex.shape is not None]
    lenient = sum(all(p.startswith(EXTRA) for p in ex.problems) for ex in checked)
    lines = [found.summary(), f"ignoring extra members: {lenient}/{len(checked)} valid "
             f"({100 * lenient / len(checked):.1f}%)"]
    by_resource: dict[str, list[bool]] = {}
    for ex in checked:
        resource = "/".join(ex.operation[1].split("/")[:3])
        by_resource.setdefault(resource, []).append(not ex.problems)
    lines += [f"  {name}: {sum(oks)}/{len(oks)}" for name, oks in sorted(by_resource.items())]
    return lines


def test_every_answer_matches_stripes_types(report: Report,
                                            figure: Callable[[str], None]) -> None:
    headline, lenient, *by_resource = figures(report)
    figure(f"{headline}; {lenient}")
    print("\n".join(by_resource))
    assert report.invalid == []


def test_every_served_operation_has_a_success_and_an_error_case(report: Report) -> None:
    assert report.unmet == []
