"""Schemathesis over every replica's OpenAPI document, and the gym API's, in-process.

Each replica is fuzzed as agents reach it (the proxy's internal headers, one real
episode created through the app's store); the gym API as its operator reaches it
(the API key). Checks: no 5xx, only documented statuses, bodies and content types
as documented. All of schemathesis's phases but the stateful one run: examples,
coverage (boundaries, wrong types, missing fields) and fuzzing. Deterministic
(derandomized Hypothesis, a fixed seed) and bounded by MAX_EXAMPLES.

Generated values reach real records: integers are drawn from existing ids half the
time, the gym's tasks, apps and one real episode from their real values, and the
fuzzing phase reuses values the API answered. One episode serves a whole run: a
write may change what a later case finds (a closed ticket, a deleted episode), which
only moves answers between documented statuses; every check holds whatever the state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.python import asgi

from replicas.catalog import app_names, spec
from replicas.runtime.app import create_replica_app
from workgym_core.internal import EPISODE_HEADER, INTERNAL_HEADER
from workgym_core.settings import Settings

pytestmark = pytest.mark.slow

SECRET = "fuzz-secret"
EPISODE = "fuzz"
# Fuzzing-phase cases per operation (the examples and coverage phases add their own).
MAX_EXAMPLES = 50
CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_schema_conformance"]
# Ids the seeded worlds have in every table.
KNOWN_IDS = list(range(1, 11))


def _config(headers: dict[str, str], real: dict[str, list[str]]) -> schemathesis.Config:
    """Every request sent with ``headers``; integers drawn from KNOWN_IDS half the time and
    each parameter of ``real`` ('path.app', 'body.task') from its real values."""
    dictionaries = {"ids": {"values": KNOWN_IDS},
                    **{key: {"values": values} for key, values in real.items()}}
    return schemathesis.Config.from_dict({
        "seed": 20_250_601,
        "headers": headers,
        "dictionaries": dictionaries,
        "parameters": {key: {"dictionary": key, "probability": 0.5} for key in real},
        "generation": {"mode": "all", "deterministic": True, "database": "none",
                       "dictionaries": {"integer": {"dictionary": "ids", "probability": 0.5}}},
        "checks": {"enabled": False, **{check: {"enabled": True} for check in CHECKS}},
        "phases": {"stateful": {"enabled": False},
                   "fuzzing": {"extra-data-sources": {"responses": True}}},
    })


def _schema(request: pytest.FixtureRequest, app: Any, config: schemathesis.Config) -> Any:
    """The app's OpenAPI document as schemathesis cases, sent to the app in-process."""
    # schemathesis 4.32's fixture-based tests read Node._nodeid, which pytest 9.2 renamed.
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid
    return schemathesis.openapi.from_asgi("/openapi.json", app, config=config)


@pytest.fixture(params=sorted(app_names()))
def replica(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """An app as agents reach it: the proxy's internal headers and a real episode."""
    app = create_replica_app(spec(request.param), Settings(data_dir=tmp_path,
                                                           internal_secret=SECRET))
    app.state.store.create(EPISODE, seed=1, setup=[], script={}, ttl_s=3600)
    return _schema(request, app,
                   _config({INTERNAL_HEADER: SECRET, EPISODE_HEADER: EPISODE}, real={}))


@pytest.fixture
def gym(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The gym API as its operator reaches it: the API key as a bearer token."""
    from workgym.app import create_app

    server = create_app(Settings(data_dir=tmp_path, internal_secret=SECRET, framework_apps=True))
    assert server.gym is not None
    auth = {"Authorization": f"Bearer {server.settings.api_key}"}
    tasks, apps = [task.id for task in server.gym.state.service.catalogue], sorted(app_names())
    # Through schemathesis's client: the app runs on the event loop the fuzzer's requests use.
    # (schemathesis types an ASGI app's send() as taking a dict, Starlette as taking any
    # MutableMapping: the same protocol.)
    with asgi.get_client(server.gym) as client:  # type: ignore[arg-type]
        created = client.post("/v1/episodes", json={"task": tasks[0], "seed": 1}, headers=auth)
    assert created.status_code == 201, created.text
    real = {"body.task": tasks, "path.app": apps,
            "path.episode_id": [created.json()["id"]]}
    return _schema(request, server.gym, _config(auth, real))


FUZZ = settings(max_examples=MAX_EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))


def _call_and_validate(case: schemathesis.Case) -> None:
    case.call_and_validate()


test_replica_api_answers_as_documented = FUZZ(
    schemathesis.pytest.from_fixture("replica").parametrize()(_call_and_validate))
test_gym_api_answers_as_documented = FUZZ(
    schemathesis.pytest.from_fixture("gym").parametrize()(_call_and_validate))
