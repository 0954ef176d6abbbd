"""The replica contract (replicas/README.md), checked on every app of the catalogue, the
framework's test app included: the package's shape as the README's table states it; every
operation, parameter and schema property described;
the same seed gives the same world, byte for byte, and different seeds differ; snapshots
carry the change log; /_env refuses callers without the internal credential; the brief is
there, the probe and every factory work, and every task's actors validate; canonical and
bounded integers; every agent-facing status documented; undecodable bodies named; no
redirects."""

from __future__ import annotations

import ast
import importlib
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from openapi_spec_validator import validate

from replicas.catalog import app_names, spec
from replicas.runtime import changes
from replicas.runtime.app import create_replica_app
from replicas.runtime.clock import WORLD_START
from replicas.runtime.errors import WORKGYM_ERRORS
from replicas.runtime.generation import WorldGeneration
from replicas.runtime.params import CANONICAL_INTEGER, MAX_ID
from replicas.runtime.setup import apply_ops, parse_ops
from replicas.runtime.setup import schema as tables_of
from replicas.runtime.snapshots import SnapshotCache, load
from replicas.runtime.spec import actors_model, read_brief, read_manifest
from workgym.tasks import catalogue
from workgym_core.errors import InvalidRequest, WorkGymError
from workgym_core.internal import EPISODE_HEADER, INTERNAL_HEADER
from workgym_core.settings import Settings

pytestmark = pytest.mark.anyio

SECRET = "contract-secret"
EPISODE = "contract"
HEADERS = {INTERNAL_HEADER: SECRET, EPISODE_HEADER: EPISODE}
# Spellings of 1 that lax integer parsing accepts; only "1" may reach the record.
ALIASES = ("+1", "1.0", " 1", "01")
# What the proxy in front of every replica can answer on any request (and the replica 404/422).
PROXY_STATUSES = {401, 404, 409, 410, 413, 422, 429, 431, 500, 502, 503, 504}
_METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


APPS = sorted(app_names())
REPLICAS = Path(__file__).resolve().parents[2] / "replicas"


@pytest.fixture(scope="module", params=APPS)
def replica(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    data_dir: Path = tmp_path_factory.mktemp(request.param)
    app = create_replica_app(spec(request.param),
                             Settings(data_dir=data_dir, internal_secret=SECRET))
    app.state.store.create(EPISODE, seed=1, setup=[], script={}, ttl_s=3600)
    return app


@pytest.fixture
async def client(replica: FastAPI, anyio_backend: str) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=replica)
    async with httpx.AsyncClient(transport=transport, base_url="http://replica",
                                 headers=HEADERS) as client:
        yield client


# ---------------------------------------------------------------------------------------------
# The package's shape
# ---------------------------------------------------------------------------------------------

_ROW = re.compile(r"^\| `([^`]+)` \| (required|optional) \|", re.MULTILINE)


def shape(readme: str) -> dict[str, bool]:
    """The entries of an app's folder, as replicas/README.md's table states them: name (a
    folder's ends in ``/``) -> required."""
    section = readme.split("## The package shape", 1)[1].split("\n## ", 1)[0]
    return {name: kind == "required" for name, kind in _ROW.findall(section)}


def off_shape(folder: Path, documented: dict[str, bool]) -> list[str]:
    """What ``folder`` (an app) lacks or has beyond its shape: a required entry missing, or
    an entry neither documented nor a module or package its README.md names."""
    readme = (folder / "README.md").read_text(encoding="utf-8") \
        if (folder / "README.md").is_file() else ""
    found = {p.name + "/" if p.is_dir() else p.name for p in folder.iterdir()
             if p.name != "__pycache__" and not p.name.startswith(".")}
    wrong = [f"{name} is missing" for name, required in documented.items()
             if required and name not in found]
    for name in sorted(found - set(documented)):
        stem = name.removesuffix("/").removesuffix(".py")
        module = name.endswith(".py") or (folder / name / "__init__.py").is_file()
        if not (module and re.search(rf"`{re.escape(stem)}(\.py|/)`", readme)):
            wrong.append(f"{name} is not in the shape (replicas/README.md), nor a module "
                         "its README.md names")
    if "schemas.py" in found and "schemas/" in found:
        wrong.append("schemas.py and schemas/: one or the other")
    return wrong


SHAPE = shape((REPLICAS / "README.md").read_text(encoding="utf-8"))


