"""Projects with their role members, components, versions, boards and sprints.

Roles: the owning team and the AI agent are Developers; product managers Administrators of
every project; support agents hold the Support role everywhere; the other teams are
Developers of each other's projects too (they fix each other's bugs)."""

from __future__ import annotations

from datetime import timedelta

from replicas.runtime.clock import iso

from .common import Generation, Row

FIRST_PROJECT_ID = 10000


def build(g: Generation) -> None:
    projects: list[Row] = []
    roles: list[Row] = []
    components: list[Row] = []
    versions: list[Row] = []
    boards: list[Row] = []
    sprints: list[Row] = []
    engineers = [u for team, members in g.teams.items() if team not in (
        "Product", "Support", "Former") for u in members]
    for i, spec in enumerate(g.w["projects"]):
        project_id = FIRST_PROJECT_ID + i
        team = g.teams[spec["team"]]
        projects.append({"id": project_id, "key": spec["key"], "name": spec["name"],
                         "lead_id": team[0], "description": "", "issue_counter": 0})
        members = [(u, "Developers") for u in dict.fromkeys(engineers)]
        members += [(u, "Administrators") for u in g.teams["Product"]]
        members += [(u, "Support") for u in g.teams["Support"]]
        roles += [{"project_id": project_id, "role": role, "user_id": user}
                  for user, role in members]
        components += [{"project_id": project_id, "name": name, "description": "",
                        "lead_id": g.rng.choice(team)} for name in spec["components"]]
        versions += [{"project_id": project_id, "name": name, "released": int(released),
                      "archived": 0,
                      "release_date": (g.now + timedelta(days=offset)).date().isoformat()}
                     for name, released, offset in spec["versions"]]
        board_id = len(boards) + 1
        boards.append({"id": board_id, "name": f"{spec['key']} board", "type": spec["board"],
                       "project_id": project_id})
        if spec["board"] == "scrum":
            sprints += _sprints(g, board_id, spec["key"], len(sprints))
    for table, rows in (("projects", projects), ("project_role_members", roles),
                        ("components", components), ("versions", versions),
                        ("boards", boards), ("sprints", sprints)):
        g.tables[table] = [{"id": row.get("id", n), **row}
                           for n, row in enumerate(rows, start=1)]


def _sprints(g: Generation, board_id: int, key: str, before: int) -> list[Row]:
    """Two-week sprints: closed ones, the active one, future ones (no dates yet)."""
    spec = g.w["sprints"]
    length = timedelta(days=spec["length_days"])
    active_start = g.ago(days=spec["active_started_days_ago"]).replace(hour=9, minute=0)
    rows: list[Row] = []
    for n in range(spec["closed"], 0, -1):
        start = active_start - n * length
        rows.append({"board_id": board_id, "name": f"{key} Sprint {len(rows) + 1}",
                     "state": "closed", "goal": "", "start_date": iso(start),
                     "end_date": iso(start + length), "complete_date": iso(start + length)})
    rows.append({"board_id": board_id, "name": f"{key} Sprint {len(rows) + 1}",
                 "state": "active", "goal": "", "start_date": iso(active_start),
                 "end_date": iso(active_start + length), "complete_date": None})
    for _ in range(spec["future"]):
        rows.append({"board_id": board_id, "name": f"{key} Sprint {len(rows) + 1}",
                     "state": "future", "goal": "", "start_date": None, "end_date": None,
                     "complete_date": None})
    return [{"id": before + i, **row} for i, row in enumerate(rows, start=1)]
