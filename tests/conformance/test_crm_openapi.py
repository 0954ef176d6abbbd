"""The CRM serves the API its source describes: every path, method, operationId and parameter
of ``replicas/crm/source/openapi.yaml`` is in the served OpenAPI document
(``create_replica_app(SPEC).openapi()``), and nothing more under the API's prefixes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from replicas.crm.spec import SPEC
from replicas.runtime.app import create_replica_app
from workgym_core.settings import Settings

SOURCE = Path(__file__).parents[2] / "replicas" / "crm" / "source" / "openapi.yaml"
METHODS = ("get", "post", "put", "patch", "delete")


def _operations(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(METHOD, path) -> the operation, for the API's paths (not the runtime's /_env)."""
    return {(method.upper(), path): operation
            for path, item in document["paths"].items() if path.startswith("/crm/")
            for method, operation in item.items() if method in METHODS}


def _parameters(document: dict[str, Any], operation: dict[str, Any]) -> set[tuple[str, str,
                                                                                   bool]]:
    """(name, in, required) of each parameter, ``$ref`` resolved."""
    found = set()
    for parameter in operation.get("parameters", []):
        if "$ref" in parameter:
            parameter = document["components"]["parameters"][parameter["$ref"].split("/")[-1]]
        found.add((parameter["name"], parameter["in"], bool(parameter.get("required"))))
    return found


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    app = create_replica_app(SPEC, Settings(data_dir=tmp_path_factory.mktemp("crm"),
                                            internal_secret="s"))
    return app.openapi()


def test_the_served_api_is_the_source_description(served: dict[str, Any]) -> None:
    source = yaml.safe_load(SOURCE.read_text())
    described, answered = _operations(source), _operations(served)
    assert sorted(answered) == sorted(described)
    for key, operation in described.items():
        assert answered[key]["operationId"] == operation["operationId"], key
        assert _parameters(served, answered[key]) == _parameters(source, operation), key
        assert answered[key]["summary"] == operation["summary"], key
        assert ("requestBody" in answered[key]) == ("requestBody" in operation), key
        success = {s for s in operation["responses"] if s.startswith("2")}
        assert success <= set(answered[key]["responses"]), key


def test_the_served_bodies_are_named_as_hubspots(served: dict[str, Any]) -> None:
    """The request and answer schemas carry HubSpot's names (the client's model names)."""
    source = yaml.safe_load(SOURCE.read_text())
    for key, operation in _operations(source).items():
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body and "$ref" in body["schema"]:
            answered = _operations(served)[key]["requestBody"]["content"]["application/json"]
            assert answered["schema"]["$ref"] == body["schema"]["$ref"], key
    assert {"SimplePublicObject", "PublicObjectSearchRequest", "Filter", "FilterGroup", "Error",
            "BatchResponseSimplePublicObject", "LabelsBetweenObjectPair", "Pipeline",
            "PublicOwner"} <= set(served["components"]["schemas"])
