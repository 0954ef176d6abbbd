"""The conformance run: an episode's app driven through its public URL by scenarios, each
exchange matched to the replica's operation and checked against the product's shapes.

A scenario is a function ``scenario(call: Call) -> None`` in
``tests/conformance/scenarios/<app>_<area>.py`` (every ``scenario*`` function there runs, in
name order, on one episode of the app). It makes its requests with ``call``:

    charge = call("GET", f"/v1/charges/{cid}", status=200, shape="Charge")
    call("GET", "/v1/charges/ch_nope", status=404, shape="Error")

``call`` sends the request (``params=``, ``json=``, ``data=``, ``headers=``, ``files=`` as httpx
takes them), records it, and returns the decoded body (None when it is not JSON). A wrong
status or a body that does not match the product's ``shape`` (the app's ``validate(shape,
body) -> problems``) is recorded as a problem, not raised: the test reports every one at the
end, with the figures (``Report``). Each served operation must be met at least once with a
2xx and once with a 4xx, or the report names it."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from tests.conformance.coverage import served

Validate = Callable[[str, Any], list[str]]


class Call(Protocol):
    @property
    def token(self) -> str:
        """The episode's (for a product's login that takes it as its password)."""

    def __call__(self, method: str, url: str, *, status: int, shape: str | None = None,
                 **kwargs: Any) -> Any: ...


@dataclass
class Exchange:
    operation: tuple[str, str]  # (method, the replica's path template)
    status: int
    expected: int
    shape: str | None
    problems: list[str]


def _matcher(app: str) -> Callable[[str, str], tuple[str, str]]:
    patterns = sorted(((method, path, re.compile(
        "^" + re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(path)) + "$"))
        for method, path in served(app)), key=lambda item: item[1].count("{"))
    def match(method: str, path: str) -> tuple[str, str]:
        for their_method, their_path, pattern in patterns:  # literal segments win
            if their_method == method and pattern.match(path):
                return their_method, their_path
        return method, f"(not served) {path}"
    return match


@dataclass
class Conformance:
    """A ``Call`` over ``client`` (based at the app's URL), keeping every exchange."""

    app: str
    client: httpx.Client
    validate: Validate
    exchanges: list[Exchange] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._match = _matcher(self.app)

    @property
    def token(self) -> str:
        return str(self.client.headers["authorization"]).removeprefix("Bearer ")

    def __call__(self, method: str, url: str, *, status: int, shape: str | None = None,
                 **kwargs: Any) -> Any:
        response = self.client.request(method, url, **kwargs)
        try:
            body = response.json()
        except ValueError:
            body = None
        problems = [] if response.status_code == status else [
            f"status {response.status_code}, expected {status}: {response.text[:300]}"]
        if shape is not None:
            problems += self.validate(shape, body)
        operation = self._match(method.upper(), httpx.URL(url).path)
        self.exchanges.append(Exchange(operation, response.status_code, status, shape,
                                       problems))
        return body

    def run(self) -> Report:
        for module in scenario_modules(self.app):
            for name in sorted(n for n in dir(module) if n.startswith("scenario")):
                getattr(module, name)(self)
        return Report(self.app, self.exchanges)


def scenario_modules(app: str) -> list[Any]:
    from tests.conformance import scenarios
    return [importlib.import_module(f"{scenarios.__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(scenarios.__path__), key=lambda i: i.name)
            if info.name.startswith(f"{app}_")]


@dataclass
class Report:
    app: str
    exchanges: list[Exchange]

    @property
    def invalid(self) -> list[str]:
        return [f"{ex.operation[0]} {ex.operation[1]} -> {ex.status}: {problem}"
                for ex in self.exchanges for problem in ex.problems]

    @property
    def unmet(self) -> list[str]:
        """Served operations without a success case, or without an error case."""
        seen: dict[tuple[str, str], set[bool]] = {}
        for ex in self.exchanges:
            seen.setdefault(ex.operation, set()).add(ex.expected < 400)
        missing = []
        for operation in sorted(served(self.app)):
            for ok, kind in ((True, "success"), (False, "error")):
                if ok not in seen.get(operation, set()):
                    missing.append(f"{operation[0]} {operation[1]}: no {kind} case")
        return missing

    def summary(self) -> str:
        checked = [ex for ex in self.exchanges if ex.shape is not None]
        valid = sum(not ex.problems for ex in checked)
        ops = {ex.operation for ex in self.exchanges}
        share = 100 * valid / len(checked) if checked else 0.0
        return (f"{self.app}: {valid}/{len(checked)} answers valid against the product's "
                f"shapes ({share:.1f}%), {len(self.exchanges)} exchanges over {len(ops)} "
                f"operations of {len(served(self.app))} served")

