"""People: the seed's identity, as the notes app knows them."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import DEFAULT_LIMIT, Filters, Limit, Offset, Page, Q, page
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from ..schemas import PersonOut

router = APIRouter(tags=["people"])

PersonId = Annotated[Id, Path(description="Id of the person.")]


@router.get("/people", operation_id="list_people", summary="List people",
            response_model=Page[PersonOut])
async def list_people(
    episode: EpisodeDep, limit: Limit = DEFAULT_LIMIT, offset: Offset = 0,
    email: Annotated[str | None, Query(max_length=200,
                                       description="Only this email (exact).")] = None,
    q: Q = None,
) -> Response:
    """People, by id; `q` searches name, email and company."""
    found = Filters()
    found.equal(email=email)
    found.search(q, "name", "email", "company")
    return ok(page(episode.db, "people", found.where, found.params, order_by="id",
                   limit=limit, offset=offset))


@router.get("/people/{person_id}", operation_id="get_person", summary="Get a person",
            response_model=PersonOut)
async def get_person(person_id: PersonId, episode: EpisodeDep) -> Response:
    """One person."""
    return ok(get_row(episode.db, "people", person_id, noun="person"))
