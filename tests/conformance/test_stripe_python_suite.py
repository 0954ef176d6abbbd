"""stripe-python's own test suite (the sdist of stripe 12.3.0, API version basil, with its
own ``stripe/`` package) against an episode of the checkout through a real ``workgym serve``,
at the checkout's own root (Stripe's base path), its clients unchanged but for the address
and key (``stripe_python/shim.py`` swaps the key its tests hard-code for the episode's token).

Only the tests that reach the network (stripe-mock's address) and ask an operation the
checkout serves run (``stripe_python/selection.py`` reads them from the suite's files; the
operations matched as the conformance harness matches them), in one subprocess. Of those, a
test whose failure is a stripe-mock fixture id it names itself (``cus_xxxxxxxxxxxxx``,
``pm_123``: objects that exist only in stripe-mock's fixtures) is set aside and named. Every
other failure must be listed in ``stripe_python/known_failures.yaml`` with the Stripe
behaviour it contradicts and why we differ: an unlisted failure fails this test, and so does
a listed one that passes now (the list stays true)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import workgym
from workgym.processes import serving

from .harness import _matcher
from .registry import pypi_sdist
from .stripe_python.selection import network_tests
from .stripe_python.shim import shim

PLUGIN = Path(__file__).parent / "stripe_python" / "stripe_suite_plugin.py"
KNOWN = Path(__file__).parent / "stripe_python" / "known_failures.yaml"
TASK = "checkout/refund-returned-order"
# The suite's files with tests that reach the network: its resources and services, and the
# generated examples of every operation (the others test the library itself).
FILES = ("tests/api_resources", "tests/services", "tests/test_generated_examples.py")
MISSING = re.compile(r"No such [\w. ]+: '(\w+)'")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("suite")),
           "WORKGYM_STEP_BUDGET": "100000"}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=1, faults="none") as run:
        obs = run.reset()
        yield obs.roots["checkout"], obs.token


def selected(sdist: Path) -> list[str]:
    """The node ids of the network tests asking at least one operation the checkout serves."""
    match = _matcher("checkout")
    return [test for test, asked in network_tests(sdist, FILES).items()
            if any(not match(method, path)[1].startswith("(not served)")
                   for method, path in asked)]


def run_suite(sdist: Path, checkout: str, token: str, out: Path) -> list[dict[str, Any]]:
    """Run the selected tests in one subprocess: one record per test."""
    results = out / "results.jsonl"
    with shim(checkout, token) as port:
        env = {**os.environ, "STRIPE_MOCK_PORT": str(port), "STRIPE_SUITE_RESULTS": str(results),
               # the sdist's own stripe/ and tests/ (its package named tests too), the plugin
               "PYTHONPATH": os.pathsep.join([str(sdist), str(PLUGIN.parent)])}
        # in order, in this one process (the sdist's own settings say ``-n auto``: its
        # workers would interleave the requests of tests), the tracebacks left unrendered
        done = subprocess.run([sys.executable, "-m", "pytest", *selected(sdist), "-q", "-n", "0",
                               "--tb=no", "-p", "no:cacheprovider", "-p", PLUGIN.stem,
                               "-W", "ignore"],
                              cwd=sdist, env=env, capture_output=True, text=True, timeout=300)
    assert results.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    print(done.stdout.splitlines()[-1])
    return [json.loads(line) for line in results.read_text().splitlines()]


def resource(test: dict[str, Any]) -> str:
    """The resource of the first served operation the test asked: ``payment_intents``."""
    match = _matcher("checkout")
    for asked in test["paths"]:
        method, path = match(*asked.split(" ", 1))
        if not path.startswith("(not served)"):
            return path.split("/")[2]
    return "(none served)"


def kind(test: dict[str, Any], sdist: Path) -> str:
    """passed, failed, skipped, or set aside: a stripe-mock fixture id the test names."""
    missing = MISSING.search(test["error"])
    source = (sdist / test["test"].split("::")[0]).read_text()
    if test["outcome"] == "failed" and missing and f'"{missing[1]}"' in source:
        return "set aside"
    return str(test["outcome"])


def test_stripe_python_suite(checkout: tuple[str, str], tmp_path: Path,
                             figure: Callable[[str], None]) -> None:
    sdist = pypi_sdist("stripe", "12.3.0")
    tests = [test for test in run_suite(sdist, *checkout, tmp_path) if test["paths"]]
    assert tests, "no test of the suite reached the checkout"
    by_resource: dict[str, Counter[str]] = defaultdict(Counter)
    for test in tests:
        test["kind"] = kind(test, sdist)
        by_resource[resource(test)][test["kind"]] += 1
    total = Counter(test["kind"] for test in tests)
    figure(f"stripe-python 12.3.0's suite: {len(tests)} tests reached the checkout, "
           f"{total['passed']} passed ({100 * total['passed'] / len(tests):.1f}%), "
           f"{total['failed']} failed, {total['set aside']} set aside "
           "(stripe-mock's fixtures)")
    print(f"  {'resource':24} {'passed':>6} {'failed':>6} {'set aside':>9}")
    for name, counts in sorted(by_resource.items()):
        print(f"  {name:24} {counts['passed']:6} {counts['failed']:6} {counts['set aside']:9}")
    for test in tests:
        if test["kind"] == "set aside":
            print(f"  set aside (stripe-mock fixture): {test['test']}: {test['error'][:100]}")
    known = yaml.safe_load(KNOWN.read_text()) or {}
    failed = {t["test"]: t["error"] for t in tests if t["kind"] == "failed"}
    unlisted = {name: error for name, error in failed.items() if name not in known}
    assert not unlisted, f"{len(unlisted)} unlisted failures: {json.dumps(unlisted, indent=1)}"
    passing = sorted(set(known) - set(failed))
    assert not passing, f"listed as failing but not failing now: {passing}"
