"""Fixtures shared by every test: factories over one in-process WorkGym server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from workgym.local import BASE_URL, LocalServer
from workgym.runtime.settings import Settings
from workgym.sdk import Env


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(data_dir=tmp_path_factory.mktemp("workgym"), internal_secret="test-secret")


@pytest.fixture(scope="session")
def local(settings: Settings) -> Iterator[LocalServer]:
    server = LocalServer(settings)
    yield server
    server.close()


@pytest.fixture
def make_env(local: LocalServer) -> Iterator[Callable[..., Env]]:
    """Factory: an in-process environment of a task; closed after the test."""
    made: list[Env] = []

    def factory(task: str, seed: int = 0, faults: str | list[dict[str, object]] = "task") -> Env:
        env = Env(local, BASE_URL, task, seed, faults)
        made.append(env)
        return env

    yield factory
    for env in made:
        if env.observation is not None:
            env.close()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path
