"""The people of the Jira site: user 1 "AI Agent" (the API's caller, a developer on every
project), the engineering teams, product managers, support agents and former staff. Staff,
not the identity's customers: their names are drawn from its name lists."""

from __future__ import annotations

from replicas.runtime.identity import ascii_fold

from ..world import AGENT_ID, account_id
from .common import Generation, Row

DOMAIN = "shop.example"


def build(g: Generation) -> None:
    r = g.rng
    first, last = g.identity_data["first_names"]["en-US"], g.identity_data["last_names"]["en-US"]
    users: list[Row] = [_user(g, AGENT_ID, "AI Agent", "ai.agent@" + DOMAIN, True)]
    g.teams = {"AI": [AGENT_ID]}
    roster = [team for team, spec in g.w["teams"].items() for _ in range(spec["people"])]
    roster += ["Former"] * g.w["inactive_engineers"]
    for team in roster:
        name = f"{r.choice(first)} {r.choice(last)}"
        local = ".".join(ascii_fold(part) for part in name.split(" "))
        user = _user(g, len(users) + 1, name, g.unique_email(local, DOMAIN), team != "Former")
        users.append(user)
        g.teams.setdefault(team, []).append(user["id"])
    g.tables["users"] = users


def _user(g: Generation, index: int, name: str, email: str, active: bool) -> Row:
    return {"id": index, "account_id": account_id(g.seed, index), "display_name": name,
            "email": email, "active": int(active), "time_zone": "Europe/Berlin",
            "locale": "en_US"}
