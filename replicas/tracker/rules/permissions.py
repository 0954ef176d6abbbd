"""Permissions by project role, as Jira's permission scheme grants them (world.yaml
``permissions``: permission -> roles), and the refusal each operation meets without its
permission, in Jira's status and words (they differ by operation: a hidden issue is a 404,
a comment refused a 400, an assignment refused a 403)."""

from __future__ import annotations

import sqlite3
from typing import Any

from replicas.runtime.db import rows

from ..errors import ISSUE_NOT_FOUND, JiraError
from ..world import data

# operation -> (the permission it needs, Jira's status, errorMessages text or None: a field
# error instead). "{name}" is the caller's display name.
REFUSALS: dict[str, tuple[str, int, str]] = {
    "browse": ("BROWSE_PROJECTS", 404, ISSUE_NOT_FOUND),
    "create": ("CREATE_ISSUES", 400, "You do not have permission to create issues in this "
               "project."),
    "transition": ("TRANSITION_ISSUES", 400, "You do not have permission to transition this "
                   "issue."),
    "assign": ("ASSIGN_ISSUES", 403, "You do not have permission to assign issues."),
    "edit": ("EDIT_ISSUES", 403, "You do not have permission to edit this issue."),
    "link": ("LINK_ISSUES", 404, "No Link Issue Permission for issue '{key}'."),
    "watchers": ("MANAGE_WATCHERS", 403, "User '{name}' is not allowed to manage the "
                 "watcher list of this issue."),
    "comment": ("ADD_COMMENTS", 400, "{name}, you do not have the permission to comment on "
                "this issue."),
    "worklog": ("WORK_ON_ISSUES", 400, "You do not have the permission to log work on this "
                "issue."),
    "delete": ("DELETE_ISSUES", 403, "You do not have permission to delete issues in this "
               "project."),
    "sprint": ("MANAGE_SPRINTS_PERMISSION", 403, "To manage sprints the user has to have "
               "the Manage sprints permission."),
    "attach": ("CREATE_ATTACHMENTS", 403, "You do not have permission to create attachments "
               "for this issue."),
    "schedule": ("SCHEDULE_ISSUES", 403, "To rank issues user has to have schedule issue "
                 "permission."),
    # Versions and components (Administer projects): 403 for components, as Jira answers;
    # the version operations answer 400 (edit, delete) and 404 (create: no such project).
    "component": ("ADMINISTER_PROJECTS", 403, "You do not have permission to manage the "
                  "components of this project."),
    "version": ("ADMINISTER_PROJECTS", 400, "You must have global or project administrator "
                "rights in order to modify versions."),
    "version_create": ("ADMINISTER_PROJECTS", 404, "You must have global or project "
                       "administrator rights in order to modify versions."),
}
# What one may do to one's own record with one permission and to anyone's with another:
# operation -> (own, all, Jira's status, errorMessages text).
OWN_OR_ALL: dict[str, tuple[str, str, int, str]] = {
    "edit_comment": ("EDIT_OWN_COMMENTS", "EDIT_ALL_COMMENTS", 400,
                     "You do not have the permission to edit this comment."),
    "delete_comment": ("DELETE_OWN_COMMENTS", "DELETE_ALL_COMMENTS", 400,
                       "You do not have the permission to delete this comment."),
    "edit_worklog": ("EDIT_OWN_WORKLOGS", "EDIT_ALL_WORKLOGS", 400,
                     "You do not have the permission to update this worklog."),
    "delete_worklog": ("DELETE_OWN_WORKLOGS", "DELETE_ALL_WORKLOGS", 400,
                       "You do not have the permission to delete this worklog."),
    "delete_attachment": ("DELETE_OWN_ATTACHMENTS", "DELETE_ALL_ATTACHMENTS", 403,
                          "You do not have permission to delete attachment with id: {id}"),
}


def roles_of(db: sqlite3.Connection, project_id: int, user_id: int) -> frozenset[str]:
    return frozenset(r["role"] for r in rows(
        db, "SELECT role FROM project_role_members WHERE project_id = ? AND user_id = ?",
        (project_id, user_id)))


def permissions_of(roles: frozenset[str]) -> frozenset[str]:
    """The permissions these project roles hold."""
    return frozenset(p for p, granted in data()["permissions"].items() if roles & set(granted))


def has(db: sqlite3.Connection, project_id: int, user_id: int, permission: str) -> bool:
    return permission in permissions_of(roles_of(db, project_id, user_id))


def browsable(db: sqlite3.Connection, user_id: int) -> list[int]:
    """The projects whose issues ``user_id`` may see (Browse projects), by id."""
    return [p["id"] for p in rows(db, "SELECT id FROM projects ORDER BY id")
            if has(db, p["id"], user_id, "BROWSE_PROJECTS")]


def assignable(project_id: int) -> tuple[str, tuple[Any, ...]]:
    """SQL over users: who may be assigned the project's issues (the active members of the
    roles holding Assignable user), and its parameters."""
    roles = data()["permissions"]["ASSIGNABLE_USER"]
    return ("active AND id IN (SELECT user_id FROM project_role_members WHERE project_id = ? "
            f"AND role IN ({','.join('?' * len(roles))}))", (project_id, *roles))


def require(db: sqlite3.Connection, project_id: int, user_id: int, operation: str, *,
            name: str = "", key: str = "") -> None:
    """Refuse ``operation`` as Jira does when the caller lacks its permission."""
    permission, status, message = REFUSALS[operation]
    if not has(db, project_id, user_id, permission):
        raise JiraError(status, [message.format(name=name, key=key)],
                        code=f"missing_{permission.lower()}")


def require_own(db: sqlite3.Connection, project_id: int, user_id: int, operation: str,
                owner_id: int, record_id: int = 0) -> None:
    """Refuse ``operation`` on a record ``owner_id`` made (``record_id``: its id, where the
    refusal names it) unless the caller may do it to anyone's, or to their own and it is
    theirs."""
    own, every, status, message = OWN_OR_ALL[operation]
    held = permissions_of(roles_of(db, project_id, user_id))
    if every in held or (owner_id == user_id and own in held):
        return
    missing = own if owner_id == user_id else every
    raise JiraError(status, [message.format(id=record_id)], code=f"missing_{missing.lower()}")


def editable(db: sqlite3.Connection, project_id: int, user_id: int,
             fields: list[str]) -> None:
    """Editing without *Edit issues*: Jira refuses each field as off the screen (400)."""
    if fields and not has(db, project_id, user_id, "EDIT_ISSUES"):
        raise JiraError(400, [], {f: f"Field '{f}' cannot be set. It is not on the "
                                     "appropriate screen, or unknown." for f in fields},
                        code="missing_edit_issues")
