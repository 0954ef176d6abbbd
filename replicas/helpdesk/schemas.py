"""Request and response models of the helpdesk API, and row -> response converters.

Request models forbid unknown fields (422 naming the field). Routes return
orjson responses built from the converters below; the response models are the
documented contract (tests validate real responses against them).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from replicas.runtime.clock import ISO_DESCRIPTION
from replicas.runtime.params import RecordId

TS = ISO_DESCRIPTION

TicketStatus = Literal["new", "open", "pending", "on-hold", "solved", "closed"]
Priority = Literal["low", "normal", "high", "urgent"]
TicketType = Literal["question", "incident", "problem", "task"]
Channel = Literal["email", "chat", "phone", "web"]
Tier = Literal["standard", "silver", "gold", "platinum"]
Tag = str


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---------------------------------------------------------------------------
# Responses
# ---------------------------------------------------------------------------


class OrganizationOut(_Out):
    id: int = Field(description="Organization id.")
    name: str = Field(description="Organization (company) name.")
    domain: str | None = Field(description="Email domain of the organization's people, if known.")
    created_at: str = Field(description=f"When the organization was created; {TS}.")
    notes: str = Field(description="Free-text notes by support staff.")


class GroupOut(_Out):
    id: int = Field(description="Group id.")
    name: str = Field(description="Group name, e.g. 'Support', 'Billing', 'Tier 2'.")
    description: str = Field(description="What the group handles.")


class AgentOut(_Out):
    id: int = Field(description="Agent id. Agent 1 'AI Agent' is you: the API acts as agent 1.")
    name: str = Field(description="Agent's full name.")
    email: str = Field(description="Agent's work email.")
    role: Literal["agent", "lead", "manager"] = Field(
        description="Role; managers decide refund approvals."
    )
    group_id: int = Field(description="The group the agent belongs to.")
    active: bool = Field(description="False for deactivated agents (cannot be assigned).")
    created_at: str = Field(description=f"When the agent joined; {TS}.")


class CustomerOut(_Out):
    id: int = Field(description="Customer id.")
    name: str = Field(description="Customer's full name.")
    email: str = Field(description="Email address on file (their store account's login, unless "
                       "they changed it there since).")
    phone: str | None = Field(description="Phone number on file.")
    tier: Tier = Field(description="Loyalty tier; sets the refund window (see articles).")
    organization_id: int | None = Field(description="Organization the customer belongs to.")
    locale: str = Field(description="Preferred locale, e.g. 'en-US', 'de-DE', 'ja-JP'.")
    notes: str = Field(description="Free-text notes by support staff; may be outdated.")
    created_at: str = Field(description=f"When the customer record was created; {TS}.")
    updated_at: str = Field(description=f"Last change of the record; {TS}.")
    legacy_id: str | None = Field(description="Id in the legacy helpdesk, for imported records.")
    legacy_created: str | None = Field(
        description="Creation date as the legacy system recorded it (raw text, mixed formats)."
    )


class TicketOut(_Out):
    id: int = Field(description="Ticket id.")
    subject: str = Field(description="Ticket subject line.")
    description: str = Field(description="The requester's original message.")
    status: TicketStatus = Field(description="Ticket status.")
    priority: Priority = Field(description="Ticket priority.")
    type: TicketType = Field(description="Ticket type.")
    channel: Channel = Field(description="Channel the ticket came in through.")
    tags: list[Tag] = Field(description="Tags, exactly as stored (case-sensitive).")
    requester_id: int = Field(description="Customer who requested help.")
    assignee_id: int | None = Field(description="Agent the ticket is assigned to, if any.")
    group_id: int | None = Field(description="Group the ticket is routed to, if any.")
    organization_id: int | None = Field(description="Requester's organization, if any.")
    order_number: str | None = Field(description="Number of the checkout order the ticket is "
                                     "about (A-10423), if known: a ticket field.")
    merged_into_id: int | None = Field(
        description="Ticket this one was merged into (set on closed, merged tickets)."
    )
    sla_due_at: str | None = Field(
        description=f"When the SLA target is due; breached if unsolved past it; {TS}."
    )
    created_at: str = Field(description=f"When the ticket was created; {TS}.")
    updated_at: str = Field(description=f"Last change to the ticket; {TS}.")
    solved_at: str | None = Field(description=f"When the ticket was last solved; {TS}.")
    legacy_id: str | None = Field(description="Id in the legacy helpdesk, for imported tickets.")
    legacy_created: str | None = Field(
        description="Creation date as the legacy system recorded it (raw text, mixed formats)."
    )


class CommentOut(_Out):
    id: int = Field(description="Comment id.")
    ticket_id: int = Field(description="Ticket the comment belongs to.")
    author_type: Literal["customer", "agent", "system"] = Field(
        description="Who wrote it: the requester, an agent, or the system."
    )
    author_id: int | None = Field(
        description="customers.id or agents.id by author_type; null for system comments."
    )
    body: str = Field(description="Comment text.")
    public: bool = Field(description="True if visible to the requester; false for internal notes.")
    created_at: str = Field(description=f"When it was written; {TS}.")


class MacroComment(_Out):
    body: str = Field(
        description="Comment text; {{requester.first_name}} and {{ticket.id}} are filled in."
    )
    public: bool = Field(True, description="Public reply (true) or internal note (false).")


class MacroActions(_Out):
    status: TicketStatus | None = Field(None, description="Status the macro sets.")
    priority: Priority | None = Field(None, description="Priority the macro sets.")
    type: TicketType | None = Field(None, description="Type the macro sets.")
    group_id: int | None = Field(None, description="Group the macro routes to.")
    assignee_id: int | None = Field(
        None, description="Assignee the macro sets (null in the JSON unassigns)."
    )
    add_tags: list[Tag] | None = Field(None, description="Tags the macro adds.")
    remove_tags: list[Tag] | None = Field(None, description="Tags the macro removes.")
    comment: MacroComment | None = Field(None, description="Comment the macro adds.")


class MacroOut(_Out):
    id: int = Field(description="Macro id.")
    title: str = Field(description="Macro title.")
    description: str = Field(description="What the macro is for.")
    actions: MacroActions = Field(description="What applying the macro does to a ticket.")
    active: bool = Field(description="Inactive macros cannot be applied.")
    updated_at: str = Field(description=f"Last edit of the macro; {TS}.")


class SatisfactionRatingOut(_Out):
    id: int = Field(description="Rating id.")
    ticket_id: int = Field(description="Rated ticket.")
    score: Literal["good", "bad"] = Field(description="The requester's rating.")
    comment: str = Field(description="The requester's comment, possibly empty.")
    created_at: str = Field(description=f"When it was given; {TS}.")


class ArticleOut(_Out):
    id: int = Field(description="Article id.")
    title: str = Field(description="Article title.")
    body: str = Field(description="Article text (policies are stated here).")
    category: str = Field(description="Help-center category.")
    locale: str = Field(description="Article language.")
    created_at: str = Field(description=f"When it was published; {TS}.")
    updated_at: str = Field(description=f"When it was last edited; {TS}.")


# ---------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------

TagIn = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^\S+$")]


class TicketUpdate(_In):
    """Only the fields you send change; send null to unassign assignee/group."""

    status: TicketStatus | None = Field(
        None, description="New status; must be allowed from the current one (state machine)."
    )
    priority: Priority | None = Field(None, description="New priority.")
    type: TicketType | None = Field(None, description="New ticket type.")
    assignee_id: RecordId | None = Field(
        None, description="Agent to assign (null to unassign); must be in the group."
    )
    group_id: RecordId | None = Field(None, description="Group to route to (null to clear).")
    add_tags: list[TagIn] | None = Field(
        None, max_length=20, description="Tags to add (exact, case-sensitive, no spaces)."
    )
    remove_tags: list[TagIn] | None = Field(
        None, max_length=20, description="Tags to remove (exact, case-sensitive match)."
    )


class CommentCreate(_In):
    body: str = Field(min_length=1, max_length=10_000, description="Comment text.")
    public: bool = Field(
        True, description="True: public reply emailed to the requester; false: internal note."
    )


class MergeRequest(_In):
    target_ticket_id: RecordId = Field(
        description="Ticket to merge into; stays open and receives a system note."
    )


class CustomerUpdate(_In):
    """Contact fields; email changes go through request_email_change."""

    name: str | None = Field(None, min_length=1, max_length=120, description="Full name.")
    phone: str | None = Field(
        None,
        max_length=32,
        pattern=r"^\+?[0-9][0-9 ().-]{5,30}$",
        description="Phone number, digits with optional +, spaces, dashes.",
    )
    locale: str | None = Field(
        None, pattern=r"^[a-z]{2}-[A-Z]{2}$", description="Preferred locale such as 'en-US'."
    )
    notes: str | None = Field(
        None, max_length=4000, description="Replaces the staff notes on the customer."
    )
    organization_id: RecordId | None = Field(None, description="Organization to link.")


def ticket(row: dict[str, Any]) -> dict[str, Any]:
    row["tags"] = orjson.loads(row["tags"])
    return row


def agent(row: dict[str, Any]) -> dict[str, Any]:
    row["active"] = bool(row["active"])
    return row


def comment(row: dict[str, Any]) -> dict[str, Any]:
    row["public"] = bool(row["public"])
    return row


def macro(row: dict[str, Any]) -> dict[str, Any]:
    row["active"] = bool(row["active"])
    row["actions"] = orjson.loads(row["actions"])
    return row
