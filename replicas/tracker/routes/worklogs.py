"""Worklogs: list, log, and by id read, edit, delete (platform v2/v3)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query
from starlette.responses import Response

from replicas.runtime.db import rows
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import render
from ..formats import format_duration, jira_time
from ..rules import issues, worklogs
from ..rules.worklogs import Estimate
from .common import CALLER, Base, IssueRef, MaxResults, StartAt, Version, page_bean, shown

router = APIRouter(tags=["links"])
WORKLOGS_CAP = 5000
Adjust = Annotated[str, Query(pattern="^(auto|leave|new|manual)$", description=(
    "How the remaining estimate changes: auto (by the time logged), leave, new "
    "(newEstimate), manual (reduceBy; increaseBy on delete)."))]
Duration = Annotated[str | None, Query(max_length=40, description=(
    "A duration, e.g. 2d, 3h 30m."))]
WorklogId = Annotated[Id, Path(description="The worklog's id.")]
WorklogBody = Annotated[dict[str, Any], Body(description=(
    "{timeSpent: '2h 30m' | timeSpentSeconds, started, comment}"))]


def _worklogs(episode: EpisodeDep, logs: list[dict[str, Any]], base: str,
              version: str) -> list[dict[str, Any]]:
    v = shown(version)
    people = {u["id"]: u for u in rows(episode.db, "SELECT * FROM users")}
    return [{"self": f"{render.api(base, v)}/issue/{w['issue_id']}/worklog/{w['id']}",
             "id": str(w["id"]), "issueId": str(w["issue_id"]),
             "author": render.user(people[w["author_id"]], base, v),
             "updateAuthor": render.user(people[w["update_author_id"] or w["author_id"]],
                                         base, v),
             "timeSpent": format_duration(w["time_spent_s"]),
             "timeSpentSeconds": w["time_spent_s"],
             "comment": render.text(w["comment"], v == "3"),
             "started": jira_time(w["started"]), "created": jira_time(w["created"]),
             "updated": jira_time(w["updated_at"] or w["created"])} for w in logs]


@router.post("/issue/{issue}/worklog", operation_id="add_worklog", summary="Log work",
             status_code=201)
async def add_worklog(version: Version, issue: IssueRef, episode: EpisodeDep, base: Base,
                      body: WorklogBody, adjustEstimate: Adjust = "auto",
                      newEstimate: Duration = None, reduceBy: Duration = None) -> Response:
    """Log time spent on the issue."""
    made = worklogs.log_work(episode.db, issues.get(episode.db, issue, CALLER), body, CALLER,
                             episode.now(), adf=version == "3",
                             estimate=Estimate(adjustEstimate, newEstimate, reduceBy))
    return ok(_worklogs(episode, [made], base, version)[0], 201)


@router.get("/issue/{issue}/worklog", operation_id="get_worklogs", summary="Get worklogs")
async def get_worklogs(version: Version, issue: IssueRef, episode: EpisodeDep, base: Base,
                       startAt: StartAt = 0, maxResults: MaxResults = WORKLOGS_CAP
                       ) -> Response:
    """Work logged on the issue, oldest first."""
    found = issues.get(episode.db, issue, CALLER)
    logs = rows(episode.db, "SELECT * FROM worklogs WHERE issue_id = ? ORDER BY id",
                (found["id"],))
    return ok(page_bean(_worklogs(episode, logs, base, version), startAt, maxResults,
                        WORKLOGS_CAP, key="worklogs"))


@router.get("/issue/{issue}/worklog/{worklog_id}", operation_id="get_worklog",
            summary="Get a worklog")
async def get_worklog(version: Version, issue: IssueRef, worklog_id: WorklogId,
                      episode: EpisodeDep, base: Base) -> Response:
    """One worklog of the issue."""
    found = worklogs.find(episode.db, issues.get(episode.db, issue, CALLER), worklog_id)
    return ok(_worklogs(episode, [found], base, version)[0])


@router.put("/issue/{issue}/worklog/{worklog_id}", operation_id="update_worklog",
            summary="Update a worklog")
async def update_worklog(version: Version, issue: IssueRef, worklog_id: WorklogId,
                         body: WorklogBody, episode: EpisodeDep, base: Base,
                         adjustEstimate: Adjust = "auto",
                         newEstimate: Duration = None) -> Response:
    """Correct a worklog (what the body gives): Edit own worklogs for yours, Edit all
    worklogs for anyone's; ``auto`` moves the remaining estimate by the difference."""
    made = worklogs.edit(episode.db, issues.get(episode.db, issue, CALLER), worklog_id, body,
                         CALLER, episode.now(), adf=version == "3",
                         estimate=Estimate(adjustEstimate, newEstimate))
    return ok(_worklogs(episode, [made], base, version)[0])


@router.delete("/issue/{issue}/worklog/{worklog_id}", operation_id="delete_worklog",
               summary="Delete a worklog", status_code=204)
async def delete_worklog(version: Version, issue: IssueRef, worklog_id: WorklogId,
                         episode: EpisodeDep, adjustEstimate: Adjust = "auto",
                         newEstimate: Duration = None, increaseBy: Duration = None
                         ) -> Response:
    """Delete a worklog: Delete own worklogs for yours, Delete all worklogs for anyone's;
    ``auto`` gives its time back to the remaining estimate."""
    worklogs.delete(episode.db, issues.get(episode.db, issue, CALLER), worklog_id, CALLER,
                    episode.now(), estimate=Estimate(adjustEstimate, newEstimate, increaseBy))
    return Response(status_code=204)
