"""The tracker's row factories, applied as a task's setup is (replicas.runtime.setup.apply_ops
on a seeded world): an issue takes its project's next key and bumps the counter, starts in its
workflow's initial status unless told, comes resolved in a done status (with that status in
its history), joins the board's active or future sprint on request, and its ``text`` is stored
as ADF; comments and remote links to helpdesk tickets; the same seed and setup give the same
rows. Then the release actor (developers.py) over HTTP: after the agent's ``after_writes``-th
successful tracker write the developers finish the issues (finished status, resolution Done,
the version among their fix versions, logged by the project's lead, in Jira's changelog
items) and release the version, once."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI

from replicas.runtime.clock import WORLD_START
from replicas.runtime.db import one
from replicas.runtime.setup import apply_ops
from replicas.tracker.factories import FACTORIES
from replicas.tracker.formats import text_to_adf
from replicas.tracker.rules import issues
from workgym_core.errors import InvalidRequest
from workgym_core.internal import BASE_HEADER, EPISODE_HEADER, INTERNAL_HEADER, STEP_HEADER
from workgym_core.rowops import parse_ops

from .conftest import SECRET, seeded

API = "/rest/api/2"
_ids = itertools.count(1)


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    conn = seeded(3)
    yield conn
    conn.close()


def setup(conn: sqlite3.Connection, ops: list[dict[str, Any]], world: int = 3
          ) -> dict[str, Any]:
    return apply_ops(conn, parse_ops(ops), WORLD_START, seed=world, factories=FACTORIES)


def counter(conn: sqlite3.Connection, key: str) -> int:
    return int(conn.execute("SELECT issue_counter FROM projects WHERE key = ?",
                            (key,)).fetchone()["issue_counter"])


def test_an_issue_takes_the_next_key_and_its_workflows_initial_status(
        db: sqlite3.Connection) -> None:
    shop, plat = counter(db, "SHOP"), counter(db, "PLAT")
    made = setup(db, [{"factory": "issue", "bind": "a", "issue_type": "Bug"},
                      {"factory": "issue", "bind": "b", "issue_type": "Story"},
                      {"factory": "issue", "bind": "c", "project": "PLAT"}])
    assert [made[n]["key"] for n in "abc"] == [f"SHOP-{shop + 1}", f"SHOP-{shop + 2}",
                                               f"PLAT-{plat + 1}"]
    assert (counter(db, "SHOP"), counter(db, "PLAT")) == (shop + 2, plat + 1)
    assert [made[n]["status"] for n in "abc"] == ["Open", "Backlog", "Open"]
    assert [made[n]["resolution"] for n in "abc"] == [None, None, None]
    developers = {r["user_id"] for r in db.execute(
        "SELECT user_id FROM project_role_members WHERE project_id = 10000 AND "
        "role = 'Developers'")}
    for name in "ab":
        row = made[name]
        assert row["reporter_id"] in developers and row["reporter_id"] != 1
        assert one(db, "SELECT 1 AS y FROM watchers WHERE issue_id = ? AND user_id = ?",
                   (row["id"], row["reporter_id"])) is not None
        assert one(db, "SELECT 1 AS y FROM changelog WHERE issue_id = ?", (row["id"],)) is None
    assert made["a"]["severity"] in ("S1", "S2", "S3") and made["b"]["severity"] is None
    # The API's next issue follows the factory's.
    after = issues.create(db, {"project": {"key": "SHOP"}, "issuetype": {"name": "Task"},
                               "summary": "Next"}, {}, 1, WORLD_START, adf=False)
    assert after["key"] == f"SHOP-{shop + 3}"


def test_a_done_status_comes_resolved_and_in_the_history(db: sqlite3.Connection) -> None:
    made = setup(db, [{"factory": "issue", "bind": "story", "project": "APP",
                       "issue_type": "Story", "status": "Done"},
                      {"factory": "issue", "bind": "bug", "issue_type": "Bug",
                       "status": "Closed"},
                      {"factory": "issue", "bind": "wip", "issue_type": "Bug",
                       "status": "In Progress"}])
    for name, initial in (("story", "Backlog"), ("bug", "Open")):
        row = made[name]
        assert (row["resolution"], row["resolution_date"]) == ("Done", row["updated_at"])
        [entry] = db.execute("SELECT * FROM changelog WHERE issue_id = ?", (row["id"],))
        assert [(i["fromString"], i["toString"]) for i in orjson.loads(entry["items"])] == [
            (initial, row["status"])]
    assert (made["wip"]["resolution"], made["wip"]["resolution_date"]) == (None, None)


def test_sprint_puts_the_issue_in_the_boards_active_or_future_sprint(
        db: sqlite3.Connection) -> None:
    sprints = {r["state"]: r["id"] for r in db.execute(
        "SELECT s.id, s.state FROM sprints s JOIN boards b ON b.id = s.board_id WHERE "
        "b.project_id = 10001 ORDER BY s.id DESC")}  # the first of each state wins
    made = setup(db, [{"factory": "issue", "bind": "now", "project": "APP", "sprint": "active"},
                      {"factory": "issue", "bind": "next", "project": "APP",
                       "sprint": "future"},
                      {"factory": "issue", "bind": "none", "project": "APP"}])
    assert [made[n]["sprint_id"] for n in ("now", "next", "none")] == [
        sprints["active"], sprints["future"], None]
    for wrong in ({"project": "PLAT", "sprint": "active"}, {"sprint": "closed"}):
        with pytest.raises(InvalidRequest) as refused:
            setup(db, [{"factory": "issue", **wrong}])
        assert refused.value.code == "setup_failed"


def test_text_becomes_adf_and_comments_and_remote_links_come_with_it(
        db: sqlite3.Connection) -> None:
    made = setup(db, [
        {"factory": "issue", "bind": "bug", "issue_type": "Bug", "summary": "Double charge",
         "text": "Ticket 123 says *charged twice*"},
        {"factory": "comment", "bind": "note", "issue_id": "$bug.id", "text": "Reproduced."},
        {"factory": "remote_link", "bind": "link", "issue_id": "$bug.id", "ticket": 123}])
    bug = made["bug"]
    assert orjson.loads(bug["description"]) == text_to_adf("Ticket 123 says *charged twice*")
    assert orjson.loads(bug["description"])["content"][0]["content"] == [
        {"type": "text", "text": "Ticket 123 says "},
        {"type": "text", "text": "charged twice", "marks": [{"type": "strong"}]}]
    assert bug["summary"] == "Double charge"
    note = made["note"]
    assert (note["issue_id"], orjson.loads(note["body"])) == (bug["id"],
                                                              text_to_adf("Reproduced."))
    assert note["author_id"] != 1 and note["created"] >= bug["created"]
    link = made["link"]
    assert {k: link[k] for k in ("issue_id", "ticket_id", "global_id", "url")} == {
        "issue_id": bug["id"], "ticket_id": 123, "global_id": "zendesk-ticket-123",
        "url": "https://shop.zendesk.com/agent/tickets/123"}


def test_the_same_seed_and_setup_give_the_same_rows() -> None:
    ops = [{"factory": "issue", "bind": "a"}, {"factory": "issue", "bind": "b",
                                               "project": "APP", "sprint": "active"},
           {"factory": "comment", "bind": "c", "issue_id": "$a.id"},
           {"factory": "remote_link", "bind": "d"}]
    first, second = seeded(3), seeded(3)
    try:
        assert setup(first, ops) == setup(second, ops)
    finally:
        first.close()
        second.close()


# -- The release actor, over HTTP ------------------------------------------------------------

class Release:
    """An episode of world 1 whose developers release web-2025.7 with a bug and a story of
    the setup after the agent's second write; calls as the proxy forwards them."""

    SETUP = [{"select": "versions", "bind": "fix", "where": {"name": "web-2025.7"}},
             {"factory": "issue", "bind": "bug", "issue_type": "Bug", "status": "In Progress"},
             {"factory": "issue", "bind": "story", "issue_type": "Story", "status": "QA"}]
    SCRIPT = {"release": {"version": "$fix.id", "finish": ["$bug.id", "$story.id"],
                          "after_writes": 2}}

    def __init__(self, client: httpx.AsyncClient, episode_id: str, bound: Any) -> None:
        self.client, self.episode_id, self.step = client, episode_id, 0
        self.bug, self.story = bound["bug"]["key"], bound["story"]["key"]
        self.fix = bound["fix"]["id"]

    async def call(self, method: str, path: str, status: int = 200, **kwargs: Any) -> Any:
        self.step += 1
        response = await self.client.request(method, path, headers={
            INTERNAL_HEADER: SECRET, EPISODE_HEADER: self.episode_id,
            STEP_HEADER: str(self.step), BASE_HEADER: "https://gym.example/apps/tracker"},
            **kwargs)
        assert response.status_code == status, (method, path, response.text)
        return response.json() if response.content else None

    async def write(self) -> None:
        """One successful tracker write of the agent's: a comment on SHOP-5."""
        await self.call("POST", f"{API}/issue/SHOP-5/comment", status=201,
                        json={"body": "Looking into it."})

    async def state(self) -> tuple[Any, Any, bool]:
        """The bug's status and fix version ids, and whether the version is released."""
        fields = (await self.call("GET", f"{API}/issue/{self.bug}"))["fields"]
        released = (await self.call("GET", f"{API}/version/{self.fix}"))["released"]
        return fields["status"]["name"], [v["id"] for v in fields["fixVersions"]], released

    async def by_lead(self, key: str) -> list[dict[str, Any]]:
        """The issue's history entries by the project's lead."""
        lead = (await self.call("GET", f"{API}/project/SHOP"))["lead"]["accountId"]
        history = (await self.call("GET", f"{API}/issue/{key}/changelog"))["values"]
        return [h for h in history if h["author"]["accountId"] == lead]


