"""The adapters' tests: their in-process sessions use the process's default in-process
server (``workgym.local.local_server()``), so its data directory is the test run's own."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def _default_server_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    data = tmp_path_factory.mktemp("adapters-gym")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKGYM_DATA_DIR", str(data))
        yield data


@pytest.fixture(scope="session", autouse=True)
def _fastmcp_imported_quietly() -> None:
    """fastmcp (under OpenEnv and verifiers, which the tests import, not collection) sets its
    deprecation warnings to "default" when first imported: imported here, that filter ends with
    this block, and the run's (error) and the tests' marks hold."""
    with warnings.catch_warnings():
        import fastmcp  # noqa: F401
