"""The tracker schema, Jira Cloud's resources: one SQLModel table class per table.

The runtime compiles the DDL from this metadata when seed/ writes a world; routes read and
write rows with plain sqlite3 and render Jira's JSON (v2: plain text, v3: ADF). Timestamps
are ISO strings 'YYYY-MM-DDTHH:MM:SSZ' (rendered as Jira's '2025-06-16T09:00:00.000+0000');
JSON columns hold JSON text. Workflows, permissions and screens are data (world.yaml), read
by the rules.
"""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class TrackerModel(SQLModel, registry=registry()):
    """Base of tracker tables: its own metadata, so other replicas' tables never mix in."""


class User(TrackerModel, table=True):
    """Atlassian accounts: engineers, product people, and support staff (whose project
    roles let them do less). User 1 is the API's caller."""

    __tablename__ = "users"

    id: int | None = Field(default=None, primary_key=True)
    account_id: str = Field(unique=True)  # Atlassian's opaque id, e.g. 5b10ac8d82e05b22cc7d4ef5
    display_name: str
    email: str | None = None
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    time_zone: str = "Europe/Berlin"
    locale: str = "en_US"


class Project(TrackerModel, table=True):
    __tablename__ = "projects"

    id: int | None = Field(default=None, primary_key=True)  # Jira's 10000, 10001, ...
    key: str = Field(unique=True)  # SHOP
    name: str
    lead_id: int = Field(foreign_key="users.id")
    description: str = Field(default="", sa_column_kwargs={"server_default": ""})
    issue_counter: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class ProjectRoleMember(TrackerModel, table=True):
    """Who holds which project role (Administrators, Developers, Support): the permission
    scheme (world.yaml) grants permissions to roles."""

    __tablename__ = "project_role_members"

    id: int | None = Field(default=None, primary_key=True)
    project_id: int = Field(foreign_key="projects.id", index=True)
    role: str
    user_id: int = Field(foreign_key="users.id")


class Component(TrackerModel, table=True):
    __tablename__ = "components"

    id: int | None = Field(default=None, primary_key=True)
    project_id: int = Field(foreign_key="projects.id", index=True)
    name: str
    description: str = Field(default="", sa_column_kwargs={"server_default": ""})
    lead_id: int | None = Field(default=None, foreign_key="users.id")


class Version(TrackerModel, table=True):
    __tablename__ = "versions"

    id: int | None = Field(default=None, primary_key=True)
    project_id: int = Field(foreign_key="projects.id", index=True)
    name: str
    released: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    archived: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    release_date: str | None = None  # YYYY-MM-DD
    start_date: str | None = None  # YYYY-MM-DD
    description: str = Field(default="", sa_column_kwargs={"server_default": ""})


class Issue(TrackerModel, table=True):
    __tablename__ = "issues"

    id: int | None = Field(default=None, primary_key=True)  # Jira's numeric id
    key: str = Field(unique=True)  # SHOP-123
    project_id: int = Field(foreign_key="projects.id", index=True)
    issue_type: str  # world.yaml issue types: Bug, Story, Task, Epic, Sub-task
    summary: str
    description: str | None = None  # ADF document (JSON)
    status: str = Field(index=True)  # world.yaml statuses, by name
    resolution: str | None = None  # Done, Duplicate, Won't Do, Cannot Reproduce
    priority: str  # Highest, High, Medium, Low, Lowest
    assignee_id: int | None = Field(default=None, foreign_key="users.id", index=True)
    reporter_id: int = Field(foreign_key="users.id")
    labels: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})  # JSON
    components: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})  # ids
    fix_versions: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})  # ids
    parent_id: int | None = Field(default=None, foreign_key="issues.id")
    sprint_id: int | None = Field(default=None, foreign_key="sprints.id", index=True)
    story_points: float | None = None
    severity: str | None = None  # S1..S4 (bugs)
    original_estimate_s: int | None = None
    remaining_estimate_s: int | None = None
    time_spent_s: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    due_date: str | None = None  # YYYY-MM-DD
    created: str
    updated_at: str
    resolution_date: str | None = None


class Comment(TrackerModel, table=True):
    __tablename__ = "comments"

    id: int | None = Field(default=None, primary_key=True)
    issue_id: int = Field(foreign_key="issues.id", index=True)
    author_id: int = Field(foreign_key="users.id")
    body: str  # ADF document (JSON)
    created: str
    updated_at: str
    update_author_id: int | None = Field(default=None, foreign_key="users.id")  # last editor