@pytest.fixture
async def release(app: FastAPI, anyio_backend: str) -> AsyncIterator[Release]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://tracker") as client:
        episode = f"rel{next(_ids)}"
        created = await client.post("/_env/episodes", headers={INTERNAL_HEADER: SECRET},
                                    json={"episode_id": episode, "seed": 1,
                                          "setup": Release.SETUP, "script": Release.SCRIPT})
        assert created.status_code == 201, created.text
        yield Release(client, episode, created.json()["vars"])


@pytest.mark.anyio
async def test_the_release_lands_after_the_second_write_once(release: Release) -> None:
    api, fix = release, str(release.fix)
    assert await api.state() == ("In Progress", [], False)
    await api.write()
    await api.call("PUT", f"{API}/issue/SHOP-5", status=400,  # refused: no write
                   json={"fields": {"resolution": {"name": "Done"}}})
    assert await api.state() == ("In Progress", [], False)
    await api.write()
    released_at = (WORLD_START + timedelta(minutes=api.step)).date().isoformat()
    assert await api.state() == ("Closed", [fix], True)  # the bug workflow's finished status
    for key, status in ((api.bug, "Closed"), (api.story, "Done")):
        fields = (await api.call("GET", f"{API}/issue/{key}"))["fields"]
        assert (fields["status"]["name"], fields["resolution"]["name"],
                [v["id"] for v in fields["fixVersions"]]) == (status, "Done", [fix])
        assert fields["resolutiondate"]
    version = await api.call("GET", f"{API}/version/{fix}")
    assert (version["released"], version["releaseDate"]) == (True, released_at)
    [entry] = await api.by_lead(api.bug)
    items = {i["field"]: (i["fromString"], i["toString"]) for i in entry["items"]}
    assert (items["status"], items["resolution"]) == (("In Progress", "Closed"), (None, "Done"))
    # Once: reopened by the agent, the bug stays reopened through later writes.
    await api.call("POST", f"{API}/issue/{api.bug}/transitions", status=204,
                   json={"transition": {"id": "3"}})
    await api.write()
    again = (await api.call("GET", f"{API}/issue/{api.bug}"))["fields"]
    assert (again["status"]["name"], again["resolution"]) == ("Reopened", None)
    assert len(await api.by_lead(api.bug)) == 1


@pytest.mark.anyio
async def test_the_releases_history_reads_as_jiras(release: Release) -> None:
    await release.write()
    await release.write()
    [entry] = await release.by_lead(release.bug)
    items = {i["field"]: i for i in entry["items"]}
    # Jira's status item: ids in from/to, names in the strings (a real v2 changelog).
    assert {k: items["status"][k] for k in ("from", "fromString", "to", "toString")} == {
        "from": "3", "fromString": "In Progress", "to": "6", "toString": "Closed"}
    # A version added: its id and name, not the stored list.
    assert {k: items["Fix Version"][k] for k in ("from", "fromString", "to", "toString")} == {
        "from": None, "fromString": None, "to": str(release.fix), "toString": "web-2025.7"}
