"""Attachments over HTTP, as Jira Cloud's REST v3 reference documents them
(https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-attachments/):
files posted as multipart/form-data parts named ``file`` with the header
``X-Atlassian-Token: no-check`` (without it the request is blocked), answered with the list of
new attachments; listed in the issue's ``attachment`` field; read by id (metadata), downloaded
(``redirect``), deleted (Delete own / Delete all attachments); each addition and deletion an
``Attachment`` item of the issue's changelog; none on an issue whose status is not editable."""

from __future__ import annotations

from typing import Any

import pytest

from workgym_core.internal import BASE_HEADER, EPISODE_HEADER, INTERNAL_HEADER, STEP_HEADER

from .conftest import API, BASE, SECRET

pytestmark = pytest.mark.anyio
XSRF = {"X-Atlassian-Token": "no-check"}
LOG = b"2025-06-16 08:58:01 ERROR checkout: order A-10722 charged twice\n"


async def _attach(api: Any, key: str, files: list[tuple[str, tuple[str, bytes, str]]],
                  status: int = 200, headers: dict[str, str] | None = None) -> Any:
    response = await api.client.post(f"{API}/issue/{key}/attachments", files=files, headers={
        **_headers(api), **(XSRF if headers is None else headers)})
    assert response.status_code == status, response.text
    return response.json()


def _theirs(issue: str) -> list[dict[str, Any]]:
    """Setup ops: an attachment user 2 added to ``issue``, bound ``theirs``."""
    return [{"bind": "issue", "select": "issues", "where": {"key": issue}},
            {"bind": "theirs", "insert": "attachments", "values": {
                "issue_id": "$issue.id", "author_id": 2, "filename": "screenshot.png",
                "mime_type": "image/png", "size": 3, "content": "iVBO",
                "created": "@now-1d"}}]


def _headers(api: Any) -> dict[str, str]:
    """The proxy's headers of the episode's next step, for a request answering no JSON."""
    api.step += 1
    return {INTERNAL_HEADER: SECRET, EPISODE_HEADER: api.episode_id,
            STEP_HEADER: str(api.step), BASE_HEADER: BASE}


async def _their_id(api: Any) -> int:
    """The id of the episode's attachment by user 2 (the setup's ids are the episode's)."""
    return int((await api.db()).execute("SELECT id FROM attachments WHERE author_id = 2"
                                        ).fetchone()[0])


async def _count(api: Any) -> int:
    return int((await api.db()).execute("SELECT count(*) FROM attachments").fetchone()[0])


async def test_files_are_attached_listed_read_and_downloaded(jira: Any) -> None:
    """addAttachment: "Adds one or more attachments to an issue", 200 with the list of
    Attachment; getAttachment: the metadata (AttachmentMetadata: a numeric id), "the
    attachment itself is not returned"; getAttachmentContent: 303 to the download unless
    ``redirect=false``, then the bytes; the issue's fields list its attachments."""
    api = await jira()
    made = await _attach(api, "SHOP-3", [
        ("file", ("checkout.txt", LOG, "application/octet-stream")),
        ("file", ("cart.json", b"{}", "application/json"))])
    assert [(a["filename"], a["size"], a["mimeType"]) for a in made] == [
        ("checkout.txt", len(LOG), "text/plain"), ("cart.json", 2, "application/json")]
    first = made[0]
    assert first["author"]["displayName"] == "AI Agent"
    assert first["content"] == f"{BASE}{API}/attachment/content/{first['id']}"
    issue = await api.call("GET", f"{API}/issue/SHOP-3", params={"fields": "attachment"})
    assert [a["id"] for a in issue["fields"]["attachment"]] == [a["id"] for a in made]
    meta = await api.call("GET", f"{API}/attachment/{first['id']}")
    assert (meta["id"], meta["filename"], meta["author"]["locale"]) == (
        int(first["id"]), "checkout.txt", "en_US")
    redirected = await api.client.get(f"{API}/attachment/content/{first['id']}",
                                      headers=_headers(api))
    assert redirected.status_code == 303
    assert redirected.headers["location"] == (f"{BASE}{API}/attachment/content/{first['id']}"
                                              "?redirect=false")
    body = await api.client.get(f"{API}/attachment/content/{first['id']}",
                                params={"redirect": "false"}, headers=_headers(api))
    assert (body.status_code, body.content) == (200, LOG)
    assert body.headers["content-type"].startswith("text/plain")
    history = await api.call("GET", f"{API}/issue/SHOP-3/changelog")
    assert history["values"][-1]["items"] == [
        {"field": "Attachment", "fieldtype": "jira", "from": None, "fromString": None,
         "to": a["id"], "toString": a["filename"]} for a in made]


