"""The helpdesk schema, Zendesk Support's resources: one SQLModel table class per table.

These classes are the schema (the runtime compiles the DDL from their metadata when seed/
writes a world: replicas/runtime/world.py); routes read and write rows with plain sqlite3
and render them in Zendesk's shapes (render.py). Timestamps are ISO strings
'YYYY-MM-DDTHH:MM:SSZ'; JSON columns (tags, conditions, actions, events) hold JSON text.
The shop's orders, payments and customer accounts are the checkout's (replicas/checkout); a
ticket names the order it is about in its custom field "Order number".
"""

from __future__ import annotations

from sqlalchemy import Index, text
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

# An audit that changed a ticket's status (audits.record writes every audit's events, as
# compact JSON): the SLA's clock reads these alone, whatever else the ticket's history holds.
STATUS_CHANGE = """instr(events, '"field_name":"status"') > 0"""


class HelpdeskModel(SQLModel, registry=registry()):
    """Base of helpdesk tables: its own metadata, so other replicas' tables never mix in."""


class Organization(HelpdeskModel, table=True):
    __tablename__ = "organizations"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    domain: str | None = None
    created_at: str
    notes: str = Field(default="", sa_column_kwargs={"server_default": ""})


class Group(HelpdeskModel, table=True):
    __tablename__ = "groups"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    description: str = Field(default="", sa_column_kwargs={"server_default": ""})
    # Zendesk keeps a deleted group (tickets may still name it): shown with deleted true.
    deleted: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})


class User(HelpdeskModel, table=True):
    """End users (customers) and staff (agents, admins) in one resource, as in Zendesk. User
    1, "AI Agent", is the one the API acts as."""

    __tablename__ = "users"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    email: str | None = Field(default=None, index=True)  # the primary email identity
    phone: str | None = None
    role: str = Field(index=True)  # end-user | agent | admin
    organization_id: int | None = Field(default=None, foreign_key="organizations.id")
    default_group_id: int | None = Field(default=None, foreign_key="groups.id")  # staff
    tier: str | None = None  # user field "tier" of end users: standard | silver | gold | platinum
    locale: str
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    notes: str = Field(default="", sa_column_kwargs={"server_default": ""})
    created_at: str
    updated_at: str
    # Imported from the legacy system (Desk.com) with its raw, inconsistent date text.
    legacy_id: str | None = None
    legacy_created: str | None = None


class UserIdentity(HelpdeskModel, table=True):
    __tablename__ = "user_identities"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    type: str  # email | phone_number
    value: str
    is_primary: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    verified: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    created_at: str


class GroupMembership(HelpdeskModel, table=True):
    __tablename__ = "group_memberships"

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="users.id", index=True)
    group_id: int = Field(foreign_key="groups.id")
    is_default: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    created_at: str


class Schedule(HelpdeskModel, table=True):
    """Business hours of a region: weekly intervals (minutes from Sunday 00:00 local time)
    and holidays, as Zendesk's schedules."""

    __tablename__ = "schedules"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    time_zone: str
    intervals: str  # JSON [{start_time, end_time}]
    # JSON [{name, start_date, end_date}]
    holidays: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})


class Ticket(HelpdeskModel, table=True):
    __tablename__ = "tickets"

    id: int | None = Field(default=None, primary_key=True)
    subject: str
    description: str
    status: str = Field(index=True)  # new | open | pending | hold | solved | closed
    priority: str  # low | normal | high | urgent
    type: str  # question | incident | problem | task
    channel: str  # email | web | chat | phone | api: how it came in (via.channel)
    # JSON array, lowercase
    tags: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})
    requester_id: int = Field(foreign_key="users.id", index=True)
    submitter_id: int = Field(foreign_key="users.id")
    assignee_id: int | None = Field(default=None, foreign_key="users.id", index=True)
    group_id: int | None = Field(default=None, foreign_key="groups.id")
    organization_id: int | None = Field(default=None, foreign_key="organizations.id")
    schedule_id: int | None = Field(default=None, foreign_key="schedules.id")
    # Custom fields (ticket_fields): the checkout order, the product, the contact reason.
    order_number: str | None = Field(default=None, index=True)
    product: str | None = None
    contact_reason: str | None = None
    merged_into_id: int | None = Field(default=None, foreign_key="tickets.id")
    via_followup_source_id: int | None = Field(default=None, foreign_key="tickets.id")
    due_at: str | None = None
    status_updated_at: str
    created_at: str
    updated_at: str
    solved_at: str | None = None
    legacy_id: str | None = None
    legacy_created: str | None = None


class Comment(HelpdeskModel, table=True):
    __tablename__ = "comments"
    # A ticket's public comments, in order (the SLA's clock): private notes never scanned.
    __table_args__ = (Index("ix_comments_public", "ticket_id", "created_at", "id",
                            sqlite_where=text("public")),)

    id: int | None = Field(default=None, primary_key=True)
    ticket_id: int = Field(foreign_key="tickets.id", index=True)
    author_id: int = Field(foreign_key="users.id")
    body: str
    public: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    created_at: str


