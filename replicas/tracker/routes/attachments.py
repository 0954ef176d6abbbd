"""Attachments (platform v2/v3): add files to an issue (multipart, Jira's XSRF header), the
settings, an attachment's metadata and content, delete one."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, File, Header, Path, Query, UploadFile
from starlette.responses import Response

from replicas.runtime.db import one
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.responses import ok

from .. import render
from ..errors import JiraError
from ..rules import attachments, issues
from ..rules.attachments import UPLOAD_LIMIT, Upload
from .common import CALLER, Base, IssueRef, Version, shown

router = APIRouter(tags=["attachments"])
AttachmentId = Annotated[str, Path(max_length=20, description="The attachment's id.")]
Files = Annotated[list[UploadFile], File(description=(
    f"The files, as multipart/form-data parts named 'file' (each at most {UPLOAD_LIMIT} "
    "bytes)."))]


async def xsrf_checked(x_atlassian_token: Annotated[str | None, Header(description=(
        "Must be no-check: Jira blocks a request without it (XSRF protection)."))] = None
                       ) -> None:
    """Jira's XSRF protection of the upload: without ``X-Atlassian-Token: no-check`` the
    request is blocked (403) before anything else is looked at."""
    if (x_atlassian_token or "").strip().lower() != "no-check":
        raise JiraError(403, ["XSRF check failed"], code="xsrf_check_failed")


def _author(episode: EpisodeDep, row: dict[str, object]) -> dict[str, object] | None:
    return one(episode.db, "SELECT * FROM users WHERE id = ?", (row["author_id"],))


@router.post("/issue/{issue}/attachments", operation_id="add_attachment",
             summary="Add attachment", dependencies=[Depends(xsrf_checked)])
async def add_attachment(version: Version, issue: IssueRef, file: Files, episode: EpisodeDep,
                         base: Base) -> Response:
    """Attach files to the issue (Create attachments; not while its status is not
    editable, as Closed bugs): the new attachments."""
    uploads = [Upload(part.filename or "", part.content_type, await part.read())
               for part in file]
    made = attachments.add(episode.db, issues.get(episode.db, issue, CALLER), uploads, CALLER,
                           episode.now())
    return ok(render.attachments(episode.db, made, base, shown(version)))


@router.get("/attachment/meta", operation_id="get_attachment_meta",
            summary="Get attachment settings")
async def get_attachment_meta(episode: EpisodeDep) -> Response:
    """Whether attachments are enabled and the largest file accepted, in bytes."""
    return ok({"enabled": True, "uploadLimit": UPLOAD_LIMIT})


@router.get("/attachment/content/{attachment_id}", operation_id="get_attachment_content",
            summary="Get attachment content", responses={
                200: {"description": "The file (redirect=false).",
                      "content": {"application/octet-stream": {}}},
                303: {"description": "The download URL, in Location (redirect=true)."}})
async def get_attachment_content(version: Version, attachment_id: AttachmentId,
                                 episode: EpisodeDep, base: Base,
                                 redirect: Annotated[bool, Query(description=(
                                     "Answer with a redirect to the download (303, the "
                                     "default) or the file itself (false)."))] = True
                                 ) -> Response:
    """The attachment's bytes, with its MIME type (or, by default, a redirect to them)."""
    found, _ = attachments.find(episode.db, attachment_id, CALLER)
    if redirect:
        return Response(status_code=303, headers={"Location": (
            f"{render.api(base, shown(version))}/attachment/content/{found['id']}"
            "?redirect=false")})
    return Response(attachments.content(found), media_type=found["mime_type"], headers={
        "Content-Disposition": f"attachment; filename*=UTF-8''{quote(found['filename'])}"})


@router.get("/attachment/{attachment_id}", operation_id="get_attachment",
            summary="Get attachment metadata")
async def get_attachment(version: Version, attachment_id: AttachmentId, episode: EpisodeDep,
                         base: Base) -> Response:
    """An attachment's metadata (not its content: see ``content``)."""
    found, _ = attachments.find(episode.db, attachment_id, CALLER)
    return ok(render.attachment_metadata(found, _author(episode, found), base,
                                         shown(version)))


@router.delete("/attachment/{attachment_id}", operation_id="delete_attachment",
               summary="Delete attachment", status_code=204)
async def delete_attachment(attachment_id: AttachmentId, episode: EpisodeDep) -> Response:
    """Delete an attachment: Delete own attachments for yours, Delete all attachments for
    anyone's."""
    found, issue = attachments.find(episode.db, attachment_id, CALLER)
    attachments.delete(episode.db, found, issue, CALLER, episode.now())
    return Response(status_code=204)
