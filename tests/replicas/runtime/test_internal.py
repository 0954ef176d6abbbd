"""The replica's internal create route: a setup may refer to the rows other apps of the
episode bound (``others``); a task's scripted actors are checked by the app's model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from replicas.runtime.app import create_replica_app
from tests.replicas.runtime.toy_app import SPEC
from workgym_core.internal import INTERNAL_HEADER
from workgym_core.settings import Settings

pytestmark = pytest.mark.anyio

SECRET = "internal-secret"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(tmp_path: Path, anyio_backend: str) -> AsyncIterator[httpx.AsyncClient]:
    app = create_replica_app(SPEC, Settings(data_dir=tmp_path, internal_secret=SECRET))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://toy",
                                 headers={INTERNAL_HEADER: SECRET}) as client:
        yield client


async def create(client: httpx.AsyncClient, episode_id: str, **body: Any) -> httpx.Response:
    return await client.post("/_env/episodes",
                             json={"episode_id": episode_id, "seed": 1, **body})


async def test_a_setup_refers_to_another_apps_rows(client: httpx.AsyncClient) -> None:
    setup = [{"bind": "p", "insert": "people", "values": {"name": "$checkout.order.number"}},
             {"bind": "q", "factory": "person", "boss": True}]
    others = {"checkout": {"order": {"id": 9, "number": "A-10423"}}}
    created = await create(client, "e1", setup=setup, others=others)
    assert created.status_code == 201, created.text
    bound = created.json()["vars"]
    assert bound["p"]["name"] == "A-10423" and bound["q"]["boss_id"] == 1
    # Another world of other apps' rows is another prepared snapshot.
    elsewhere = await create(client, "e2", setup=setup,
                             others={"checkout": {"order": {"id": 9, "number": "A-2"}}})
    assert elsewhere.json()["snapshot_key"] != created.json()["snapshot_key"]


async def test_an_unknown_other_app_is_named(client: httpx.AsyncClient) -> None:
    refused = await create(client, "e3", setup=[
        {"insert": "people", "values": {"name": "$tracker.bug.id"}}])
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "bad_reference"
    assert "no app 'tracker'" in refused.json()["error"]["message"]


async def test_an_app_without_actors_refuses_a_script(client: httpx.AsyncClient) -> None:
    refused = await create(client, "e4", script={"customer": {"ticket": 1}})
    assert refused.status_code == 422
    assert refused.json()["error"]["field"] == "script"
