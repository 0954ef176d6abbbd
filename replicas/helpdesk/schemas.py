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

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model, field_validator

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
    "id", "url", "created_at", "updated_at", "via", "raw_subject",
    "has_incidents", "satisfaction_rating", "sharing_agreement_ids", "followup_ids",
    "collaborator_ids", "follower_ids", "email_cc_ids", "is_public", "problem_id",
    "recipient", "forum_topic_id", "ticket_form_id", "brand_id", "allow_channelback",
    "allow_attachments", "from_messaging_channel", "submitter_id", "external_id",
    "organization_id", "custom_status_id", "generated_timestamp", "result_type",
    "dates", "metric_set", "slas"})
COMMENT_READ_ONLY = frozenset({
    "id", "type", "html_body", "plain_body", "attachments", "audit_id", "via", "metadata",
    "created_at", "scoped_body"})


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _drop(data: Any, keys: frozenset[str]) -> Any:
    return {k: v for k, v in data.items() if k not in keys} if isinstance(data, dict) else data


class CommentIn(_In):
    body: Text = Field(min_length=1, description="The comment's text.")
    public: bool = Field(True, description="true: a public reply the requester is emailed; "
                         "false: an internal note only agents see.")
    author_id: RecordId | None = Field(None, description="Its author (default: you, user 1).")
    uploads: list[Annotated[str, StringConstraints(min_length=1, max_length=64)]] | None = \
        Field(None, max_length=20, description="Tokens of uploads (POST /uploads) whose "
              "files the comment carries.")


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
    description: Text | None = Field(None, description="Create: without a comment, the "
                                     "first (public) comment's text. Read-only afterwards: "
                                     "ignored on update.")
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


class CreateManyBody(_In):
    tickets: list[TicketIn] = Field(min_length=1, max_length=100, description=(
        "The tickets to create (at most 100), each as POST /tickets takes it."))

    _envelope = field_validator("tickets", mode="before")(
        lambda value: [_ticket_envelope({"ticket": t})["ticket"] for t in value]
        if isinstance(value, list) else value)


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


_USER_NOT_NULL = ("name", "role", "locale")


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

    def columns(self) -> dict[str, Any]:
        """The attributes sent, as users columns (user_fields.tier -> tier; a null name,
        role or locale is left out, null notes are empty)."""
        values = self.model_dump(exclude_unset=True, exclude={"user_fields"})
        for column in _USER_NOT_NULL:
            if column in values and values[column] is None:
                del values[column]
        if "notes" in values and values["notes"] is None:
            values["notes"] = ""
        fields = self.user_fields
        if fields is not None and "tier" in fields.model_fields_set:
            values["tier"] = fields.tier
        return values


USER_READ_ONLY = frozenset({
    "id", "url", "created_at", "updated_at", "active", "verified", "suspended", "details",
    "external_id", "tags", "time_zone", "default_group_id", "shared", "photo", "alias",
    "last_login_at", "result_type", "chat_only", "custom_role_id", "locale_id", "moderator",
    "only_private_comments", "restricted_agent", "role_type", "shared_agent", "signature",
    "two_factor_auth_enabled", "ticket_restriction"})


class UserBody(_In):
    user: UserIn = Field(description="The user's attributes.")

    _envelope = field_validator("user", mode="before")(
        lambda value: _drop(value, USER_READ_ONLY))


class UsersBody(_In):
    users: list[UserIn] = Field(min_length=1, max_length=100, description=(
        "The users to create (at most 100), each as POST /users takes it."))

    _envelope = field_validator("users", mode="before")(
        lambda value: [_drop(u, USER_READ_ONLY) for u in value]
        if isinstance(value, list) else value)


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


# The team's records (rules/records.py): what an admin sends to create or change one. A
# record read and sent back may carry its read-only attributes: they are ignored.
RECORD_READ_ONLY = frozenset({
    "id", "url", "created_at", "updated_at", "raw_title", "restriction", "default",
    "deleted", "is_public", "shared_tickets", "shared_comments", "tags", "group_id",
    "organization_fields", "external_id", "details", "execution", "category_id",
    "raw_description", "sla_id"})
