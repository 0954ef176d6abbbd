"""Issue search by JQL (Jira's issue navigator)::

    GET  /issues/?jql=...&startAt=N     the issues the JQL finds, in its ORDER BY (newest
                                        first without one), 50 a page, with the total;
                                        ``filter=ID`` runs a saved filter's JQL; each
                                        column's header sorts by it (the JQL's ORDER BY
                                        replaced, ascending, then descending)
    POST /issues/filters                save the JQL as a filter (name, jql) -> its search

The JQL runs as the API's search runs it (rules/search.compiled over the issues you may
browse; the navigator, as Jira's, also takes a query with only an ORDER BY or none); a JQL
error is Jira's message on the page. Filters are the API's (rules/filters.create).
"""

from __future__ import annotations

from typing import Annotated, Any

from annotated_types import Interval
from fastapi import Query
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime.db import one, rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.pages import performs, redirect, sends

from .. import jql
from ..errors import JiraError
from ..formats import jira_time
from ..jql.lexer import is_one_of, tokens
from ..rules import filters, search
from .common import CALLER, PAGES, form, page_router

router = page_router()
PAGE = 50
# The results' columns: header -> the JQL field it sorts by.
COLUMNS = {"Key": "key", "Summary": "summary", "Status": "status",
           "Resolution": "resolution", "Assignee": "assignee", "Priority": "priority",
           "Updated": "updated"}
StartAt = Annotated[int, Interval(ge=0, le=1_000_000), Query()]
FilterId = Annotated[int | None, Interval(ge=1, le=2**31 - 1), Query()]
Jql = Annotated[str, Query(max_length=5000)]


def sorted_by(text: str, field: str) -> tuple[str, str | None]:
    """The JQL ``text`` ordered by ``field`` (its ORDER BY replaced): ascending, or descending
    when it is already ascending by it; and how ``text`` sorts by it first now (ASC, DESC;
    None: not, or in the field's default direction)."""
    found = tokens(text)
    cut = next((t.pos for t, after in zip(found, found[1:], strict=False)
                if is_one_of(t, "order") and is_one_of(after, "by")), len(text))
    first = jql.parse(text).order[:1]
    now = first[0].direction.upper() if first and first[0].direction \
        and first[0].field.lower() == field else None
    wanted = "DESC" if now == "ASC" else "ASC"
    return f"{text[:cut].rstrip()} ORDER BY {field} {wanted}".strip(), now


@router.get("/issues/")
async def search_page(request: Request, episode: EpisodeDep, jql: Jql = "",
                      startAt: StartAt = 0, filter: FilterId = None) -> Response:
    saved = filters.find(episode.db, filter, CALLER) if filter is not None else None
    text = saved["jql"] if saved is not None else jql
    context: dict[str, Any] = {"jql": text, "saved": saved, "start": startAt, "page": PAGE,
                               "found": [], "total": 0, "error": None}
    try:
        where, params, order = search.compiled(text, now=episode.now(), caller_id=CALLER,
                                               bounded=False)
    except JiraError as error:
        return PAGES.page(request, "search.html", 400, **{**context, "error": error.message})
    scope = f"({where}) AND {search.visible(episode.db, CALLER)}"
    total = one(episode.db, f"SELECT count(*) AS n FROM issues WHERE {scope}", params)
    people = {u["id"]: u["display_name"] for u in rows(episode.db, "SELECT * FROM users")}
    found = [{"key": r["key"], "summary": r["summary"], "status": r["status"],
              "resolution": r["resolution"],
              "priority": r["priority"], "assignee": people.get(r["assignee_id"]),
              "updated": jira_time(r["updated_at"])}
             for r in rows(episode.db, f"SELECT * FROM issues WHERE {scope} ORDER BY {order} "
                           "LIMIT ? OFFSET ?", (*params, PAGE, startAt))]
    sorts = {name: sorted_by(text, field) for name, field in COLUMNS.items()}
    return PAGES.page(request, "search.html", **{**context, "found": found, "sorts": sorts,
                                                 "total": total["n"] if total else 0})


@router.post("/issues/filters")
@performs("create_filter")
async def save_filter(request: Request, episode: EpisodeDep) -> Response:
    posted = await form(request)
    body = {"name": posted.get("name"), "jql": posted.get("jql")}
    sends(request, body)
    made = filters.create(episode.db, body, CALLER, episode.now())
    return redirect(request, "/issues/", filter=made["id"])