async def test_an_upload_without_the_xsrf_header_a_file_or_within_the_limit_is_refused(
        jira: Any) -> None:
    """addAttachment: "The request must have a X-Atlassian-Token: no-check header, if not it
    is blocked" (403 "XSRF check failed"); the parameter "must be named file"; 413 "The
    attachments exceed the maximum attachment size" (getAttachmentMeta's uploadLimit).
    Nothing is attached."""
    api = await jira()
    one = [("file", ("a.txt", b"a", "text/plain"))]
    assert await _attach(api, "SHOP-3", one, 403, headers={}) == {
        "errorMessages": ["XSRF check failed"], "errors": {}}
    assert await _attach(api, "SHOP-3", one, 403, headers={"X-Atlassian-Token": "nocheck"})
    refused = await _attach(api, "SHOP-3", [("upload", ("a.txt", b"a", "text/plain"))], 400)
    assert list(refused["errors"]) == ["file"]
    limit = (await api.call("GET", f"{API}/attachment/meta"))
    assert limit == {"enabled": True, "uploadLimit": 100_000}
    too_big = [("file", ("ok.txt", b"a", "text/plain")),
               ("file", ("dump.bin", b"x" * (limit["uploadLimit"] + 1), "text/plain"))]
    assert "dump.bin" in (await _attach(api, "SHOP-3", too_big, 413))["errorMessages"][0]
    await _attach(api, "SHOP-99999", one, 404)
    assert await _count(api) == 0


async def test_a_closed_bug_takes_no_attachments(jira: Any) -> None:
    """Jira refuses attachments on an issue whose status is not editable (the status
    property jira.issue.editable = false, as the classic workflow's Closed): addAttachment's
    403 "You do not have permission to create attachments for this issue."; removeAttachment
    likewise 403."""
    closed = "SHOP-2"
    api = await jira(setup=[*_theirs(closed)])
    issue = await api.call("GET", f"{API}/issue/{closed}", params={"fields": "status"})
    assert issue["fields"]["status"]["name"] == "Closed"
    refused = await _attach(api, closed, [("file", ("a.txt", b"a", "text/plain"))], 403)
    assert refused["errorMessages"] == [
        "You do not have permission to create attachments for this issue."]
    admin = await jira(role="Administrators", setup=[*_theirs(closed)])
    await admin.call("DELETE", f"{API}/attachment/{await _their_id(admin)}", status=403)
    assert await _count(api) == 1 and await _count(admin) == 1


async def test_one_deletes_ones_own_attachments_and_with_delete_all_anyones(
        jira: Any) -> None:
    """removeAttachment: "Delete own attachments" to delete one the caller added, "Delete
    all attachments" for anyone's (403 without it, nothing deleted); 404 once gone; the
    deletion is an Attachment item of the changelog (from: its id and filename)."""
    api = await jira(role="Support", setup=_theirs("SHOP-3"))
    theirs = await _their_id(api)
    assert (await api.call("DELETE", f"{API}/attachment/{theirs}", status=403)) == {
        "errorMessages": [f"You do not have permission to delete attachment with id: {theirs}"],
        "errors": {}}
    (mine,) = await _attach(api, "SHOP-3", [("file", ("a.txt", b"a", "text/plain"))])
    await api.call("DELETE", f"{API}/attachment/{mine['id']}", status=204)
    await api.call("GET", f"{API}/attachment/{mine['id']}", status=404)
    await api.call("DELETE", f"{API}/attachment/{mine['id']}", status=404)
    history = await api.call("GET", f"{API}/issue/SHOP-3/changelog")
    assert history["values"][-1]["items"] == [
        {"field": "Attachment", "fieldtype": "jira", "from": mine["id"], "fromString": "a.txt",
         "to": None, "toString": None}]
    admin = await jira(role="Administrators", setup=_theirs("SHOP-3"))
    await admin.call("DELETE", f"{API}/attachment/{await _their_id(admin)}", status=204)
    assert await _count(admin) == 0 and await _count(api) == 1


async def test_an_attachment_that_is_not_there_is_jiras_404(jira: Any) -> None:
    """getAttachment, getAttachmentContent: 404 "the attachment is not found" (an id that
    is not a number too)."""
    api = await jira()
    for path in ("attachment/99999", "attachment/content/99999", "attachment/abc"):
        assert await api.call("GET", f"{API}/{path}", status=404) == {
            "errorMessages": [f"The attachment with id '{path.rsplit('/', 1)[1]}' does not "
                              "exist"], "errors": {}}
