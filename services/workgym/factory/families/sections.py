"""A rules file's sections that one family kind reads (``links``, ``cross``, ``follow_ups``):
the engine's task rules (``task_rules.TaskRules``) leave them to the families."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..task_rules import RULES


def section(app: str, name: str) -> dict[str, Any]:
    """The ``name`` section of ``replicas/<app>/source/rules.yaml`` (empty: none)."""
    import replicas

    path = Path(next(iter(replicas.__path__))) / app / "source" / RULES
    raw = yaml.safe_load(path.read_text()) or {}
    found = raw.get(name) or {}
    return dict(found)
