"""Request and response models of the helpdesk's Zendesk Support API v2.

Request bodies are Zendesk's envelopes (``{"ticket": {...}}``, ``{"user": {...}}``). A
client that read a record and sends it back (zenpy saving a macro's result) sends every
attribute: the read-only ones are accepted and ignored (:data:`READ_ONLY`), anything else
unknown is refused, naming the field. Responses document the attributes agents use; each
resource carries more of Zendesk's (``extra`` allowed).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from replicas.runtime.clock import ISO_DESCRIPTION, ISO_PATTERN
from replicas.runtime.params import RecordId

from .rules.conditions import PRIORITY_ORDER, STATUS_ORDER, TICKET_TYPES, TIERS

Status = Literal["new", "open", "pending", "hold", "solved", "closed"]
Priority = Literal["low", "normal", "high", "urgent"]
TicketType = Literal["question", "incident", "problem", "task"]
Tier = Literal["standard", "silver", "gold", "platinum"]
Role = Literal["end-user", "agent", "admin"]
Tag = Annotated[str, StringConstraints(min_length=1, max_length=80)]
Text = Annotated[str, StringConstraints(max_length=65_536)]
Short = Annotated[str, StringConstraints(max_length=255)]
# One source for each order (rules/conditions.py): the literals must list them.
assert tuple(get_args(t) for t in (Status, Priority, TicketType, Tier)) == (
    STATUS_ORDER, PRIORITY_ORDER, TICKET_TYPES, TIERS)

# Attributes of a record a client may send back unchanged; never written.
READ_ONLY = frozenset({
    "id", "url", "created_at", "updated_at", "via", "description", "raw_subject",
    "has_incidents", "satisfaction_rating", "sharing_agreement_ids", "followup_ids",
    "collaborator_ids", "follower_ids", "email_cc_ids", "is_public", "problem_id",
    "recipient", "forum_topic_id", "ticket_form_id", "brand_id", "allow_channelback",
    "allow_attachments", "from_messaging_channel", "submitter_id", "external_id",
    "organization_id", "custom_status_id", "generated_timestamp", "result_type",
    "dates", "metric_set", "slas"})
COMMENT_READ_ONLY = frozenset({
    "id", "type", "html_body", "plain_body", "attachments", "audit_id", "via", "metadata",
    "created_at", "scoped_body", "uploads"})


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _drop(data: Any, keys: frozenset[str]) -> Any:
    return {k: v for k, v in data.items() if k not in keys} if isinstance(data, dict) else data


class CommentIn(_In):
    body: Text = Field(min_length=1, description="The comment's text.")
    public: bool = Field(True, description="true: a public reply the requester is emailed; "
                         "false: an internal note only agents see.")
    author_id: RecordId | None = Field(None, description="Its author (default: you, user 1).")


class CustomFieldIn(_In):
    id: RecordId = Field(description="The ticket field's id (GET /ticket_fields).")
    value: Short | None = Field(None, description="Its value (a drop-down's option value).")


class RequesterIn(_In):
    email: Annotated[str, StringConstraints(max_length=254, pattern=r"^[^@\s]+@[^@\s]+$")] = \
        Field(description="The requester's email: an existing user, else a new end user.")
    name: Short | None = Field(None, description="A new requester's name.")
    locale_id: Any = Field(None, description="Ignored (Zendesk's locale id).")


def _due(value: Any) -> Any:
    """Zendesk's due_at: a date (zenpy sends datetimes as dates) or a timestamp."""
    if isinstance(value, str) and len(value) == 10:
        return date.fromisoformat(value).isoformat() + "T12:00:00Z"
    return value


class TicketIn(_In):
    """Ticket attributes to set; only the ones sent change."""

    subject: Short | None = Field(None, description="The subject.")
    comment: CommentIn | None = Field(None, description="A comment to add: a public reply "
                                      "or an internal note (public false).")
    status: Status | None = Field(None, description="new, open, pending, hold, solved or "
                                  "closed (a ticket never returns to new; solving needs an "
                                  "assignee; closed tickets cannot be changed).")
    priority: Priority | None = Field(None, description="low, normal, high or urgent.")
    type: TicketType | None = Field(None, description="question, incident, problem or task.")
    requester_id: RecordId | None = Field(None, description="The requester (a user id).")
    requester: RequesterIn | None = Field(None, description="The requester by email (create).")
    assignee_id: RecordId | None = Field(None, description="The agent it is assigned to; "
                                         "null unassigns.")
    assignee_email: Short | None = Field(None, description="The assignee by email.")
    group_id: RecordId | None = Field(None, description="The group it is routed to.")
    tags: list[Tag] | None = Field(None, max_length=100, description="Replaces all tags.")
    additional_tags: list[Tag] | None = Field(None, max_length=100, description="Tags to add.")
    remove_tags: list[Tag] | None = Field(None, max_length=100, description="Tags to remove.")
    custom_fields: list[CustomFieldIn] | None = Field(
        None, max_length=20, description="Custom field values [{id, value}] (GET "
        "/ticket_fields: Order number, Product, Contact reason).")
    fields: list[CustomFieldIn] | None = Field(None, max_length=20,
                                               description="Same as custom_fields.")
    due_at: Annotated[str, StringConstraints(pattern=ISO_PATTERN)] | None = Field(
        None, description=f"A task's due date ({ISO_DESCRIPTION}, or YYYY-MM-DD).")
    via_followup_source_id: RecordId | None = Field(
        None, description="Create: a follow-up of this closed ticket.")
    safe_update: bool | None = Field(None, description="With updated_stamp: refuse the "
                                     "update (409) if the ticket changed since.")
    updated_stamp: Annotated[str, StringConstraints(pattern=ISO_PATTERN)] | None = Field(
        None, description="The ticket's updated_at as you read it (safe_update).")

    @field_validator("due_at", "updated_stamp", mode="before")
    @classmethod
    def _date(cls, value: Any) -> Any:
        return _due(value)