Title = Annotated[str, StringConstraints(min_length=1, max_length=255)]
Position = Annotated[int, Field(ge=0, le=10_000)]


def _record_envelope(value: Any) -> Any:
    return _drop(value, RECORD_READ_ONLY)


class ConditionIn(_In):
    field: Short = Field(description="The ticket attribute, e.g. status, group_id, "
                         "current_tags.")
    operator: Short = Field(description="is, is_not, less_than, greater_than, includes, ...")
    value: Any = Field(None, description="What it is compared with.")


class ConditionsIn(_In):
    all: list[ConditionIn] | None = Field(None, max_length=50, description="All must hold.")
    any: list[ConditionIn] | None = Field(None, max_length=50,
                                          description="One at least must hold.")


class ActionIn(_In):
    field: Short = Field(description="The attribute it sets, e.g. status, priority, "
                         "comment_value, set_tags.")
    value: Any = Field(None, description="The value it sets.")


class OrganizationIn(_In):
    name: Title | None = Field(None, description="Its name (unique).")
    domain_names: list[Short] | None = Field(None, max_length=1, description=(
        "Its email domain (one here)."))
    notes: Text | None = Field(None, description="Staff notes.")


class OrganizationBody(_In):
    organization: OrganizationIn = Field(description="The organization's attributes.")

    _envelope = field_validator("organization", mode="before")(_record_envelope)


class GroupIn(_In):
    name: Title | None = Field(None, description="Its name (unique).")
    description: Text | None = Field(None, description="What it handles.")


class GroupBody(_In):
    group: GroupIn = Field(description="The group's attributes.")

    _envelope = field_validator("group", mode="before")(_record_envelope)


class MacroIn(_In):
    title: Title | None = Field(None, description="Its title (required to create).")
    description: Text | None = Field(None, description="What it is for.")
    actions: list[ActionIn] | None = Field(None, max_length=50, description=(
        "What it does to a ticket [{field, value}] (required to create): e.g. "
        "comment_value (a reply), status, priority, set_tags, current_tags, group_id."))
    active: bool | None = Field(None, description="Whether agents can use it.")
    position: Position | None = Field(None, description="Its place in the list.")


class MacroBody(_In):
    macro: MacroIn = Field(description="The macro's attributes.")

    _envelope = field_validator("macro", mode="before")(_record_envelope)


class ViewOutputIn(_In):
    columns: list[Short] | None = Field(None, max_length=20, description="Columns shown.")
    sort_by: Literal["id", "created_at", "updated_at", "status", "priority", "subject"] | None \
        = Field(None, description="The sort key.")
    sort_order: Literal["asc", "desc"] | None = Field(None, description="asc or desc.")
    group_by: Short | None = Field(None, description="Ignored (no grouping here).")
    group_order: Short | None = Field(None, description="Ignored.")


class ViewIn(_In):
    title: Title | None = Field(None, description="Its title (required to create).")
    active: bool | None = Field(None, description="Whether agents see it.")
    position: Position | None = Field(None, description="Its place in the list.")
    all: list[ConditionIn] | None = Field(None, max_length=50, description=(
        "Conditions all tickets shown meet (at least one, to create)."))
    any: list[ConditionIn] | None = Field(None, max_length=50, description=(
        "Conditions of which tickets meet one."))
    conditions: ConditionsIn | None = Field(None, description="Or both as {all, any}.")
    output: ViewOutputIn | None = Field(None, description="Columns and sort.")


class ViewBody(_In):
    view: ViewIn = Field(description="The view's attributes.")

    _envelope = field_validator("view", mode="before")(_record_envelope)


class TriggerIn(_In):
    title: Title | None = Field(None, description="Its title (required to create).")
    description: Text | None = Field(None, description="What it is for.")
    active: bool | None = Field(None, description="Whether it runs.")
    position: Position | None = Field(None, description="Its place in the run order.")
    conditions: ConditionsIn | None = Field(None, description=(
        "{all, any}: when it fires (required to create)."))
    actions: list[ActionIn] | None = Field(None, max_length=50, description=(
        "What it does [{field, value}] (required to create)."))