def test_the_readme_states_the_shape() -> None:
    assert {"__init__.py", "spec.py", "models.py", "seed/", "routes/"} <= {
        name for name, required in SHAPE.items() if required}
    assert {"pages/", "app.yaml", "render.py", "errors.py"} <= set(SHAPE)


def test_the_shape_check_names_what_is_off(tmp_path: Path) -> None:
    for name in ("spec.py", "notes.txt", "extra.py", "helpers.py", "schemas.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "schemas").mkdir()
    (tmp_path / "README.md").write_text("| `helpers.py` | its helpers |")
    assert off_shape(tmp_path, {"spec.py": True, "models.py": True, "README.md": True,
                                "schemas.py": False, "schemas/": False}) == [
        "models.py is missing",
        "extra.py is not in the shape (replicas/README.md), nor a module its README.md names",
        "notes.txt is not in the shape (replicas/README.md), nor a module its README.md names",
        "schemas.py and schemas/: one or the other"]


@pytest.mark.parametrize("app", APPS)
def test_the_app_has_the_documented_shape(app: str) -> None:
    folder = REPLICAS / app
    assert off_shape(folder, SHAPE) == []
    init = ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))
    assert len(init.body) == 1 and isinstance(init.body[0], ast.Expr) \
        and isinstance(init.body[0].value, ast.Constant), "__init__.py is a docstring only"
    outside = [str(path.relative_to(folder)) for path in sorted(folder.rglob("*"))
               if path.is_file() and path.suffix in (".py", ".md", ".yaml", ".html")
               and "/work/" in path.read_text(encoding="utf-8")]
    assert outside == [], "notes outside the repository: write what they say here"


# ---------------------------------------------------------------------------------------------
# Walking the OpenAPI document
# ---------------------------------------------------------------------------------------------

Operation = tuple[str, str, dict[str, Any]]


def operations(doc: dict[str, Any]) -> Iterator[Operation]:
    for path, item in doc["paths"].items():
        for method in _METHODS:
            if method in item:
                yield method, path, item[method]


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    ref = schema.get("$ref")
    if ref is None:
        return schema, None
    name = ref.rsplit("/", 1)[-1]
    return doc["components"]["schemas"][name], name


def integers(doc: dict[str, Any], schema: dict[str, Any], where: str,
             seen: frozenset[str] = frozenset()) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every integer schema reachable from ``schema`` ($refs resolved), with where it is."""
    schema, name = _resolve(doc, schema)
    if name in seen:
        return
    seen = seen | {name} if name else seen
    kinds = schema.get("type", [])
    if "integer" in (kinds if isinstance(kinds, list) else [kinds]):
        yield where, schema
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            yield from integers(doc, sub, where, seen)
    for prop, sub in schema.get("properties", {}).items():
        yield from integers(doc, sub, f"{where}.{prop}", seen)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from integers(doc, schema[key], f"{where}[]", seen)


def request_integers(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every integer a request can carry: parameters and JSON bodies, nested."""
    for method, path, op in operations(doc):
        for param in op.get("parameters", []):
            yield from integers(doc, param["schema"],
                                f"{method.upper()} {path} {param['in']} {param['name']}")
        for media in op.get("requestBody", {}).get("content", {}).values():
            yield from integers(doc, media["schema"], f"{method.upper()} {path} body")


def integer_params(doc: dict[str, Any]) -> Iterator[tuple[Operation, dict[str, Any]]]:
    """(operation, parameter) for every integer path and query parameter."""
    for operation in operations(doc):
        for param in operation[2].get("parameters", []):
            if param["in"] in ("path", "query") and any(
                    True for _ in integers(doc, param["schema"], param["name"])):
                yield operation, param


def _wordless(body: Any) -> Any:
    """An error body without its words (message, description): what a client branches on,
    in the app's style (WorkGym's and Stripe's error object, Zendesk's error name and
    details)."""
    if isinstance(body, dict):
        return {k: len(v) if k == "errorMessages" and isinstance(v, list)  # Jira's words
                else sorted(v) if k == "errors" and isinstance(v, dict)
                else _wordless(v) for k, v in body.items()
                if k not in ("message", "description")}
    if isinstance(body, list):
        return [_wordless(item) for item in body]
    return body


def refusal(replica: FastAPI, error: WorkGymError) -> tuple[int, Any]:
    """How the app answers ``error`` in its error style (WorkGym's, or its product's):
    status and error body, without the words."""
    style = replica.state.store.spec.errors or WORKGYM_ERRORS
    response = style.render(error)
    return response.status_code, _wordless(json.loads(bytes(response.body)))


