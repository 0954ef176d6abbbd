"""Files for comments: upload them (a token for a comment's ``uploads``), read an
attachment's record and its content, delete an upload no comment took."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from starlette.responses import Response

from replicas.runtime.db import get_row, one
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok
from workgym_core.errors import NotFound

from .. import render
from ..rules import uploads
from ..schemas import AttachmentResult, UploadResult
from .common import Base

router = APIRouter(tags=["tickets"])

AttachmentId = Annotated[Id, Path(description="Id of the attachment.")]
Token = Annotated[str, Path(max_length=64, description="The upload's token.")]


@router.post("/api/v2/uploads", operation_id="upload_files", summary="Upload a file",
             status_code=201, response_model=UploadResult, openapi_extra={"requestBody": {
                 "required": True, "description": "The file's bytes.", "content": {
                     "application/octet-stream": {"schema": {"type": "string",
                                                             "format": "binary"}}}}})
async def upload_file(
        request: Request, episode: EpisodeDep, base: Base,
        filename: Annotated[str, Query(min_length=1, max_length=255, description=(
            "The file's name, with its extension."))],
        token: Annotated[str | None, Query(max_length=64, description=(
            "An upload's token: add this file to it (several files, one token)."))] = None,
) -> Response:
    """The request body is the file's bytes (Content-Type: its type). Answers the upload's
    token: name it in a comment's uploads to attach its files to the comment."""
    content_type = request.headers.get("content-type") or "application/octet-stream"
    db = episode.db
    found, _ = uploads.add_file(db, token, filename, content_type, await request.body(),
                                episode.now())
    return ok({"upload": render.upload(found, uploads.attachments_of(db, found["id"]), base)},
              201)


@router.delete("/api/v2/uploads/{token}", operation_id="delete_upload",
               summary="Delete an upload", status_code=204, response_class=Response)
async def delete_upload(token: Token, episode: EpisodeDep) -> Response:
    """Delete an upload no comment took yet, with its files."""
    uploads.delete(episode.db, token)
    return Response(status_code=204)


@router.get("/api/v2/attachments/{attachment_id}", operation_id="show_attachment",
            summary="Show an attachment", response_model=AttachmentResult)
async def show_attachment(attachment_id: AttachmentId, episode: EpisodeDep,
                          base: Base) -> Response:
    """An attachment: its file name, type, size and content_url."""
    return ok({"attachment": render.attachment(get_row(episode.db, "attachments",
                                                       attachment_id), base)})


@router.get("/attachments/token/{token}", include_in_schema=False)
async def download(token: Token, episode: EpisodeDep) -> Response:
    """An attachment's bytes: its content_url, a download outside the API (as Zendesk's)."""
    row = one(episode.db, "SELECT * FROM attachments WHERE token = ?", (token,))
    if row is None:
        raise NotFound(f"attachment {token} does not exist", code="attachment_not_found")
    return Response(content=row["content"], media_type=row["content_type"])
