"""Help-center articles and macros."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.paging import DEFAULT_LIMIT, Filters, Limit, Offset, Page, Q, page
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import schemas
from ..schemas import ArticleOut, MacroOut

router = APIRouter(tags=["knowledge"])

ArticleId = Annotated[Id, Path(description="Id of the article.")]
MacroId = Annotated[Id, Path(description="Id of the macro.")]


@router.get(
    "/articles",
    operation_id="list_articles",
    summary="List and search help articles",
    response_model=Page[ArticleOut],
)
async def list_articles(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    category: Annotated[
        str | None, Query(max_length=80, description="Only this category (exact).")
    ] = None,
    q: Q = None,
) -> Response:
    """Help-center articles, where policies (refund windows, verification) are stated.
    `q` searches title and body. Check updated_at: older articles may be superseded."""
    found = Filters()
    found.equal(category=category)
    found.search(q, "title", "body")
    return ok(
        page(episode.db, "articles", found.where, found.params, order_by="id", limit=limit,
             offset=offset)
    )


@router.get(
    "/articles/{article_id}",
    operation_id="get_article",
    summary="Get an article",
    response_model=ArticleOut,
)
async def get_article(article_id: ArticleId, episode: EpisodeDep) -> Response:
    """One help-center article with its full text."""
    return ok(get_row(episode.db, "articles", article_id))


@router.get(
    "/macros", operation_id="list_macros", summary="List macros", response_model=Page[MacroOut]
)
async def list_macros(
    episode: EpisodeDep,
    limit: Limit = DEFAULT_LIMIT,
    offset: Offset = 0,
    active: Annotated[bool | None, Query(description="Only active (true) or inactive.")] = None,
    q: Q = None,
) -> Response:
    """Canned responses and actions agents apply to tickets (see apply_macro)."""
    found = Filters()
    found.equal(active=active)
    found.search(q, "title", "description")
    return ok(
        page(
            episode.db,
            "macros",
            found.where,
            found.params,
            order_by="id",
            limit=limit,
            offset=offset,
            convert=schemas.macro,
        )
    )


@router.get(
    "/macros/{macro_id}", operation_id="get_macro", summary="Get a macro", response_model=MacroOut
)
async def get_macro(macro_id: MacroId, episode: EpisodeDep) -> Response:
    """One macro and the actions it performs."""
    return ok(schemas.macro(get_row(episode.db, "macros", macro_id)))
