"""What every helpdesk rule module shares: who the API acts as, tags and record errors."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from workgym_core.errors import RuleViolation

# The agent calling the API: every comment, merge and macro the API writes is authored by
# user 1, "AI Agent" (Support group), unless a comment names another author.
ACTING_AGENT_ID = 1


def tags_of(row: dict[str, Any]) -> list[str]:
    found: list[str] = orjson.loads(row["tags"])
    return found


def normal_tags(tags: Iterable[str]) -> list[str]:
    """Tags as Zendesk stores them: lowercase, spaces split, each once, in order."""
    out: list[str] = []
    for tag in tags:
        for part in tag.lower().split():
            if part not in out:
                out.append(part)
    return out


def invalid(field: str, message: str, rule: str) -> RuleViolation:
    """Zendesk's RecordInvalid about ``field`` (its description: ``<Field>: <message>``)."""
    title = field.replace("_id", "").replace("_", " ").capitalize()
    return RuleViolation(f"{title}: {message}", code=rule, field=field, rule=rule)
