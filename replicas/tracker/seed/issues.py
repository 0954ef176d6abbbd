"""Issues, their comments, watchers, links and histories: each project's work over its
sprints (done in the closed ones, under way in the active one, planned in the future ones,
the rest in the backlog), with the deliberate mess: duplicates closed as Duplicate and
linked to their original, open issues still assigned to former staff, bugs about the
identity's orders (the ones charged twice are the checkout's and the helpdesk's too)."""

from __future__ import annotations

from datetime import datetime, timedelta

import orjson

from replicas.runtime.clock import iso

from ..formats import text_to_adf
from ..world import issue_text, status_change, workflow_name
from .common import Generation, Row

PER_PROJECT = {"SHOP": 110, "APP": 60, "PLAT": 40}
DUPLICATE_SHARE = 0.08  # MESS: bugs filed again, later closed as duplicates
STALE_SHARE = 0.1  # MESS: open issues still assigned to former staff
FIRST_ISSUE_ID = 10001
# Statuses of each workflow where work is under way.
UNDER_WAY = {"software": ["In Progress", "In Review", "QA", "Blocked", "Selected for "
                          "Development"],
             "bug": ["In Progress", "Open", "Reopened", "Resolved"],
             "ops": ["In Progress", "Blocked", "Open"]}
POINTS = [1, 2, 3, 5, 8]


def _json(value: object) -> str:
    return orjson.dumps(value).decode()


def build(g: Generation) -> None:
    r, w = g.rng, g.w
    issues: list[Row] = []
    comments: list[Row] = []
    links: list[Row] = []
    watchers: list[Row] = []
    history: list[Row] = []
    twice = [p.number for p in g.identity.world_orders if p.twice]
    orders = [p.number for p in g.identity.world_orders if p.paid]
    projects = {p["key"]: p for p in g.tables["projects"]}
    for key, count in PER_PROJECT.items():
        project = projects[key]
        spec = next(p for p in w["projects"] if p["key"] == key)
        team = [u for u in g.teams[spec["team"]]]
        sprints = [s for s in g.tables["sprints"]
                   if s["board_id"] == next(b["id"] for b in g.tables["boards"]
                                            if b["project_id"] == project["id"])]
        components = {c["name"]: c["id"] for c in g.tables["components"]
                      if c["project_id"] == project["id"]}
        versions = [v for v in g.tables["versions"] if v["project_id"] == project["id"]]
        for n in range(1, count + 1):
            kind, component, summary, description = issue_text(
                r, key, [v["name"] for v in versions], orders, twice)
            sprint = r.choice(sprints + [None]) if sprints else None
            flow = workflow_name(key, kind)
            initial, finished = w["workflows"][flow]["initial"], w["workflows"][flow]["finished"]
            created = _created(g, sprint)
            if sprint is None or sprint["state"] == "future":
                status = initial if r.random() < 0.85 or sprint else r.choice(UNDER_WAY[flow])
            elif sprint["state"] == "closed":  # unfinished work went back to the backlog
                status = finished if r.random() < 0.9 else r.choice(UNDER_WAY[flow])
                if status != finished:
                    sprint = None
            else:
                status = r.choice([*UNDER_WAY[flow], finished, initial])
            done = status in ("Done", "Closed", "Resolved")
            assignee = r.choice(team) if status != initial or r.random() < 0.3 else None
            if assignee is not None and not done and r.random() < STALE_SHARE:
                assignee = r.choice(g.teams["Former"])  # MESS: stale assignee
            updated = min(g.now - timedelta(minutes=5),
                          created + timedelta(hours=r.uniform(2, 24 * 10)))
            issue_id = FIRST_ISSUE_ID + len(issues)
            issues.append({
                "id": issue_id, "key": f"{key}-{n}", "project_id": project["id"],
                "issue_type": kind, "summary": summary,
                "description": _json(text_to_adf(description)),
                "status": status, "resolution": "Done" if done else None,
                "priority": r.choices(["Highest", "High", "Medium", "Low", "Lowest"],
                                      [5, 20, 50, 20, 5])[0],
                "assignee_id": assignee, "reporter_id": r.choice(
                    team + g.teams["Product"] + (g.teams["Support"] if kind == "Bug" else [])),
                "labels": _json(["customer-reported"] if kind == "Bug" and r.random() < 0.5
                                else []),
                "components": _json([components[component]]),
                "fix_versions": _json([r.choice(versions)["id"]] if versions and done else []),
                "parent_id": None,
                "sprint_id": sprint["id"] if sprint else None,
                "story_points": float(r.choice(POINTS)) if kind == "Story" else None,
                "severity": r.choice(["S1", "S2", "S3", "S4"]) if kind == "Bug" else None,
                "original_estimate_s": None, "remaining_estimate_s": None, "time_spent_s": 0,
                "due_date": None, "created": iso(created), "updated_at": iso(updated),
                "resolution_date": iso(updated) if done else None})
            if status != initial:
                history.append({"issue_id": issue_id, "author_id": assignee or team[0],
                                "created": iso(updated),
                                "items": _json([status_change(initial, status)])})
            watchers += [{"issue_id": issue_id, "user_id": u}
                         for u in dict.fromkeys([issues[-1]["reporter_id"], assignee]) if u]
            if r.random() < 0.4:
                comments.append({"issue_id": issue_id, "author_id": r.choice(team),
                                 "body": _json(text_to_adf(r.choice(
                                     ["Looking into it.", "I can reproduce this on staging.",
                                      "Fixed in the branch, waiting for review.",
                                      "Needs a decision from product first."]))),
                                 "created": iso(updated), "updated_at": iso(updated)})
        _duplicates(g, issues, links, project["id"])
        project["issue_counter"] = count
    g.tables["issues"] = issues
    for table, rows in (("comments", comments), ("issue_links", links),
                        ("watchers", watchers), ("changelog", history)):
        g.tables[table] = [{"id": i, **row} for i, row in enumerate(rows, start=1)]


def _created(g: Generation, sprint: Row | None) -> datetime:
    r = g.rng
    if sprint is not None and sprint["start_date"]:
        start = datetime.fromisoformat(sprint["start_date"])
        return start - timedelta(days=r.uniform(1, 20))
    return g.ago(days=r.uniform(1, 120))


def _duplicates(g: Generation, issues: list[Row], links: list[Row], project_id: int) -> None:
    """MESS: a share of a project's bugs were filed again: the later one is closed as a
    Duplicate, linked to the earlier one (it duplicates it)."""
    r = g.rng
    bugs = [i for i in issues if i["project_id"] == project_id and i["issue_type"] == "Bug"]
    seen: dict[str, Row] = {}
    for bug in bugs:
        first = seen.setdefault(bug["summary"], bug)
        if first is bug or r.random() > DUPLICATE_SHARE:
            continue
        project = next(p["key"] for p in g.tables["projects"] if p["id"] == project_id)
        finished = g.w["workflows"][workflow_name(project, "Bug")]["finished"]
        bug.update(status=finished, resolution="Duplicate", resolution_date=bug["updated_at"])
        links.append({"link_type": "Duplicate", "outward_id": first["id"],
                      "inward_id": bug["id"]})
