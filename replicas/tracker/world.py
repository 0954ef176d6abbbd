"""The tracker's static material (``world.yaml``): the Jira site's configuration and the
engineering org, shared by the world generator (``seed/``), the rules and the factories.
Import-light: no SQLAlchemy."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from replicas.runtime.world import load_yaml


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