class TicketInWithId(TicketIn):
    id: RecordId = Field(description="The ticket to update.")


def _ticket_envelope(data: Any) -> Any:
    if isinstance(data, dict) and isinstance(data.get("ticket"), dict):
        ticket = _drop(data["ticket"], READ_ONLY)
        if isinstance(ticket.get("comment"), dict):
            ticket["comment"] = _drop(ticket["comment"], COMMENT_READ_ONLY)
        # Nulls a client sends back for attributes it did not set (zenpy's saved macro result).
        return {**data, "ticket": {k: v for k, v in ticket.items()
                                   if v is not None or k in ("assignee_id", "group_id",
                                                             "due_at")}}
    return data


class TicketBody(_In):
    ticket: TicketIn = Field(description="The ticket's attributes.")

    _envelope = field_validator("ticket", mode="before")(
        lambda value: _ticket_envelope({"ticket": value})["ticket"])


class UpdateManyBody(_In):
    ticket: TicketIn | None = Field(None, description="With ?ids=: the change for all.")
    tickets: list[TicketInWithId] | None = Field(None, min_length=1, max_length=100,
                                                 description="Each ticket's own change.")


class MergeBody(_In):
    ids: list[RecordId] = Field(min_length=1, max_length=5,
                                description="The tickets to merge into the one in the path.")
    target_comment: Text | None = Field(None, description="The comment on the target.")
    source_comment: Text | None = Field(None, description="The comment on each source.")
    target_comment_is_public: bool = Field(False, description="Target comment public?")
    source_comment_is_public: bool = Field(False, description="Source comments public?")


class TagsBody(_In):
    tags: list[Tag] = Field(min_length=1, max_length=100, description="Tags.")


class UserFields(_In):
    tier: Tier | None = Field(None, description="An end user's loyalty tier.")
    legacy_created: Any = Field(None, description="Read-only (legacy import).")


class UserIn(_In):
    name: Short | None = Field(None, min_length=1, description="Full name.")
    email: Annotated[str, StringConstraints(max_length=254, pattern=r"^[^@\s]+@[^@\s]+$")] \
        | None = Field(None, description="Create: the primary email. Update: adds it as a "
                       "secondary email identity (make it primary through identities).")
    phone: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        None, description="Phone number (replaces the primary phone identity).")
    role: Role | None = Field(None, description="Create: end-user (default), agent or admin.")
    organization_id: RecordId | None = Field(None, description="Their organization.")
    notes: Text | None = Field(None, description="Notes staff see about the user.")
    locale: Short | None = Field(None, description="Their language, e.g. de-DE.")
    user_fields: UserFields | None = Field(None, description="User fields: tier.")


USER_READ_ONLY = frozenset({
    "id", "url", "created_at", "updated_at", "active", "verified", "suspended", "details",
    "external_id", "tags", "time_zone", "default_group_id", "shared", "photo", "alias",
    "last_login_at", "result_type"})


class UserBody(_In):
    user: UserIn = Field(description="The user's attributes.")

    _envelope = field_validator("user", mode="before")(
        lambda value: _drop(value, USER_READ_ONLY))


class IdentityIn(_In):
    type: Literal["email", "phone_number"] = Field(description="email or phone_number.")
    value: Annotated[str, StringConstraints(min_length=3, max_length=254)] = Field(
        description="The address or number.")


class IdentityBody(_In):
    identity: IdentityIn = Field(description="The identity.")


class MergeTarget(_In):
    id: RecordId = Field(description="The user to merge into.")


class UserMergeBody(_In):
    user: MergeTarget = Field(description="{id}: the user to merge the path user into.")


# ---------------------------------------------------------------------------
# Responses: the documented part of each resource (Zendesk sends more).
# ---------------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class CustomFieldOut(_Out):
    id: int
    value: str | None


class TicketOut(_Out):
    id: int
    url: str
    subject: str
    description: str
    status: Status
    priority: Priority | None
    type: TicketType | None
    requester_id: int
    assignee_id: int | None
    group_id: int | None
    organization_id: int | None
    tags: list[str]
    custom_fields: list[CustomFieldOut]
    via: dict[str, Any]
    created_at: str
    updated_at: str


class CommentOut(_Out):
    id: int
    author_id: int
    body: str
    public: bool
    created_at: str


class UserOut(_Out):
    id: int
    name: str
    email: str | None
    role: Role
    active: bool
    organization_id: int | None
    user_fields: dict[str, Any]


class AuditOut(_Out):
    id: int
    ticket_id: int
    author_id: int
    created_at: str
    events: list[dict[str, Any]]


class JobStatusOut(_Out):
    id: str
    status: str
    results: list[dict[str, Any]] | None


class Paged(_Out):
    """Offset pages carry count/next_page/previous_page; cursor pages meta/links."""

    count: int | None = None
    next_page: str | None = None
    previous_page: str | None = None
    meta: dict[str, Any] | None = None
    links: dict[str, Any] | None = None


class Tickets(Paged):
    tickets: list[TicketOut]


class TicketResult(_Out):
    ticket: TicketOut


class TicketAudit(_Out):
    ticket: TicketOut
    audit: AuditOut


class Comments(Paged):
    comments: list[CommentOut]


class Audits(Paged):
    audits: list[AuditOut]


class Users(Paged):
    users: list[UserOut]


class UserResult(_Out):
    user: UserOut


class JobStatusResult(_Out):
    job_status: JobStatusOut


class Listing(Paged):
    """A list of some resource under its plural key."""
