"""The tracker's :class:`ReplicaSpec`: what the runtime serves, seeds and sets up."""

from __future__ import annotations

from replicas.runtime.spec import ReplicaSpec

from . import developers
from .errors import STYLE
from .factories import ACTIVITY, FACTORIES
from .routes import TAGS, router

SPEC = ReplicaSpec(
    name="tracker",
    title="Tracker",
    description=(
        "The engineering team's Jira Cloud (REST API v2 and v3, and the Agile API): projects "
        "for the storefront and checkout, the mobile app and the platform; issues with their "
        "workflows, sprints, comments and links. You act as the account 'AI Agent', a "
        "developer on every project. Errors are Jira's: {\"errorMessages\": [...], "
        "\"errors\": {field: message}}."
    ),
    # 2: issues and comments keep updated_at (the platform's name: only_changes ignores it)
    # 3: remote links (the helpdesk's tickets); 4: unfinished work of closed sprints in the
    # backlog, duplicates closed in their workflow's finished status, Jira's changelog items;
    # 5: comments' and worklogs' editors, versions' descriptions and start dates, filters
    # (table), the comment, worklog and project administration permissions; 6: attachments
    # (table, permissions), Closed bugs not editable
    data_version="6",
    router=router,
    probe={"update": "projects", "id": 10000,
           "values": {"description": "Probe (no task allows this)."}},
    factories=FACTORIES,
    activity=ACTIVITY,
    after_write=developers.after_write,
    openapi_tags=TAGS,
    errors=STYLE,
)
