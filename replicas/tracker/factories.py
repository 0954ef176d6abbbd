"""The tracker's row factories, for task setup (replicas/runtime/factories.py)::

    - {factory: issue, bind: bug, project: SHOP, issue_type: Bug, summary: "Checkout ...",
       text: "Customers report ... {{ helpdesk.ticket.id }}", status: In Progress,
       sprint: active, labels: '["customer-reported"]'}
    - {factory: comment, issue_id: $bug.id, text: "Reproduced on staging."}
    - {factory: remote_link, issue_id: $bug.id, ticket: $helpdesk.ticket.id}

An issue gets its project's next key (``SHOP-211``), a reporter from the project's
developers, a priority (a bug a severity too) and timestamps drawn like the world's; its
summary and description (and type) default to one of the project's texts; its
status defaults to its workflow's initial one, a status of the done category comes with the
resolution Done. ``text`` is the description (or comment) in wiki text, stored as ADF.
``sprint``: ``active`` or ``future`` (the project board's first such sprint). Columns given
win (``labels``, ``components`` and ``fix_versions`` are JSON lists, as stored). The
reporter watches the issue; a status past the initial one is in its history.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import orjson

from replicas.runtime.clock import iso, parse_iso
from replicas.runtime.factories import Factory, FactoryContext

from .formats import text_to_adf
from .rules import workflows
from .rules.relations import ticket_link
from .world import (
    AGENT_ID,
    issue_text,
    status_category,
    status_change,
    statuses_in,
)

Row = dict[str, Any]


def _adf(text: str) -> str:
    return orjson.dumps(text_to_adf(text)).decode()


def _developer(ctx: FactoryContext, project_id: int) -> int:
    found = ctx.pick("project_role_members", "project_id = ? AND role = 'Developers' AND "
                     "user_id != ? AND user_id IN (SELECT id FROM users WHERE active)",
                     (project_id, AGENT_ID))
    return int(ctx.row("project_role_members", found)["user_id"])


class IssueFactory(Factory):
    """An issue of a project (``project``: its key, SHOP by default)."""

    table = "issues"
    options = frozenset({"project", "text", "sprint"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        r = ctx.rng
        project = ctx.db.execute("SELECT * FROM projects WHERE key = ?",
                                 (given.get("project", "SHOP"),)).fetchone()
        if project is None:
            raise ValueError(f"no project {given.get('project')!r}")
        drawn = self._text(ctx, project, given.get("issue_type"))
        kind = given.get("issue_type", drawn[0])
        flow = workflows.flow(project["key"], kind)
        status = given.get("status", flow.initial)
        done = status_category(status) == "done"
        created = (parse_iso(given["created"]) if given.get("created")
                   else ctx.ago(days=r.uniform(1, 30)))
        updated = max(created, min(ctx.now - timedelta(minutes=5),
                                   created + timedelta(hours=r.uniform(1, 72))))
        return {
            "key": f"{project['key']}-{project['issue_counter'] + 1}",
            "project_id": project["id"], "issue_type": kind, "status": status,
            "summary": drawn[2],
            # A given summary without text: no description (a drawn one would not match it).
            "description": _adf(given["text"]) if given.get("text") else (
                None if given.get("summary") else _adf(drawn[3])),
            "resolution": "Done" if done else None,
            "priority": r.choices(["Highest", "High", "Medium", "Low"], [5, 25, 50, 20])[0],
            "severity": r.choice(["S1", "S2", "S3"]) if kind == "Bug" else None,
            "assignee_id": None, "reporter_id": _developer(ctx, project["id"]),
            "labels": "[]", "components": "[]", "fix_versions": "[]",
            "sprint_id": self._sprint(ctx, project["id"], given.get("sprint")),
            "created": iso(created), "updated_at": iso(updated),
            "resolution_date": iso(updated) if done else None,
        }

    @staticmethod
    def _text(ctx: FactoryContext, project: Row, kind: str | None) -> tuple[str, str, str, str]:
        """A text of the project's, of type ``kind`` if one is (else any): a summary and
        description to use where the setup gives none."""
        versions = [v["name"] for v in ctx.db.execute(
            "SELECT name FROM versions WHERE project_id = ? ORDER BY id", (project["id"],))]
        orders = [o.number for o in ctx.identity.world_orders if o.paid]
        twice = [o.number for o in ctx.identity.world_orders if o.twice]
        drawn = [issue_text(ctx.rng, project["key"], versions, orders, twice) for _ in range(8)]
        return next((d for d in drawn if d[0] == kind), drawn[0])

    @staticmethod
    def _sprint(ctx: FactoryContext, project_id: int, state: str | None) -> int | None:
        if state is None:
            return None
        if state not in ("active", "future"):
            raise ValueError(f"sprint: {state!r} is not active or future")
        found = ctx.db.execute(
            "SELECT s.id FROM sprints s JOIN boards b ON b.id = s.board_id WHERE "
            "b.project_id = ? AND s.state = ? ORDER BY s.id LIMIT 1", (project_id, state)
        ).fetchone()
        if found is None:
            raise ValueError(f"project {project_id} has no {state} sprint")
        return int(found["id"])

    def after(self, ctx: FactoryContext, row: Mapping[str, Any],
              given: Mapping[str, Any]) -> None:
        number = int(row["key"].rsplit("-", 1)[1])
        ctx.db.execute("UPDATE projects SET issue_counter = max(issue_counter, ?) WHERE id = ?",
                       (number, row["project_id"]))
        ctx.insert("watchers", {"issue_id": row["id"], "user_id": row["reporter_id"]})
        initial = workflows.flow(row["key"].rsplit("-", 1)[0], row["issue_type"]).initial
        if row["status"] != initial:
            ctx.insert("changelog", {
                "issue_id": row["id"], "author_id": row["assignee_id"] or row["reporter_id"],
                "created": row["updated_at"],
                "items": orjson.dumps([status_change(initial, row["status"])]).decode()})


class CommentFactory(Factory):
    """A comment on ``issue_id`` (a random unfinished issue if not given) by one of its
    project's developers."""

    table = "comments"
    options = frozenset({"text"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        issue = ctx.row("issues", given.get("issue_id") or _unfinished(ctx))
        at = iso(max(ctx.ago(hours=ctx.rng.uniform(1, 48)),
                     parse_iso(issue["created"]) + timedelta(minutes=30)))
        return {"issue_id": issue["id"], "author_id": _developer(ctx, issue["project_id"]),
                "body": _adf(given.get("text", "")), "created": at, "updated_at": at}


class RemoteLinkFactory(Factory):
    """A link from ``issue_id`` (a random unfinished issue if not given) to the helpdesk's
    ticket ``ticket`` (its id; a random one if not given), as the helpdesk integration makes
    them (rules/relations.ticket_link)."""

    table = "remote_links"
    options = frozenset({"ticket"})

    def build(self, ctx: FactoryContext, given: Mapping[str, Any]) -> Row:
        ticket = int(given.get("ticket") or ctx.rng.randint(1, 400))
        return {"issue_id": given.get("issue_id") or _unfinished(ctx), **ticket_link(ticket)}


def _unfinished(ctx: FactoryContext) -> int:
    done = statuses_in("done")
    return int(ctx.pick("issues", f"status NOT IN ({','.join('?' * len(done))})", tuple(done)))


FACTORIES: dict[str, Factory] = {"issue": IssueFactory(), "comment": CommentFactory(),
                                 "remote_link": RemoteLinkFactory()}

# The world going on around a task's setup (replicas/runtime/setup.py): a new issue where
# work happens (the project of the newest issue), from the project's own texts.
ACTIVITY: tuple[dict[str, Any], ...] = (
    {"select": "issues", "order_by": "-id", "bind": "newest"},
    {"select": "projects", "where": {"id": "$newest.project_id"}, "bind": "project"},
    {"factory": "issue", "project": "$project.key", "created": "$activity.at"},
)
