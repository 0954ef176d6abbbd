"""A replica's OpenAPI document built ahead of time (``workgym prebuild APP``): served while
it was built from this code, never once a file or a library it depends on differs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fastapi
import pytest

from replicas.catalog import spec
from replicas.runtime import openapi_cache
from replicas.runtime.app import build_openapi, create_replica_app
from workgym_core.settings import Settings

APP = "notes"  # the framework's smallest app
MARKED = {"openapi": "3.1.0", "info": {"title": "stored"}, "paths": {}}


def served(data_dir: Path) -> dict[str, Any]:
    """The document a new instance of the app serves (FastAPI's /openapi.json route calls
    this method)."""
    return create_replica_app(spec(APP), Settings(data_dir=data_dir)).openapi()


def test_an_instance_serves_the_document_stored_for_its_code(tmp_path: Path) -> None:
    openapi_cache.write(tmp_path, APP, MARKED)
    assert served(tmp_path) == MARKED


def test_a_document_stored_for_other_library_versions_is_never_served(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    openapi_cache.write(tmp_path, APP, MARKED)
    monkeypatch.setattr(fastapi, "__version__", "0.0.0")
    assert served(tmp_path)["info"]["title"] != "stored"


def test_the_digest_covers_every_file_the_document_is_built_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = {p.relative_to(Path(__file__).parents[3]).as_posix()
             for p in openapi_cache.sources(APP)}
    assert {f"replicas/{APP}/spec.py", f"replicas/{APP}/app.yaml", "replicas/runtime/openapi.py",
            "replicas/catalog.py", "services/workgym_core/errors.py"} <= names
    assert not any("__pycache__" in name for name in names)
    assert not any(name.startswith("replicas/helpdesk/") for name in names)
    source = tmp_path / "routes.py"
    source.write_text("A = 1\n")
    monkeypatch.setattr(openapi_cache, "sources", lambda app: [source])
    monkeypatch.setattr(openapi_cache, "_REPLICAS", tmp_path)
    before = openapi_cache.digest(APP)
    source.write_text("A = 2\n")
    assert openapi_cache.digest(APP) != before


def test_a_stored_document_that_is_not_json_is_ignored(tmp_path: Path) -> None:
    path = openapi_cache.cache_path(tmp_path, APP)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"{truncated")
    assert served(tmp_path)["info"]["title"] == spec(APP).title


def test_the_stored_document_is_the_one_the_app_builds(tmp_path: Path) -> None:
    app = create_replica_app(spec(APP), Settings(data_dir=tmp_path))
    built = build_openapi(app, spec(APP))
    openapi_cache.write(tmp_path, APP, built)
    assert openapi_cache.read(tmp_path, APP) == built == app.openapi()
    operations = [op for item in built["paths"].values() for op in item.values()]
    assert operations and all("422" in op["responses"] for op in operations)
