"""Help Center articles (where the support policies are written) and satisfaction ratings."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import render
from ..listing import PagingDep, table_page
from ..rules.search import article_filter
from ..schemas import (
    ArticleResult,
    Articles,
    RatingResult,
    Ratings,
    SearchResults,
)
from .common import Base

router = APIRouter(tags=["help center"])

Row = dict[str, Any]
ArticleId = Annotated[Id, Path(description="Id of the article.")]
RatingId = Annotated[Id, Path(description="Id of the satisfaction rating.")]
LOCALE_PATTERN = r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,4})?$"
LocaleQuery = Annotated[str | None, Query(max_length=10, pattern=LOCALE_PATTERN, description=(
    "Only articles in this locale, e.g. en-us."))]
LocalePath = Annotated[str, Path(max_length=10, pattern=LOCALE_PATTERN, description=(
    "The articles' locale, e.g. en-us."))]
ArticleSort = Annotated[Literal["id", "title", "created_at", "updated_at"], Query(
    description="The sort key.")]
SortOrder = Annotated[Literal["asc", "desc"], Query(description="asc or desc.")]


def _articles(episode: EpisodeDep, paging: PagingDep, base: str, locale: str | None,
              sort_by: str, sort_order: str) -> Response:
    where, params = (["lower(locale) = lower(?)"], [locale]) if locale else ([], [])
    order = f"{sort_by} {sort_order.upper()}, id {sort_order.upper()}"
    return ok(table_page(episode.db, paging, "articles", where, params, order,
                         lambda row: render.article(row, base)))


@router.get("/api/v2/help_center/articles", operation_id="list_articles",
            summary="List articles", response_model=Articles)
async def list_articles(episode: EpisodeDep, paging: PagingDep, base: Base,
                        locale: LocaleQuery = None, sort_by: ArticleSort = "id",
                        sort_order: SortOrder = "asc") -> Response:
    """Help Center articles: the support policies and how-tos, with their full text.
    Check updated_at: an older article may have been superseded by a newer one. To find
    articles by words, use GET /api/v2/help_center/articles/search."""
    return _articles(episode, paging, base, locale, sort_by, sort_order)


@router.get("/api/v2/help_center/articles/search", operation_id="search_articles",
            summary="Search articles", response_model=SearchResults)
async def search_articles(
    episode: EpisodeDep, paging: PagingDep, base: Base,
    query: Annotated[str, Query(min_length=1, max_length=200, description=(
        "Words to find (case-insensitive): every word must appear in the title or body."))],
    locale: LocaleQuery = None,
) -> Response:
    """Articles whose title or body contains every word of the query, under `results`
    (each with result_type "article"). Check updated_at: an older article may have been
    superseded by a newer one."""
    where, params = article_filter(query, locale)
    return ok(table_page(episode.db, paging, "articles", where, params, "id",
                         lambda row: {**render.article(row, base), "result_type": "article"},
                         key="results"))


@router.get("/api/v2/help_center/articles/{article_id}", operation_id="show_article",
            summary="Show an article", response_model=ArticleResult)
async def show_article(article_id: ArticleId, episode: EpisodeDep, base: Base) -> Response:
    """One Help Center article with its full text (body)."""
    return ok({"article": render.article(get_row(episode.db, "articles", article_id), base)})


@router.get("/api/v2/help_center/{locale}/articles", operation_id="list_articles_by_locale",
            summary="List articles in a locale", response_model=Articles)
async def list_locale_articles(locale: LocalePath, episode: EpisodeDep, paging: PagingDep,
                               base: Base, sort_by: ArticleSort = "id",
                               sort_order: SortOrder = "asc") -> Response:
    """The Help Center articles in this locale (e.g. en-us)."""
    return _articles(episode, paging, base, locale, sort_by, sort_order)


# ---------------------------------------------------------------------------
# Satisfaction ratings
# ---------------------------------------------------------------------------

_SCORES = {"good": ["score = 'good'"], "bad": ["score = 'bad'"],
           "received": [],
           "good_with_comment": ["score = 'good'", "comment != ''"],
           "bad_with_comment": ["score = 'bad'", "comment != ''"],
           "received_with_comment": ["comment != ''"],
           "good_without_comment": ["score = 'good'", "comment = ''"],
           "bad_without_comment": ["score = 'bad'", "comment = ''"],
           "received_without_comment": ["comment = ''"]}
Score = Literal["good", "bad", "received", "good_with_comment", "bad_with_comment",
                "received_with_comment", "good_without_comment", "bad_without_comment",
                "received_without_comment"]
assert set(_SCORES) == set(get_args(Score))


@router.get("/api/v2/satisfaction_ratings", operation_id="list_satisfaction_ratings",
            summary="List satisfaction ratings", response_model=Ratings)
async def list_ratings(episode: EpisodeDep, paging: PagingDep, base: Base,
                       score: Annotated[Score | None, Query(description=(
                           "Only these ratings: good, bad, received (any), each optionally "
                           "_with_comment or _without_comment."))] = None) -> Response:
    """Customers' ratings of solved tickets (score good or bad, with an optional comment),
    oldest first: the ticket, its requester, assignee and group when rated."""
    where = _SCORES[score] if score else []
    return ok(table_page(episode.db, paging, "satisfaction_ratings",
                         where, [], "id", lambda row: render.satisfaction_rating(row, base)))


@router.get("/api/v2/satisfaction_ratings/{rating_id}", operation_id="show_satisfaction_rating",
            summary="Show a satisfaction rating", response_model=RatingResult)
async def show_rating(rating_id: RatingId, episode: EpisodeDep, base: Base) -> Response:
    """One satisfaction rating: score, comment, ticket."""
    row = get_row(episode.db, "satisfaction_ratings", rating_id, noun="satisfaction rating")
    return ok({"satisfaction_rating": render.satisfaction_rating(row, base)})
