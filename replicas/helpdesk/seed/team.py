"""The support team: groups, and the staff users (agents and admins) with their group
memberships. User 1 "AI Agent" is the one the API acts as; managers are admins.

Staff are not the identity's people: their names are drawn from its name lists."""

from __future__ import annotations

from replicas.runtime.clock import iso
from replicas.runtime.identity import ascii_fold

from .common import Generation, Row

# world.yaml's roster roles -> Zendesk roles.
ROLES = {"agent": "agent", "lead": "agent", "manager": "admin"}


def build(g: Generation) -> None:
    build_groups(g)
    build_staff(g)


def build_groups(g: Generation) -> None:
    g.tables["groups"] = [
        {"id": i, "name": name, "description": desc}
        for i, (name, desc) in enumerate(g.w["groups"], start=1)
    ]
    g.group_ids = {group["name"]: group["id"] for group in g.tables["groups"]}


def _staff(id: int, name: str, email: str, role: str, group: int, active: int,
           created: str) -> Row:
    return {"id": id, "name": name, "email": email, "phone": None, "role": role,
            "organization_id": None, "default_group_id": group, "tier": None,
            "locale": "en-US", "active": active, "notes": "", "created_at": created,
            "updated_at": created, "legacy_id": None, "legacy_created": None}


def build_staff(g: Generation) -> None:
    r, w, names = g.rng, g.w, g.identity_data
    staff = [_staff(1, "AI Agent", "ai.agent@helpdesk.example", "agent",
                    g.group_ids["Support"], 1, iso(g.ago(days=30)))]
    us_first, us_last = names["first_names"]["en-US"], names["last_names"]["en-US"]
    roster = [(group, role) for group, spec in w["agent_roster"].items()
              for role, count in spec for _ in range(count)]
    roster += [("Support", "agent")] * w["inactive_agents"]
    leads: list[Row] = []
    for index, (group, role) in enumerate(roster):
        first, last = r.choice(us_first), r.choice(us_last)
        user = _staff(len(staff) + 1, f"{first} {last}",
                      g.unique_email(f"{ascii_fold(first)}.{ascii_fold(last)}",
                                     "helpdesk.example"),
                      ROLES[role], g.group_ids[group],
                      0 if index >= len(roster) - w["inactive_agents"] else 1,
                      iso(g.ago(days=r.randint(60, 1500))))
        staff.append(user)
        if role == "lead":
            leads.append(user)
    g.tables["users"] = staff
    memberships = [(u["id"], u["default_group_id"], 1, u["created_at"]) for u in staff]
    # Leads also cover Support's queue.
    memberships += [(u["id"], g.group_ids["Support"], 0, u["created_at"]) for u in leads
                    if u["default_group_id"] != g.group_ids["Support"]]
    g.tables["group_memberships"] = [
        {"id": i, "user_id": user, "group_id": group, "is_default": default, "created_at": at}
        for i, (user, group, default, at) in enumerate(memberships, start=1)]
    g.group_agents = {}
    for u in staff:
        if u["active"] and u["role"] == "agent" and u["id"] != 1:
            g.group_agents.setdefault(u["default_group_id"], []).append(u["id"])