class TriggerBody(_In):
    trigger: TriggerIn = Field(description="The trigger's attributes.")

    _envelope = field_validator("trigger", mode="before")(_record_envelope)


# ---------------------------------------------------------------------------
# Responses: the documented part of each resource (Zendesk sends more: ``extra`` allowed),
# and their envelopes, one record ({"ticket": ...}) or a page of them ({"tickets": [...]}).
# ---------------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


def _f(description: str) -> Any:
    return Field(description=description)


ID, URL, AT = "Its id.", "Its absolute API URL.", f"When; {ISO_DESCRIPTION}."


class CustomFieldOut(_Out):
    id: int = _f("The ticket field's id (GET /ticket_fields).")
    value: str | None = _f("Its value on this ticket.")


class TicketOut(_Out):
    id: int = _f(ID)
    url: str = _f(URL)
    subject: str = _f("The subject.")
    description: str = _f("The first comment's text.")
    status: Status = _f("new, open, pending, hold, solved or closed.")
    priority: Priority | None = _f("low, normal, high or urgent.")
    type: TicketType | None = _f("question, incident, problem or task.")
    requester_id: int = _f("The user who asked.")
    submitter_id: int = _f("The user who created it.")
    assignee_id: int | None = _f("The agent it is assigned to.")
    group_id: int | None = _f("The group it is routed to.")
    organization_id: int | None = _f("The requester's organization.")
    tags: list[str] = _f("Its tags (lowercase).")
    custom_fields: list[CustomFieldOut] = _f("Custom field values: Order number (360001), "
                                              "Product (360002), Contact reason (360003).")
    via: dict[str, Any] = _f("How it came in: {channel: email, web, chat, phone or api}.")
    via_followup_source_id: int | None = _f("The closed ticket it follows up, if any.")
    due_at: str | None = _f("A task's due time.")
    created_at: str = _f(AT)
    updated_at: str = _f(AT)


class CommentOut(_Out):
    id: int = _f(ID)
    author_id: int = _f("Who wrote it (a user id).")
    body: str = _f("Its text.")
    public: bool = _f("true: the requester sees it; false: an internal note.")
    via: dict[str, Any] = _f("The channel it came through.")
    created_at: str = _f(AT)


class UserOut(_Out):
    id: int = _f(ID)
    url: str = _f(URL)
    name: str = _f("Full name.")
    email: str | None = _f("Primary email.")
    phone: str | None = _f("Primary phone number.")
    role: Role = _f("end-user, agent or admin.")
    active: bool = _f("false: deleted (e.g. merged into another user).")
    organization_id: int | None = _f("Their organization.")
    default_group_id: int | None = _f("An agent's default group.")
    locale: str = _f("Their language.")
    notes: str = _f("Staff notes about them.")
    user_fields: dict[str, Any] = _f("User fields: tier (end users' loyalty tier).")
    created_at: str = _f(AT)


class IdentityOut(_Out):
    id: int = _f(ID)
    user_id: int = _f("Whose it is.")
    type: str = _f("email or phone_number.")
    value: str = _f("The address or number.")
    primary: bool = _f("The user's primary one of its type.")
    verified: bool = _f("Verified.")


class OrganizationOut(_Out):
    id: int = _f(ID)
    name: str = _f("Its name.")
    domain_names: list[str] = _f("Email domains of its people.")
    notes: str = _f("Staff notes.")


class GroupOut(_Out):
    id: int = _f(ID)
    name: str = _f("Its name.")
    description: str = _f("What it handles.")


class MembershipOut(_Out):
    id: int = _f(ID)
    user_id: int = _f("The agent.")
    group_id: int = _f("The group.")
    default: bool = _f("The agent's default group.")


class TicketFieldOut(_Out):
    id: int = _f(ID)
    title: str = _f("Its title.")
    type: str = _f("text or tagger (a drop-down).")
    custom_field_options: list[dict[str, Any]] | None = Field(
        None, description="A drop-down's options {name, value}.")


