"""Notes about people: list, read, add, edit, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import DEFAULT_LIMIT, Filters, Limit, Offset, Page, Q, page
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import rules, schemas
from ..schemas import NoteCreate, NoteOut, NoteUpdate

router = APIRouter(tags=["notes"])

NoteId = Annotated[Id, Path(description="Id of the note.")]


@router.get("/notes", operation_id="list_notes", summary="List notes",
            response_model=Page[NoteOut])
async def list_notes(
    episode: EpisodeDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0,
    person_id: Annotated[Id | None, Query(description="Only notes about this person.")] = None,
    pinned: Annotated[bool | None, Query(description="Only pinned (true) or unpinned.")] = None,
    q: Q = None,
) -> Response:
    """Notes, newest first; `q` searches title and body."""
    found = Filters()
    found.equal(person_id=person_id, pinned=pinned)
    found.search(q, "title", "body")
    return ok(page(episode.db, "notes", found.where, found.params,
                   order_by="created_at DESC, id DESC", limit=limit, offset=offset,
                   convert=schemas.note))


@router.post("/notes", operation_id="create_note", summary="Add a note", status_code=201,
             response_model=NoteOut)
async def create_note(body: NoteCreate, episode: EpisodeDep) -> Response:
    """Add a note about a person."""
    row = rules.create_note(episode.db, person_id=body.person_id, title=body.title,
                            body=body.body, pinned=body.pinned, now=episode.now())
    return ok(schemas.note(row), 201)


@router.get("/notes/{note_id}", operation_id="get_note", summary="Get a note",
            response_model=NoteOut)
async def get_note(note_id: NoteId, episode: EpisodeDep) -> Response:
    """One note."""
    return ok(schemas.note(get_row(episode.db, "notes", note_id)))


@router.patch("/notes/{note_id}", operation_id="update_note", summary="Edit a note",
              response_model=NoteOut)
async def update_note(note_id: NoteId, body: NoteUpdate, episode: EpisodeDep) -> Response:
    """Change a note's title, text or pin; fields left out stay as they are."""
    changes = body.model_dump(exclude_unset=True, exclude_none=True)
    row = rules.update_note(episode.db, note_id=note_id, changes=changes, now=episode.now())
    return ok(schemas.note(row))


@router.delete("/notes/{note_id}", operation_id="delete_note", summary="Delete a note",
               status_code=204)
async def delete_note(note_id: NoteId, episode: EpisodeDep) -> Response:
    """Delete a note; a pinned note must be unpinned first (409 note_pinned)."""
    rules.delete_note(episode.db, note_id=note_id)
    return Response(status_code=204)
