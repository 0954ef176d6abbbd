"""Written episodes past the instance's ``hot_episodes`` are closed, keeping only the pages they
changed, and opened again on their next request: exactly as if they had stayed open."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from collections.abc import Callable, Iterator

import httpx
import pytest

from replicas.runtime.episode import Episode
from replicas.runtime.pagediff import page_size
from replicas.runtime.store import EpisodeStore
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core.settings import Settings

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone
SEED = 3
CEILING = 100_000  # bytes an episode may grow: ~25 long comments


@pytest.fixture(scope="module")
def cold_local(settings: Settings) -> Iterator[LocalServer]:
    """A server keeping one written episode open per replica instance."""
    server = LocalServer(settings.model_copy(update={
        "hot_episodes": 1, "episode_storage_bytes": CEILING}))
    yield server
    server.close()


@pytest.fixture
def env(cold_local: LocalServer) -> Iterator[Callable[[], Env]]:
    made: list[Env] = []

    def factory() -> Env:
        made.append(Env.inprocess(cold_local, TASK, SEED, "none"))
        made[-1].reset()
        return made[-1]

    yield factory
    for each in made:
        each.close()


def _store(local: LocalServer) -> EpisodeStore:
    store: EpisodeStore = local.server.replicas["helpdesk"].state.store
    return store


def _tickets(env: Env) -> list[int]:
    found = env.call("GET", "/api/v2/search",
                     params={"query": "type:ticket status:open", "per_page": 5}).json()
    return [ticket["id"] for ticket in found["results"]]


def _note(env: Env, ticket: int, body: str) -> httpx.Response:
    return env.call("PUT", f"/api/v2/tickets/{ticket}", json={"ticket": {"comment": {
        "body": body, "public": False}}})


def _written(local: LocalServer, env: Callable[[], Env], count: int) -> list[Episode]:
    """``count`` episodes, each written once, in turn (the last one's database open)."""
    envs = [env() for _ in range(count)]
    for each in envs:
        assert _note(each, _tickets(each)[0], "a note").status_code == 200
    return [_store(local).get(e.observation.episode_id) for e in envs]  # type: ignore[union-attr]


def test_a_closed_episode_opened_again_is_as_if_it_had_stayed_open(
        cold_local: LocalServer, env: Callable[[], Env]) -> None:
    store = _store(cold_local)
    closed, other, stayed = env(), env(), env()
    tickets = _tickets(closed)
    assert _tickets(stayed) == tickets
    answers = []
    for i, ticket in enumerate(tickets):  # each of closed's writes closes the other's
        answers.append(_note(closed, ticket, f"note {i}"))
        assert _note(other, ticket, "in between").status_code == 200
        episode = store.get(closed.observation.episode_id)  # type: ignore[union-attr]
        assert episode.own is None and episode.cold is not None
        assert episode.cold.nbytes < 0.3 * 2**20
    # The same writes in one go: ``stayed`` is open throughout.
    assert [_note(stayed, ticket, f"note {i}").json() for i, ticket in enumerate(tickets)] == [
        answer.json() for answer in answers]
    ids = [e.observation.episode_id for e in (closed, stayed)]  # type: ignore[union-attr]
    assert store.get(ids[1]).own is not None and store.get(ids[0]).own is None
    assert store.get(ids[0]).state() == store.get(ids[1]).state()
    # Read again (opened), it answers as the open one does.
    path = f"/api/v2/tickets/{tickets[0]}/comments"
    assert closed.call("GET", path).json() == stayed.call("GET", path).json()
    first, second = closed.finish(), stayed.finish()
    assert first["final_state_hash"] == second["final_state_hash"] != ""
    assert first["reward"] == second["reward"]


def test_no_more_than_hot_episodes_stay_open_and_delete_frees_them(
        cold_local: LocalServer, env: Callable[[], Env]) -> None:
    store = _store(cold_local)
    episodes = _written(cold_local, env, 3)
    assert [e.own is not None for e in episodes] == [False, False, True]
    assert list(store._hot) == [episodes[2].id]
    # Its database is in the connection of the episode it closed: the settings stand.
    conn = episodes[2].own
    assert conn is not None
    assert conn.execute("PRAGMA foreign_keys").fetchone()["foreign_keys"] == 1
    assert conn.getlimit(sqlite3.SQLITE_LIMIT_ATTACHED) == 0
    pages = conn.execute("PRAGMA max_page_count").fetchone()["max_page_count"]
    assert pages == (len(episodes[2].initial) + CEILING) // page_size(episodes[2].initial)
    for episode in episodes[1:]:
        assert store.delete(episode.id)
    assert not store._hot and store.peek(episodes[2].id) is None


def test_a_closed_episode_keeps_its_storage_ceiling(
        cold_local: LocalServer, env: Callable[[], Env]) -> None:
    store = _store(cold_local)
    filling, other = env(), env()
    ticket, text = _tickets(filling)[0], "x" * 4000
    episode = store.get(filling.observation.episode_id)  # type: ignore[union-attr]
    for _ in range(100):  # ~25 fit
        before = episode.state()
        answer = _note(filling, ticket, text)
        if answer.status_code >= 400:
            break
        assert _note(other, ticket, "in between").status_code == 200  # closes ``filling``
        assert episode.own is None
    assert answer.status_code == 400 and answer.json()["error"] == "InvalidValue", answer.text
    assert episode.state() == before


def test_what_an_episode_wrote_open_or_closed_gives_a_copy_its_state(
        cold_local: LocalServer, env: Callable[[], Env]) -> None:
    """``Episode.written()``: what a fork is made from."""
    closed, open_ = _written(cold_local, env, 2)
    assert closed.own is None and open_.own is not None
    for episode in (closed, open_):
        copy = dataclasses.replace(episode, id=f"{episode.id}-copy", own=None,
                                   cold=episode.written(), lock=asyncio.Lock())
        assert copy.state() == episode.state() != episode.initial