class RuleOut(_Out):
    """A macro, view, trigger or automation."""

    id: int = _f(ID)
    title: str = _f("Its title.")
    active: bool = _f("Whether it is in use.")
    conditions: dict[str, Any] | None = Field(None, description=(
        "Views, triggers, automations: {all: [...], any: [...]} of {field, operator, value}."))
    actions: list[dict[str, Any]] | None = Field(None, description=(
        "Macros, triggers, automations: [{field, value}]."))


class SlaPolicyOut(_Out):
    id: int = _f(ID)
    title: str = _f("Its title.")
    filter: dict[str, Any] = _f("The tickets it applies to ({all, any} conditions).")
    policy_metrics: list[dict[str, Any]] = _f("Targets: {priority, metric, target (minutes), "
                                              "business_hours}.")


class ScheduleOut(_Out):
    id: int = _f(ID)
    name: str = _f("Its name (a region).")
    time_zone: str = _f("Its time zone.")
    intervals: list[dict[str, Any]] = _f("Open hours: {start_time, end_time} in minutes "
                                         "from Sunday 00:00 local time.")


class HolidayOut(_Out):
    id: int = _f(ID)
    name: str = _f("Its name.")
    start_date: str = _f("First day (local date).")
    end_date: str = _f("Last day (local date).")


class MetricEventOut(_Out):
    id: int = _f(ID)
    ticket_id: int = _f("The ticket.")
    metric: str = _f("reply_time or requester_wait_time.")
    instance_id: int = _f("Which run of the metric (1: first reply; 2+: next replies).")
    type: str = _f("apply_sla, activate, pause, fulfill or breach.")
    time: str = _f(AT)


class AuditOut(_Out):
    id: int = _f(ID)
    ticket_id: int = _f("The ticket.")
    author_id: int = _f("Who made the change.")
    via: dict[str, Any] = _f("The channel: api, email, rule.")
    created_at: str = _f(AT)
    events: list[dict[str, Any]] = _f("What changed: Create, Change (field_name, value, "
                                      "previous_value), Comment, Notification.")


class RatingOut(_Out):
    id: int = _f(ID)
    ticket_id: int = _f("The rated ticket.")
    score: str = _f("good or bad.")
    comment: str | None = _f("What the requester wrote.")


class ArticleOut(_Out):
    id: int = _f(ID)
    title: str = _f("Its title.")
    body: str = _f("Its text.")
    locale: str = _f("Its language.")
    updated_at: str = _f(AT)


class JobStatusOut(_Out):
    id: str = _f(ID)
    status: str = _f("completed (jobs run within their request here).")
    total: int = _f("Items.")
    results: list[dict[str, Any]] | None = _f("Per item: {id, success, status, error}.")


class Page(_Out):
    """Offset pages carry count/next_page/previous_page; cursor pages meta/links."""

    count: int | None = Field(None, description="Offset paging: items across all pages.")
    next_page: str | None = Field(None, description="Offset paging: the next page's URL "
                                  "(null on the last).")
    previous_page: str | None = Field(None, description="Offset paging: the previous page's "
                                      "URL.")
    meta: dict[str, Any] | None = Field(None, description="Cursor paging: {has_more, "
                                        "after_cursor, before_cursor}.")
    links: dict[str, Any] | None = Field(None, description="Cursor paging: {next, prev} URLs.")


def _camel(key: str) -> str:
    return key.title().replace("_", "")


def one(key: str, model: type[BaseModel]) -> type[BaseModel]:
    """The envelope of one record: ``{key: model}``."""
    fields: dict[str, Any] = {key: (model, _f(f"The {key.replace('_', ' ')}."))}
    return create_model(f"{_camel(key)}Result", __base__=_Out, **fields)


def many(key: str, model: type[BaseModel], paged: bool = True) -> type[BaseModel]:
    """The envelope of a list: ``{key: [model], ...page fields}``."""
    fields: dict[str, Any] = {key: (list.__class_getitem__(model),
                                    _f(f"The {key.replace('_', ' ')}."))}
    base: type[_Out] = Page if paged else _Out
    return create_model(f"{_camel(key)}{'Page' if paged else 'List'}", __base__=base,
                        **fields)


