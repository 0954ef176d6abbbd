"""Permissions by project role on a seeded world: developers work issues, support agents
browse, create, comment and link only, and each refusal is Jira's status and words."""

from __future__ import annotations

import sqlite3

import pytest

from replicas.runtime.db import one
from replicas.tracker.errors import JiraError
from replicas.tracker.rules.permissions import editable, has, require, roles_of

from .conftest import seeded


@pytest.fixture(scope="module")
def world() -> sqlite3.Connection:
    """World 1, shared by this module's tests (they only read it)."""
    return seeded()


def _a(world: sqlite3.Connection, role: str) -> int:
    found = one(world, "SELECT user_id FROM project_role_members WHERE role = ? AND "
                "project_id = 10000 AND user_id != 1 LIMIT 1", (role,))
    assert found is not None
    return int(found["user_id"])


def test_roles_and_what_they_may_do(world: sqlite3.Connection) -> None:
    assert roles_of(world, 10000, 1) == {"Developers"}  # the AI agent works on every project
    support = _a(world, "Support")
    assert roles_of(world, 10000, support) == {"Support"}
    assert has(world, 10000, support, "ADD_COMMENTS")
    assert not has(world, 10000, support, "TRANSITION_ISSUES")
    assert has(world, 10000, _a(world, "Administrators"), "DELETE_ISSUES")
    assert not has(world, 10000, 1, "DELETE_ISSUES")


@pytest.mark.parametrize(("operation", "status", "words"), [
    ("transition", 400, "permission to transition"),
    ("assign", 403, "permission to assign"),
    ("watchers", 403, "watcher list"),
    ("delete", 403, "permission to delete"),
])
def test_refusals_in_jiras_status_and_words(world: sqlite3.Connection, operation: str,
                                            status: int, words: str) -> None:
    support = _a(world, "Support")
    with pytest.raises(JiraError) as refused:
        require(world, 10000, support, operation, name="Sam Support")
    assert refused.value.status_code == status and words in refused.value.messages[0]
    require(world, 10000, support, "comment", name="Sam Support")  # allowed


def test_editing_without_edit_issues_refuses_each_field(world: sqlite3.Connection) -> None:
    with pytest.raises(JiraError) as refused:
        editable(world, 10000, _a(world, "Support"), ["summary", "labels"])
    assert refused.value.status_code == 400 and set(refused.value.errors) == {"summary",
                                                                              "labels"}
    editable(world, 10000, 1, ["summary"])
