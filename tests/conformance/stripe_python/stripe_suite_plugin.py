"""A pytest plugin loaded into the subprocess that runs stripe-python's own tests (``-p
stripe_suite_plugin``, its folder on the path): it records, for each test, whether it reached
the network (the paths the shim forwarded while it ran) and how it ended, as JSON lines in
``$STRIPE_SUITE_RESULTS``; and it gives the suite the ``mocker`` fixture (pytest-mock's, of
which the suite uses Mock, MagicMock, ANY, call, patch, resetall and stopall), since that
plugin is not in WorkGym's environment."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Generator, Iterator
from typing import Any
from unittest import mock

import pytest

_RESULTS = os.environ.get("STRIPE_SUITE_RESULTS", "")
_SHIM = f"http://localhost:{os.environ.get('STRIPE_MOCK_PORT', '12111')}/__shim"


class Mocker:
    """What the suite uses of pytest-mock's ``mocker``: patches undone after the test."""

    Mock = mock.Mock
    MagicMock = mock.MagicMock
    AsyncMock = mock.AsyncMock
    ANY = mock.ANY
    call = mock.call

    def __init__(self) -> None:
        self._patches: list[Any] = []
        self._mocks: list[Any] = []
        outer = self

        class Patch:
            def __call__(self, target: str, *args: Any, **kwargs: Any) -> Any:
                return outer._start(mock.patch(target, *args, **kwargs))

            def object(self, target: Any, attribute: str, *args: Any, **kwargs: Any) -> Any:
                return outer._start(mock.patch.object(target, attribute, *args, **kwargs))

        self.patch = Patch()

    def _start(self, patcher: Any) -> Any:
        found = patcher.start()
        self._patches.append(patcher)
        self._mocks.append(found)
        return found

    def resetall(self) -> None:
        for found in self._mocks:
            found.reset_mock()

    def stopall(self) -> None:
        for patcher in reversed(self._patches):
            patcher.stop()
        self._patches.clear()


@pytest.fixture
def mocker() -> Iterator[Mocker]:
    found = Mocker()
    yield found
    found.stopall()


def _shim(what: str) -> Any:
    with urllib.request.urlopen(f"{_SHIM}/{what}") as answer:  # noqa: S310 - the loopback shim
        return json.loads(answer.read())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None
                            ) -> Generator[None, object, object]:
    before: int = _shim("count")
    result = yield
    _write({"test": item.nodeid, "paths": _shim(f"paths?since={before}")})
    return result


def _write(line: dict[str, Any]) -> None:
    with open(_RESULTS, "a") as out:
        out.write(json.dumps(line) + "\n")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" or report.outcome != "passed":
        error = ""
        if report.longrepr is not None:
            crash = getattr(report.longrepr, "reprcrash", None)
            error = crash.message if crash is not None else str(report.longrepr)
        _write({"test": report.nodeid, "when": report.when, "outcome": report.outcome,
                "error": error[:500]})