class TicketAudit(_Out):
    ticket: TicketOut = _f("The ticket as saved.")
    audit: AuditOut = _f("The audit of this change.")


class SearchResults(Page):
    results: list[dict[str, Any]] = _f("Tickets, users, organizations and groups, each "
                                       "with result_type.")


class Tags(_Out):
    tags: list[str] = _f("The ticket's tags.")


class Count(_Out):
    count: int = _f("How many.")


class ViewCount(_Out):
    view_count: dict[str, Any] = _f("{view_id, value (the number of tickets), fresh}.")


class MacroPreview(_Out):
    result: dict[str, Any] = _f("{ticket: the ticket's attributes after the macro, with the "
                                "comment it would add}.")


Tickets, TicketResult = many("tickets", TicketOut), one("ticket", TicketOut)
Comments, Audits = many("comments", CommentOut), many("audits", AuditOut)
Users, UserResult = many("users", UserOut), one("user", UserOut)
Identities, IdentityResult = many("identities", IdentityOut), one("identity", IdentityOut)
Organizations = many("organizations", OrganizationOut)
OrganizationResult = one("organization", OrganizationOut)
Groups, GroupResult = many("groups", GroupOut), one("group", GroupOut)
Memberships = many("group_memberships", MembershipOut)
MembershipResult = one("group_membership", MembershipOut)
TicketFields, TicketFieldResult = many("ticket_fields", TicketFieldOut), one(
    "ticket_field", TicketFieldOut)
Macros, MacroResult = many("macros", RuleOut), one("macro", RuleOut)
Views, ViewResult = many("views", RuleOut), one("view", RuleOut)
Triggers, TriggerResult = many("triggers", RuleOut), one("trigger", RuleOut)
Automations, AutomationResult = many("automations", RuleOut), one("automation", RuleOut)
SlaPolicies, SlaPolicyResult = many("sla_policies", SlaPolicyOut), one("sla_policy",
                                                                          SlaPolicyOut)
Schedules, ScheduleResult = many("schedules", ScheduleOut), one("schedule", ScheduleOut)
Holidays = many("holidays", HolidayOut, paged=False)
MetricEvents = many("ticket_metric_events", MetricEventOut)
Ratings, RatingResult = many("satisfaction_ratings", RatingOut), one("satisfaction_rating",
                                                                     RatingOut)
Articles, ArticleResult = many("articles", ArticleOut), one("article", ArticleOut)
JobStatusResult = one("job_status", JobStatusOut)
IdentityList = many("identities", IdentityOut, paged=False)


class AttachmentOut(_Out):
    id: int = _f(ID)
    file_name: str = _f("The file's name.")
    content_type: str = _f("Its MIME type.")
    content_url: str = _f("Where its content is downloaded.")
    size: int = _f("Its size in bytes.")


class UploadOut(_Out):
    token: str = _f("Name it in a comment's uploads to attach the files.")
    attachments: list[AttachmentOut] = _f("The upload's files.")
    attachment: AttachmentOut | None = _f("The file just uploaded.")


AttachmentResult, UploadResult = one("attachment", AttachmentOut), one("upload", UploadOut)


class CursorExport(_Out):
    """A cursor-based incremental export's page (``tickets`` or ``users``)."""

    after_cursor: str = _f("The next page's cursor (the next export's, on the last page).")
    after_url: str = _f("The next page's URL.")
    end_of_stream: bool = _f("true: every change up to a minute ago is exported.")


class TimeExport(_Out):
    """A time-based incremental export's page (``tickets`` or ``users``)."""

    count: int = _f("Records on this page.")
    end_time: int | None = _f("The newest change on the page (Unix time): the next start.")
    next_page: str = _f("The next page's URL (start_time = end_time).")
    end_of_stream: bool = _f("true: every change up to a minute ago is exported.")


class ViewRows(Page):
    rows: list[dict[str, Any]] = _f("One row per ticket: the view's columns and {ticket}.")
    columns: list[dict[str, Any]] = _f("The view's columns: {id, title}.")