class Worklog(TrackerModel, table=True):
    __tablename__ = "worklogs"

    id: int | None = Field(default=None, primary_key=True)
    issue_id: int = Field(foreign_key="issues.id", index=True)
    author_id: int = Field(foreign_key="users.id")
    time_spent_s: int
    started: str
    comment: str | None = None  # ADF document (JSON)
    created: str
    updated_at: str | None = None  # when last edited
    update_author_id: int | None = Field(default=None, foreign_key="users.id")  # last editor


class Attachment(TrackerModel, table=True):
    """A file attached to an issue (Jira's attachments): its name, MIME type and size as
    uploaded, and its bytes, base64 (text: the reward engine's diffs and the trajectories
    carry rows as JSON)."""

    __tablename__ = "attachments"

    id: int | None = Field(default=None, primary_key=True)
    issue_id: int = Field(foreign_key="issues.id", index=True)
    author_id: int = Field(foreign_key="users.id")
    filename: str
    mime_type: str
    size: int  # bytes
    content: str  # the bytes, base64
    created: str


class IssueLink(TrackerModel, table=True):
    """A link as the REST API states it (``POST /issueLink``): for type Blocks,
    ``{"inwardIssue": A, "outwardIssue": B}`` means A blocks B (as Jira Cloud's REST
    reference for ``POST /rest/api/3/issueLink`` has it); the columns keep the API's two
    sides."""

    __tablename__ = "issue_links"

    id: int | None = Field(default=None, primary_key=True)
    link_type: str  # world.yaml link types by name: Blocks, Duplicate, Relates, Cloners
    outward_id: int = Field(foreign_key="issues.id", index=True)
    inward_id: int = Field(foreign_key="issues.id", index=True)


class RemoteLink(TrackerModel, table=True):
    """A link from an issue to something outside the tracker (Jira's remote issue links):
    the helpdesk's tickets, as the support integration makes them."""

    __tablename__ = "remote_links"
    id: int | None = Field(default=None, primary_key=True)
    issue_id: int = Field(foreign_key="issues.id", index=True)
    global_id: str | None = None
    url: str
    title: str
    relationship: str | None = None
    application: str | None = None  # the linked application's name, e.g. Zendesk Support
    # The helpdesk ticket the URL names (…/tickets/123), when it names one: derived.
    ticket_id: int | None = Field(default=None, index=True)


class Watcher(TrackerModel, table=True):
    __tablename__ = "watchers"

    id: int | None = Field(default=None, primary_key=True)
    issue_id: int = Field(foreign_key="issues.id", index=True)
    user_id: int = Field(foreign_key="users.id")


class Board(TrackerModel, table=True):
    __tablename__ = "boards"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    type: str  # scrum | kanban
    project_id: int = Field(foreign_key="projects.id")


class Sprint(TrackerModel, table=True):
    __tablename__ = "sprints"

    id: int | None = Field(default=None, primary_key=True)
    board_id: int = Field(foreign_key="boards.id", index=True)
    name: str
    state: str  # future | active | closed
    goal: str = Field(default="", sa_column_kwargs={"server_default": ""})
    start_date: str | None = None
    end_date: str | None = None
    complete_date: str | None = None


class ChangeItem(TrackerModel, table=True):
    """An issue's history (changelog): who changed which field from what to what, when."""

    __tablename__ = "changelog"

    id: int | None = Field(default=None, primary_key=True)
    issue_id: int = Field(foreign_key="issues.id", index=True)
    author_id: int = Field(foreign_key="users.id")
    created: str
    items: str  # JSON [{field, fieldtype, from, fromString, to, toString}]


class Filter(TrackerModel, table=True):
    """A saved search (Jira's filters): a name unique per owner, its JQL, whether its owner
    keeps it among their favourites."""

    __tablename__ = "filters"

    id: int | None = Field(default=None, primary_key=True)  # Jira's 10000, 10001, ...
    owner_id: int = Field(foreign_key="users.id", index=True)
    name: str
    description: str = Field(default="", sa_column_kwargs={"server_default": ""})
    jql: str
    favourite: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})


METADATA = TrackerModel.metadata
