"""The tracker's static material (``world.yaml``): the Jira site's configuration and the
engineering org, shared by the world generator (``seed/``), the rules and the factories.
Import-light: no SQLAlchemy."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from replicas.runtime.world import load_yaml

# The account the agent acts as: user 1, "AI Agent", a developer on every project.
AGENT_ID = 1


@cache
def data() -> dict[str, Any]:
    """world.yaml, parsed once per process."""
    found: dict[str, Any] = load_yaml(Path(__file__).with_name("world.yaml"))
    return found


def account_id(seed: int, index: int) -> str:
    """An Atlassian account id for the ``index``-th user of a world: 24 hex digits, stable
    per seed, unlike any other world's."""
    return hashlib.sha256(f"tracker:{seed}:{index}".encode()).hexdigest()[:24]


def workflow_name(project_key: str, issue_type: str) -> str:
    """The workflow an issue of this type runs in this project (the project's scheme)."""
    scheme = next(p for p in data()["projects"] if p["key"] == project_key)["workflows"]
    name: str = scheme.get(issue_type, scheme["*"])
    return name


def status_category(status: str) -> str:
    """The category key of a status: new, indeterminate or done."""
    return _categories()[status]


@cache
def _categories() -> dict[str, str]:
    return {s[1]: s[2] for s in data()["statuses"]}


def statuses_in(*categories: str) -> list[str]:
    """The statuses of these categories, by name."""
    return [s[1] for s in data()["statuses"] if s[2] in categories]


def board_columns() -> list[tuple[str, list[tuple[int, str]]]]:
    """A board's columns: one per status category (To Do, In Progress, Done), in that
    order, each with its statuses as (id, name)."""
    return [(c[2], [(s[0], s[1]) for s in data()["statuses"] if s[2] == c[1]])
            for c in data()["status_categories"]]


def issue_text(rng: random.Random, project_key: str, versions: Sequence[str],
               orders: Sequence[str], twice: Sequence[str]) -> tuple[str, str, str, str]:
    """An issue's (type, component, summary, description in wiki text), drawn from the
    project's texts and filled: ``versions`` (names), ``orders`` (paid order numbers),
    ``twice`` (numbers of orders charged twice)."""
    w = data()
    kind, component, summary, description = rng.choice(w["issue_texts"][project_key])
    fill = {"version": rng.choice(versions) if versions else "production",
            "browser": rng.choice(w["browsers"]),
            "device": rng.choice([*w["devices"]["iOS"], *w["devices"]["Android"]]),
            "iphone": rng.choice(w["devices"]["iOS"]),
            "android": rng.choice(w["devices"]["Android"]),
            "order": rng.choice(orders),
            "orders": ", ".join(sorted(rng.sample(list(twice), min(3, len(twice))))),
            "code": "{code}"}  # wiki's code-block marker, in a str.format template
    return kind, component, summary.format(**fill), description.format(**fill)


def status_change(old: str, new: str) -> dict[str, Any]:
    """The changelog item of a status change: ids in from/to, names in the strings."""
    ids = {s[1]: str(s[0]) for s in data()["statuses"]}
    return {"field": "status", "fieldtype": "jira", "from": ids[old], "fromString": old,
            "to": ids[new], "toString": new}
