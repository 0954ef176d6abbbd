"""The help center's pages (read-only: where the policies are written)::

    GET /hc/{locale}/articles                 the articles in that locale (en-us, de-de, ...),
                                              ?query=... every word in the title or body (the
                                              search API's rule, rules/search.article_filter)
    GET /hc/{locale}/articles/{id}            one article: title, section, dates, its text
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi import Path as PathParam
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import get_row, rows
from replicas.runtime.deps import EpisodeDep

from ..rules.search import article_filter
from .common import PAGES, PageRoute

router = APIRouter(route_class=PageRoute, include_in_schema=False)

Locale = Annotated[str, PathParam(max_length=10, pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,4})?$")]
ArticleId = Annotated[int, PathParam(ge=1, le=2**31 - 1)]


@router.get("/hc/{locale}/articles")
async def articles_page(request: Request, locale: Locale, episode: EpisodeDep,
                        query: Annotated[str, Query(max_length=200)] = "") -> Response:
    words = query.strip()
    where, params = article_filter(words, locale) if words else (
        ["lower(locale) = lower(?)"], [locale])
    found = rows(episode.db, f"SELECT * FROM articles WHERE {' AND '.join(where)} ORDER BY id",
                 params)
    locales = [r["locale"] for r in rows(
        episode.db, "SELECT DISTINCT lower(locale) AS locale FROM articles ORDER BY 1")]
    return PAGES.page(request, "articles.html", articles=found, query=words,
                      locale=locale.lower(), locales=locales)


@router.get("/hc/{locale}/articles/{article_id}")
async def article_page(request: Request, locale: Locale, article_id: ArticleId,
                       episode: EpisodeDep) -> Response:
    article = get_row(episode.db, "articles", article_id)
    paragraphs = [p.strip() for p in article["body"].split("\n\n") if p.strip()]
    return PAGES.page(request, "article.html", article=article, paragraphs=paragraphs,
                      locale=locale.lower())
