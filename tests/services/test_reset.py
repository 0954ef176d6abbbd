"""A rollout loop's reset: the create answer refers to the episode's tools (served once per set
of apps, cacheable by their ETag) unless asked inline; the previous episode is dropped by the
same call; the in-process server's start is out of the collector's way."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import httpx

from tests.refusals import refusal
from workgym.local import LocalServer
from workgym.sdk import Env

TASK = "helpdesk/stale-contact-update"  # a task of the helpdesk alone


def _gym(local: LocalServer, method: str, path: str, *, token: str | None = None,
         **kwargs: Any) -> httpx.Response:
    credential = token or local.server.settings.api_key
    headers = {"authorization": f"Bearer {credential}", **kwargs.pop("headers", {})}
    return local.request(method, path, headers=headers, **kwargs)


def _create(local: LocalServer, query: str = "", **body: Any) -> httpx.Response:
    return _gym(local, "POST", f"/v1/episodes{query}", json={"task": TASK, "seed": 1, **body})


def test_the_create_answer_refers_to_the_tools_unless_asked_inline(local: LocalServer) -> None:
    referred = _create(local)
    assert referred.status_code == 201
    created = referred.json()
    assert "tools" not in created and created["tools_url"] == "/v1/tools/helpdesk"
    inline = _create(local, "?tools=inline").json()
    assert inline["tools_etag"] == created["tools_etag"]
    assert len(referred.content) * 20 < len(_create(local, "?tools=inline").content)
    # The same list at tools_url, by the operator or the episode's own token.
    served = _gym(local, "GET", created["tools_url"], token=created["token"])
    assert served.status_code == 200 and served.json() == inline["tools"]
    assert served.headers["etag"] == created["tools_etag"]
    names = [tool["function"]["name"] for tool in inline["tools"]]
    assert "helpdesk_search" in names and names[-1] == "workgym_refresh_token"
    again = _gym(local, "GET", created["tools_url"],
                 headers={"if-none-match": created["tools_etag"]})
    assert again.status_code == 304 and not again.content


def test_tools_and_the_create_choice_refuse_what_is_not_there(local: LocalServer) -> None:
    unknown = _gym(local, "GET", "/v1/tools/helpdesk,wiki")
    assert unknown.status_code == 404
    assert (refusal(unknown)["field"], refusal(unknown)["rule"]) == ("apps", "served_app")
    assert _gym(local, "GET", "/v1/tools/helpdesk,helpdesk").status_code == 404
    assert _gym(local, "GET", "/v1/tools/helpdesk", token="nonsense").status_code == 401
    bad = _create(local, "?tools=all")
    assert bad.status_code == 422 and refusal(bad)["field"] == "tools"


def test_a_create_replaces_the_previous_episode_only_if_it_is_created(
        server: Callable[..., LocalServer]) -> None:
    local = server(max_live_episodes=1)
    first = _create(local).json()
    # At the live quota, a replacement is admitted: the previous one stops counting.
    second = _create(local, replaces=first["id"])
    assert second.status_code == 201
    gone = _gym(local, "GET", f"/v1/episodes/{first['id']}")
    assert gone.status_code == 410 and refusal(gone)["code"] == "episode_deleted"
    # Its replica state is reclaimed after the answer.
    store = local.server.replicas["helpdesk"].state.store
    local.run(_settle(local))
    assert first["id"] not in store._episodes  # noqa: SLF001
    # Refused (the quota), nothing is dropped: the previous episode stays.
    refused = _create(local)
    assert refused.status_code == 429
    assert _gym(local, "GET", f"/v1/episodes/{second.json()['id']}").status_code == 200
    # One already gone is no error.
    assert _create(local, replaces=first["id"]).status_code == 429  # still the quota's call
    assert _create(local, replaces=second.json()["id"]).status_code == 201


async def _settle(local: LocalServer) -> None:
    service = local.server.gym.state.service  # type: ignore[union-attr]
    for task in list(service._reclaiming):  # noqa: SLF001
        await task


def test_the_sdk_resets_in_one_call_and_holds_the_tools(
        server: Callable[..., LocalServer]) -> None:
    local = server(max_live_episodes=1)
    sent: list[httpx.Request] = []
    client = local.client()
    client.event_hooks["request"].append(sent.append)
    env = Env(client, TASK, seed=1, api_key=local.server.settings.api_key)
    first = env.reset()
    second = env.reset()  # the first is unfinished: dropped by this call (quota 1)
    env.close()
    assert [(r.method, r.url.path, r.url.query) for r in sent[:2]] == [
        ("POST", "/v1/episodes", b"tools=inline"), ("POST", "/v1/episodes", b"")]
    assert second.tools == first.tools and second.tools
    dropped = _gym(local, "GET", f"/v1/episodes/{first.episode_id}")
    assert refusal(dropped)["code"] == "episode_deleted"


def test_the_in_process_server_freezes_what_its_start_built(local: LocalServer) -> None:
    assert gc.get_freeze_count() > 0