def refused(response: httpx.Response) -> tuple[int, Any]:
    """What the app answered, as :func:`refusal` gives it."""
    return response.status_code, _wordless(response.json())


def url(path: str, op: dict[str, Any], **values: str) -> str:
    """``path`` with every path parameter filled: ``values`` or a canonical 1."""
    for param in op.get("parameters", []):
        if param["in"] == "path":
            path = path.replace("{" + param["name"] + "}", values.get(param["name"], "1"))
    return path


# ---------------------------------------------------------------------------------------------
# The document
# ---------------------------------------------------------------------------------------------


def test_every_operation_and_parameter_is_described(replica: FastAPI) -> None:
    doc = replica.openapi()
    ids = []
    for method, path, op in operations(doc):
        assert not path.startswith("/_env"), path
        assert re.fullmatch(r"[a-z][a-z0-9_]*", op["operationId"]), (method, path)
        assert op.get("summary") and op.get("description"), op["operationId"]
        for param in op.get("parameters", []):
            assert param.get("description"), (op["operationId"], param["name"])
        ids.append(op["operationId"])
    assert len(ids) == len(set(ids)), "operation ids are unique (they name the tools)"
    undescribed = [f"{name}.{prop}" for name, schema in doc["components"]["schemas"].items()
                   for prop, body in schema.get("properties", {}).items()
                   if not body.get("description")]
    assert not undescribed


@pytest.mark.parametrize("app", APPS)
def test_the_same_seed_gives_the_same_bytes_and_seeds_differ(app: str, tmp_path: Path) -> None:
    built = [SnapshotCache(spec(app), tmp_path / str(n), size=1).pristine(seed)
             for n, seed in enumerate((5, 5, 6))]
    assert built[0] == built[1]
    assert built[0] != built[2]


