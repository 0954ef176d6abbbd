"""stripe-python's own test suite (the sdist of stripe 12.3.0, API version basil, with its
own ``stripe/`` package) against an episode of the checkout through a real ``workgym serve``,
its clients unchanged but for the address and key (``stripe_python/shim.py``).

Only the tests that reach the network count (those that stub the HTTP layer never ask the
app anything). Of those, a test whose failure is a stripe-mock fixture id (``cus_123``,
``ch_xxxxxxxxxxxxx``: objects that exist only in stripe-mock) is set aside and named, as is
one on an operation the checkout does not serve (Stripe's "Unrecognized request URL"). Every
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import workgym
from workgym.processes import serving

from .registry import pypi_sdist
from .stripe_python.shim import shim

PLUGIN = Path(__file__).parent / "stripe_python" / "stripe_suite_plugin.py"
KNOWN = Path(__file__).parent / "stripe_python" / "known_failures.yaml"
TASK = "checkout/refund-returned-order"
# The suite's files whose tests reach the network (the others only stub the HTTP layer or
# test the library itself): its resources, and the generated examples of every operation.
FILES = ("tests/api_resources", "tests/test_generated_examples.py")
PLACEHOLDER = re.compile(r"No such \w+: '?\w+_(123|xxx+\w*|[A-Za-z0-9]*mock\w*)'?")
UNSERVED = "Unrecognized request URL"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("suite")),
           "WORKGYM_STEP_BUDGET": "100000"}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=1, faults="none") as run:
        obs = run.reset()
        yield obs.apps["checkout"], obs.token


def run_suite(checkout: str, token: str, out: Path) -> list[dict[str, Any]]:
    """Run the suite's network tests in one subprocess: one record per test."""
    sdist = pypi_sdist("stripe", "12.3.0")
    results = out / "results.jsonl"
    with shim(checkout, token) as port:
        env = {**os.environ, "STRIPE_MOCK_PORT": str(port), "STRIPE_SUITE_RESULTS": str(results),
               # the sdist's own stripe/ and tests/ (its package named tests too), the plugin
               "PYTHONPATH": os.pathsep.join([str(sdist), str(PLUGIN.parent)])}
        done = subprocess.run([sys.executable, "-m", "pytest", *FILES, "-q", "-p",
                               "no:cacheprovider", "-p", PLUGIN.stem,
                               "-W", "ignore"], cwd=sdist, env=env, capture_output=True,
                              text=True, timeout=300)
    assert results.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    print(done.stdout.splitlines()[-1])
    tests: dict[str, dict[str, Any]] = defaultdict(lambda: {"outcome": "passed", "error": ""})
    for line in results.read_text().splitlines():
        record = json.loads(line)
        test = tests[record["test"]]
        if "paths" in record:
            test["paths"] = record["paths"]
        elif record["outcome"] != "passed" and test["outcome"] == "passed":
            test["outcome"], test["error"] = record["outcome"], record["error"]
    return [{"test": name, **found} for name, found in tests.items() if found.get("paths")]


def resource(paths: list[str]) -> str:
    """``GET /v1/customers/cus_1/sources`` -> ``customers``."""
    parts = paths[0].split(" ", 1)[1].split("/")
    return parts[2] if len(parts) > 2 else "/"


def kind(test: dict[str, Any]) -> str:
    if test["outcome"] != "failed":
        return test["outcome"]
    if UNSERVED in test["error"]:
        return "unserved"
    return "placeholder" if PLACEHOLDER.search(test["error"]) else "failed"


@pytest.mark.skip(reason="unfinished: a run takes ~5.5 min (budget 2 min) and the per-test "
                  "attribution of requests is not yet checked; see replicas/checkout/README.md")
def test_stripe_python_suite(checkout: tuple[str, str], tmp_path: Path) -> None:
    tests = run_suite(*checkout, tmp_path)
    assert tests, "no test of the suite reached the checkout"
    by_resource: dict[str, Counter[str]] = defaultdict(Counter)
    for test in tests:
        test["kind"] = kind(test)
        by_resource[resource(test["paths"])][test["kind"]] += 1
    print(f"\nstripe-python 12.3.0's suite: {len(tests)} tests reached the checkout")
    for name, counts in sorted(by_resource.items()):
        print(f"  {name:32} " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    total = Counter(t["kind"] for t in tests)
    print("  total", dict(sorted(total.items())))
    for test in tests:
        if test["kind"] == "placeholder":
            print(f"  set aside (stripe-mock fixture): {test['test']}: {test['error'][:120]}")
    known = yaml.safe_load(KNOWN.read_text()) or {}
    failed = {t["test"]: t["error"] for t in tests if t["kind"] == "failed"}
    unlisted = {name: error for name, error in failed.items() if name not in known}
    assert not unlisted, f"{len(unlisted)} unlisted failures: {json.dumps(unlisted, indent=1)}"
    passing = sorted(set(known) - set(failed))
    assert not passing, f"listed as failing but not failing now: {passing}"
