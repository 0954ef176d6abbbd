"""Uploads and attachments, and the incremental exports, through Zendesk's API (ZD =
developer.zendesk.com/api-reference)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from replicas.runtime.clock import iso, parse_iso
from tests.replicas.helpdesk.conftest import BASE, Api
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, ticket_setup

pytestmark = pytest.mark.anyio


def refusal(body: dict[str, Any]) -> tuple[str, str]:
    assert body["error"] == "RecordInvalid", body
    [(field, [entry])] = body["details"].items()
    return field, entry["error"]


async def upload(api: Api, name: str, content: bytes, token: str | None = None) -> Any:
    params = {"filename": name, **({"token": token} if token else {})}
    response = await api.request("POST", "/api/v2/uploads.json", params=params,
                                 content=content)
    assert response.status_code == 201, response.text
    return response.json()["upload"]


async def test_a_comment_carries_the_files_uploaded_for_it(episode: MakeEpisode) -> None:
    """ZD/ticketing/tickets/ticket-attachments/#upload-files: POST /uploads?filename= with
    the file as the body answers an upload with a token (a second file with ``token`` joins
    it); a comment's ``uploads: [token]`` attaches its files
    (ZD/documentation/ticketing/managing-tickets/adding-ticket-attachments-with-the-api);
    #show-attachment; #delete-upload answers 204."""
    api = await episode(setup=ticket_setup())
    first = await upload(api, "receipt.txt", b"Order A-1 paid")
    assert first["attachment"]["file_name"] == "receipt.txt"
    both = await upload(api, "photo.txt", b"a dent", token=first["token"])
    assert both["token"] == first["token"] and len(both["attachments"]) == 2
    ticket = api.vars["ticket"]["id"]
    assert refusal(await api.refused("PUT", f"/api/v2/tickets/{ticket}", json={"ticket": {
        "comment": {"body": "See attached.", "uploads": ["nope"]}}})) == (
            "uploads", "upload_not_found")
    await api.ok("PUT", f"/api/v2/tickets/{ticket}", json={"ticket": {
        "comment": {"body": "See attached.", "public": True, "uploads": [first["token"]]}}})
    comments = (await api.ok("GET", f"/api/v2/tickets/{ticket}/comments"))["comments"]
    files = comments[-1]["attachments"]
    assert [f["file_name"] for f in files] == ["receipt.txt", "photo.txt"]
    shown = (await api.ok("GET", f"/api/v2/attachments/{files[0]['id']}"))["attachment"]
    assert shown["size"] == len(b"Order A-1 paid")
    path = shown["content_url"].removeprefix(BASE)
    content = await api.get(path)
    assert content.content == b"Order A-1 paid"
    # The token is spent: deleting it, or attaching it again, finds no upload.
    await api.refused("DELETE", f"/api/v2/uploads/{first['token']}", status=404)
    spare = await upload(api, "draft.txt", b"x")
    await api.ok("DELETE", f"/api/v2/uploads/{spare['token']}", status=204)
    await api.refused("GET", f"/api/v2/attachments/{spare['attachment']['id']}", status=404)


async def test_an_empty_upload_is_refused(episode: MakeEpisode) -> None:
    """ZD/ticketing/tickets/ticket-attachments/#upload-files: the body is the file."""
    api = await episode()
    response = await api.request("POST", "/api/v2/uploads", params={"filename": "a.txt"},
                                 content=b"")
    assert response.status_code == 422 and refusal(response.json()) == ("file", "blank")


async def test_the_ticket_exports_page_through_every_change(episode: MakeEpisode) -> None:
    """ZD/ticketing/ticket-management/incremental_exports/#incremental-ticket-export-cursor-
    based (after_cursor, end_of_stream; the cursor again on the last page) and
    #incremental-ticket-export-time-based (count, end_time, next_page): the tickets changed
    since start_time, oldest change first; a start_time less than a minute old is refused
    (ZD/documentation/ticketing/managing-tickets/using-the-incremental-export-api)."""
    api = await episode(setup=ticket_setup())
    ticket = (await api.ok("GET", f"/api/v2/tickets/{api.vars['ticket']['id']}"))["ticket"]
    since = int((parse_iso(ticket["updated_at"]) - timedelta(hours=30)).timestamp())
    seen: list[int] = []
    page = await api.ok("GET", "/api/v2/incremental/tickets/cursor.json",
                        params={"start_time": since, "per_page": 5})
    while True:
        seen += [t["id"] for t in page["tickets"]]
        if page["end_of_stream"]:
            break
        page = await api.ok("GET", "/api/v2/incremental/tickets/cursor",
                            params={"cursor": page["after_cursor"], "per_page": 5})
    assert ticket["id"] in seen and len(seen) == len(set(seen)) > 5
    timed = await api.ok("GET", "/api/v2/incremental/tickets.json",
                         params={"start_time": since})
    assert [t["id"] for t in timed["tickets"]] == seen
    assert timed["count"] == len(seen) and timed["end_of_stream"] is True
    stamps = [t["updated_at"] for t in timed["tickets"]]
    assert stamps == sorted(stamps)
    assert timed["end_time"] == int(parse_iso(stamps[-1]).timestamp())
    assert f"start_time={timed['end_time']}" in timed["next_page"]
    users = await api.ok("GET", "/api/v2/incremental/users", params={"start_time": since})
    start = iso(parse_iso(ticket["updated_at"]) - timedelta(hours=30))
    assert users["users"] and all(u["updated_at"] >= start for u in users["users"])
    future = int(parse_iso(ticket["updated_at"]).timestamp()) + 10 * 86400
    assert refusal(await api.refused("GET", "/api/v2/incremental/tickets",
                                     params={"start_time": future})) == (
        "start_time", "too_recent")
    assert refusal(await api.refused("GET", "/api/v2/incremental/tickets/cursor",
                                     params={"cursor": "garbage"})) == ("cursor", "cursor")
