"""What the runtime guarantees every replica app, checked on each app of the catalogue:
canonical and bounded integers, every agent-facing status documented, undecodable bodies
named, no redirects."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from openapi_spec_validator import validate

from replicas.catalog import app_names, spec
from replicas.runtime.app import create_replica_app
from replicas.runtime.params import CANONICAL_INTEGER, MAX_ID
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


@pytest.fixture(scope="module", params=sorted(app_names()))
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


def url(path: str, op: dict[str, Any], **values: str) -> str:
    """``path`` with every path parameter filled: ``values`` or a canonical 1."""
    for param in op.get("parameters", []):
        if param["in"] == "path":
            path = path.replace("{" + param["name"] + "}", values.get(param["name"], "1"))
    return path


# ---------------------------------------------------------------------------------------------
# The document
# ---------------------------------------------------------------------------------------------


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
    assert "HTTPValidationError" not in str(doc)  # FastAPI's {"detail": [...]}: never sent
    for method, path, op in operations(doc):
        expected = PROXY_STATUSES | ({400} if "requestBody" in op else set())
        documented = {int(status) for status in op["responses"]}
        assert expected <= documented, (method, path, expected - documented)
        for status in expected:
            schema = op["responses"][str(status)]["content"]["application/json"]["schema"]
            error, _ = _resolve(doc, schema)
            assert set(error["required"]) == {"error"}, (method, path, status)


# ---------------------------------------------------------------------------------------------
# The app
# ---------------------------------------------------------------------------------------------


async def test_integer_aliases_are_refused_and_change_nothing(
    replica: FastAPI, client: httpx.AsyncClient
) -> None:
    episode = replica.state.store.get(EPISODE)
    before = episode.db.serialize()
    doc = replica.openapi()
    for (method, path, op), param in integer_params(doc):
        name = param["name"]
        body = {} if "requestBody" in op else None
        for alias in ALIASES:
            if param["in"] == "path":
                response = await client.request(method, url(path, op, **{name: alias}), json=body)
            else:
                response = await client.request(method, url(path, op), params={name: alias},
                                                json=body)
            assert response.status_code == 422, (method, path, name, alias, response.text)
            error = response.json()["error"]
            assert (error["field"], error["rule"]) == (name, "canonical_integer"), error
    assert episode.db.serialize() == before


async def test_an_undecodable_body_is_a_documented_400(
    replica: FastAPI, client: httpx.AsyncClient
) -> None:
    bodies = [(method, path, op) for method, path, op in operations(replica.openapi())
              if "requestBody" in op]
    assert bodies
    for method, path, op in bodies:
        response = await client.request(method, url(path, op), content=b'{"a": "\xff\xfe"}',
                                        headers={"content-type": "application/json"})
        assert response.status_code == 400, (method, path, response.text)
        error = response.json()["error"]
        assert (error["code"], error["field"]) == ("malformed_body", "body"), error
        response = await client.request(method, url(path, op), content=b'{"a": ',
                                        headers={"content-type": "application/json"})
        assert response.status_code == 422, (method, path, response.text)
        assert response.json()["error"]["code"] == "malformed_json"


async def test_a_trailing_slash_is_a_json_404_not_a_redirect(
    replica: FastAPI, client: httpx.AsyncClient
) -> None:
    for method, path, op in operations(replica.openapi()):
        response = await client.request(method, url(path, op) + "/")
        assert response.status_code == 404, (method, path, response.status_code)
        assert "location" not in response.headers
        assert response.json()["error"]["code"] == "not_found"
