"""A pytest plugin loaded into the subprocess that runs stripe-python's own tests (``-p
stripe_suite_plugin``, its folder on the path): for each test, the requests the shim
forwarded while it ran and how it ended (the first phase that did not pass: setup, call or
teardown), one JSON line per test in ``$STRIPE_SUITE_RESULTS``."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Generator
from typing import Any

import pytest

_RESULTS = os.environ.get("STRIPE_SUITE_RESULTS", "")
_SHIM = f"http://localhost:{os.environ.get('STRIPE_MOCK_PORT', '12111')}/__shim"
_ENDINGS: dict[str, tuple[str, str]] = {}  # node id -> (outcome, error)


def _shim(what: str) -> Any:
    with urllib.request.urlopen(f"{_SHIM}/{what}") as answer:  # noqa: S310 - the loopback shim
        return json.loads(answer.read())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None
                            ) -> Generator[None, object, object]:
    before: int = _shim("count")
    result = yield
    outcome, error = _ENDINGS.pop(item.nodeid, ("passed", ""))
    with open(_RESULTS, "a") as out:
        out.write(json.dumps({"test": item.nodeid, "outcome": outcome, "error": error,
                              "paths": _shim(f"paths?since={before}")}) + "\n")
    return result


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.outcome == "passed" or report.nodeid in _ENDINGS:
        return
    error = ""
    if report.longrepr is not None:
        crash = getattr(report.longrepr, "reprcrash", None)
        error = crash.message if crash is not None else str(report.longrepr)
    _ENDINGS[report.nodeid] = (report.outcome, f"{report.when}: {error[:500]}")