@pytest.mark.parametrize("app", APPS)
def test_a_snapshot_carries_the_change_log(app: str, tmp_path: Path) -> None:
    conn = load(SnapshotCache(spec(app), tmp_path, size=1).pristine(2))
    tables = tables_of(conn)
    triggers = {row["name"] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert tables and "_changes" not in tables
    assert {f"_log_{t}_{op}" for t in tables for op in ("insert", "update", "delete")} <= triggers


async def test_env_refuses_callers_without_the_internal_credential(replica: FastAPI) -> None:
    transport = httpx.ASGITransport(app=replica)
    async with httpx.AsyncClient(transport=transport, base_url="http://replica") as client:
        for headers in ({}, {INTERNAL_HEADER: "wrong"}):
            for method, path in (("POST", "/_env/episodes"), ("GET", "/_env/schema"),
                                 ("GET", f"/_env/episodes/{EPISODE}/state/final"),
                                 ("DELETE", f"/_env/episodes/{EPISODE}")):
                answer = await client.request(method, path, headers=headers, json={})
                # Internal routes answer in WorkGym's body, whatever the app's style.
                assert answer.json()["error"]["code"] == "internal_only"
            for method, path, op in operations(replica.openapi()):
                answer = await client.request(method.upper(), url(path, op),
                                              headers={**headers, EPISODE_HEADER: EPISODE})
                assert answer.status_code == 403, (method, path, headers)


@pytest.mark.parametrize("app", APPS)
def test_the_brief_probe_and_factories_work(app: str, tmp_path: Path) -> None:
    found = spec(app)
    assert len(read_brief(app)) > 40, "brief.md says who the agent is and where"
    conn = load(SnapshotCache(found, tmp_path, size=1).pristine(3))
    probe = parse_ops([found.probe])
    assert apply_ops(conn, probe, WORLD_START, seed=3, factories=found.factories) == {}
    assert changes.since(conn, 0)[0], "the probe changes the world"
    ops = [{"factory": name, "bind": name} for name in found.factories]
    bound = apply_ops(conn, parse_ops(ops), WORLD_START, factories=found.factories, seed=3)
    assert set(bound) == set(found.factories)


@pytest.mark.parametrize("app", APPS)
def test_every_tasks_actors_validate(app: str) -> None:
    model = actors_model(app)
    for task in catalogue():
        if task.actors_of(app):
            assert model is not None, f"{task.id}: {app} has no actors model"
            model.model_validate(task.actors_of(app))


def test_the_document_is_valid_openapi(replica: FastAPI) -> None:
    validate(replica.openapi())


def test_every_integer_parameter_is_canonical_and_bounded(replica: FastAPI) -> None:
    doc = replica.openapi()
    params = list(integer_params(doc))
    assert params
    for (method, path, _), param in params:
        for where, schema in integers(doc, param["schema"], f"{method} {path} {param['name']}"):
            assert schema.get("pattern") == CANONICAL_INTEGER, where
            assert "maximum" in schema, where


def test_every_request_integer_is_bounded(replica: FastAPI) -> None:
    found = list(request_integers(replica.openapi()))
    assert found
    unbounded = [where for where, schema in found if schema.get("maximum", MAX_ID + 1) > MAX_ID]
    assert not unbounded


def test_every_operation_documents_what_an_agent_can_get(replica: FastAPI) -> None:
    doc = replica.openapi()
    app = replica.state.store.spec.name
    assert "HTTPValidationError" not in str(doc)  # FastAPI's {"detail": [...]}: never sent
    for method, path, op in operations(doc):
        expected = PROXY_STATUSES | ({400} if "requestBody" in op else set())
        documented = {int(status) for status in op["responses"]}
        assert expected <= documented, (method, path, expected - documented)
        for status in expected:
            schema = op["responses"][str(status)]["content"]["application/json"]["schema"]
            error, _ = _resolve(doc, schema)
            # The product's body, which must also read the gateway's: its own refusals in the
            # product's body (app.yaml's gateway.errors), else WorkGym's {"error": {...}}.
            gateway = set(read_manifest(app).gateway.get("errors", {}).get("body", {"error": 0}))
            assert gateway <= set(error["properties"]), (method, path, status)
            assert set(error.get("required", [])) <= gateway, (method, path, status)


# ---------------------------------------------------------------------------------------------
# The app
# ---------------------------------------------------------------------------------------------


async def test_integer_aliases_are_refused_and_change_nothing(
    replica: FastAPI, client: httpx.AsyncClient
) -> None:
    episode = replica.state.store.get(EPISODE)
    before = episode.state()
    doc = replica.openapi()
    for (method, path, op), param in integer_params(doc):
        name = param["name"]
        body: dict[str, Any] | None = {} if "requestBody" in op else None
        for alias in ALIASES:
            if param["in"] == "path":
                response = await client.request(method, url(path, op, **{name: alias}), json=body)
            else:
                response = await client.request(method, url(path, op), params={name: alias},
                                                json=body)
            expected = refusal(replica, InvalidRequest(
                "", code="validation_error", field=name, rule="canonical_integer"))
            assert refused(response) == expected, (method, path, name, alias, response.text)
    assert episode.state() == before


async def test_an_undecodable_body_is_a_documented_400(
    replica: FastAPI, client: httpx.AsyncClient
) -> None:
    # JSON bodies (not a multipart upload's: the tracker's attachments)
    bodies = [(method, path, op) for method, path, op in operations(replica.openapi())
              if "application/json" in op.get("requestBody", {}).get("content", {})]
    assert bodies
    for method, path, op in bodies:
        response = await client.request(method, url(path, op), content=b'{"a": "\xff\xfe"}',
                                        headers={"content-type": "application/json"})
        assert response.status_code == 400, (method, path, response.text)
        assert refused(response) == refusal(replica, WorkGymError(
            "", code="malformed_body", field="body", rule="utf-8")), response.text
        response = await client.request(method, url(path, op), content=b'{"a": ',
                                        headers={"content-type": "application/json"})
        assert refused(response) == refusal(replica, InvalidRequest(
            "", code="malformed_json", field="body", rule="json_invalid")), response.text


async def test_a_trailing_slash_is_a_json_404_not_a_redirect(
    replica: FastAPI, client: httpx.AsyncClient
) -> None:
    for method, path, op in operations(replica.openapi()):
        response = await client.request(method, url(path, op) + "/")
        assert response.status_code == 404, (method, path, response.status_code)
        assert "location" not in response.headers
        not_found = WorkGymError("", code="not_found")
        not_found.status_code = 404
        assert refused(response) == refusal(replica, not_found), (method, path)


@pytest.mark.parametrize("app", [a for a in APPS
                                 if (REPLICAS / a / "seed" / "common.py").is_file()])
def test_a_world_generator_run_is_the_runtimes(app: str) -> None:
    """An app's generation state (``seed/common.py``) extends the runtime's: the random
    stream, clock, static material, identity and tables every app's generator has."""
    common = importlib.import_module(f"replicas.{app}.seed.common")
    assert issubclass(common.Generation, WorldGeneration), app
