"""The support team: groups and agents (agent 1 "AI Agent" is the one the API acts as).

Agents are staff, not the identity's people: their names are drawn from its name lists."""

from __future__ import annotations

from replicas.runtime.clock import iso
from replicas.runtime.identity import ascii_fold

from .common import Generation, Row


def build(g: Generation) -> None:
    build_groups(g)
    build_agents(g)


def build_groups(g: Generation) -> None:
    g.tables["groups"] = [
        {"id": i, "name": name, "description": desc}
        for i, (name, desc) in enumerate(g.w["groups"], start=1)
    ]
    g.group_ids = {group["name"]: group["id"] for group in g.tables["groups"]}


def build_agents(g: Generation) -> None:
    r, w, names = g.rng, g.w, g.identity_data
    agents: list[Row] = [
        {
            "id": 1,
            "name": "AI Agent",
            "email": "ai.agent@helpdesk.example",
            "role": "agent",
            "group_id": g.group_ids["Support"],
            "active": 1,
            "created_at": iso(g.ago(days=30)),
        }
    ]
    us_first, us_last = names["first_names"]["en-US"], names["last_names"]["en-US"]
    roster = [
        (group, role)
        for group, spec in w["agent_roster"].items()
        for role, count in spec
        for _ in range(count)
    ]
    roster += [("Support", "agent")] * w["inactive_agents"]
    for index, (group, role) in enumerate(roster):
        first, last = r.choice(us_first), r.choice(us_last)
        agents.append(
            {
                "id": len(agents) + 1,
                "name": f"{first} {last}",
                "email": g.unique_email(
                    f"{ascii_fold(first)}.{ascii_fold(last)}", "helpdesk.example"
                ),
                "role": role,
                "group_id": g.group_ids[group],
                "active": 0 if index >= len(roster) - w["inactive_agents"] else 1,
                "created_at": iso(g.ago(days=r.randint(60, 1500))),
            }
        )
    g.tables["agents"] = agents
    g.group_agents = {}
    for a in agents:
        if a["active"] and a["role"] != "manager" and a["id"] != 1:
            g.group_agents.setdefault(a["group_id"], []).append(a["id"])