class Audit(HelpdeskModel, table=True):
    """Who changed what on a ticket, from which channel: Zendesk's ticket audits."""

    __tablename__ = "audits"
    __table_args__ = (Index("ix_audits_status_changes", "ticket_id", "id",
                            sqlite_where=text(STATUS_CHANGE)),)

    id: int | None = Field(default=None, primary_key=True)
    ticket_id: int = Field(foreign_key="tickets.id", index=True)
    author_id: int = Field(foreign_key="users.id")
    channel: str  # api | web | email | rule (a trigger or automation) | system
    created_at: str
    events: str  # JSON [{id, type, field_name?, value?, previous_value?, ...}]


class TicketField(HelpdeskModel, table=True):
    __tablename__ = "ticket_fields"

    id: int | None = Field(default=None, primary_key=True)
    key: str  # the tickets column holding its values
    title: str
    type: str  # text | tagger
    # JSON [{name, value}] of a tagger
    options: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    position: int


class Macro(HelpdeskModel, table=True):
    __tablename__ = "macros"

    id: int | None = Field(default=None, primary_key=True)
    title: str
    description: str
    actions: str  # JSON [{field, value}], Zendesk's actions
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    position: int
    created_at: str
    updated_at: str


class View(HelpdeskModel, table=True):
    __tablename__ = "views"

    id: int | None = Field(default=None, primary_key=True)
    title: str
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    position: int
    conditions: str  # JSON {all: [...], any: [...]} of {field, operator, value}
    execution: str  # JSON {sort_by, sort_order, columns}
    created_at: str
    updated_at: str


class _BusinessRule(HelpdeskModel):
    """The columns triggers and automations share: conditions met, actions applied."""

    id: int | None = Field(default=None, primary_key=True)
    title: str
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    position: int
    conditions: str  # JSON {all: [...], any: [...]} of {field, operator, value}
    actions: str  # JSON [{field, value}]
    created_at: str
    updated_at: str


class Trigger(_BusinessRule, table=True):
    __tablename__ = "triggers"

    description: str = Field(default="", sa_column_kwargs={"server_default": ""})


class Automation(_BusinessRule, table=True):
    __tablename__ = "automations"


class SlaPolicy(HelpdeskModel, table=True):
    __tablename__ = "sla_policies"

    id: int | None = Field(default=None, primary_key=True)
    title: str
    description: str = Field(default="", sa_column_kwargs={"server_default": ""})
    position: int
    filter: str  # JSON {all, any} conditions: which tickets it applies to
    policy_metrics: str  # JSON [{priority, metric, target (minutes), business_hours}]
    created_at: str
    updated_at: str


class TicketMetricEvent(HelpdeskModel, table=True):
    """The SLA's clock on a ticket: activate / pause / fulfill / breach per metric instance."""

    __tablename__ = "ticket_metric_events"

    id: int | None = Field(default=None, primary_key=True)
    ticket_id: int = Field(foreign_key="tickets.id", index=True)
    metric: str  # reply_time | requester_wait_time | agent_work_time
    instance_id: int
    type: str  # apply_sla | activate | pause | fulfill | breach
    time: str
    sla: str | None = None  # JSON {policy: {id, title}, target, business_hours} on apply_sla
    # A breach that no longer applies
    deleted: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})


class SatisfactionRating(HelpdeskModel, table=True):
    __tablename__ = "satisfaction_ratings"

    id: int | None = Field(default=None, primary_key=True)
    ticket_id: int = Field(foreign_key="tickets.id", index=True)
    requester_id: int = Field(foreign_key="users.id")
    assignee_id: int | None = Field(default=None, foreign_key="users.id")
    group_id: int | None = Field(default=None, foreign_key="groups.id")
    score: str  # good | bad
    comment: str = Field(default="", sa_column_kwargs={"server_default": ""})
    created_at: str


class Article(HelpdeskModel, table=True):
    """Help Center articles: where the policies are stated (one outdated)."""

    __tablename__ = "articles"

    id: int | None = Field(default=None, primary_key=True)
    title: str
    body: str
    section: str
    locale: str = Field(default="en-us", sa_column_kwargs={"server_default": "en-us"})
    created_at: str
    updated_at: str


class JobStatus(HelpdeskModel, table=True):
    """A bulk request's job (update_many, merge): Zendesk runs them in the background; here
    they complete within the request, so a client polling them finds them done."""

    __tablename__ = "job_statuses"

    id: str = Field(primary_key=True)
    job_type: str
    status: str  # completed | failed
    total: int
    progress: int
    message: str | None = None
    results: str  # JSON [...]
    created_at: str


class Upload(HelpdeskModel, table=True):
    """Files uploaded for a comment not yet made: the token a comment's ``uploads`` names
    (consumed when a comment takes its attachments)."""

    __tablename__ = "uploads"

    id: int | None = Field(default=None, primary_key=True)
    token: str = Field(unique=True)
    created_at: str


class Attachment(HelpdeskModel, table=True):
    """An uploaded file (kept small: the gateway's largest body): its upload's until a comment
    takes it, then the comment's."""

    __tablename__ = "attachments"

    id: int | None = Field(default=None, primary_key=True)
    upload_id: int | None = Field(default=None, foreign_key="uploads.id", index=True)
    comment_id: int | None = Field(default=None, foreign_key="comments.id", index=True)
    file_name: str
    token: str = Field(unique=True)  # in its content_url
    content_type: str
    size: int
    content: bytes
    created_at: str


METADATA = HelpdeskModel.metadata
