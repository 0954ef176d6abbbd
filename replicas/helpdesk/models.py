"""The helpdesk schema: one SQLModel table class per table.

These classes are the schema (the runtime compiles the DDL from their metadata when seed/
writes a world: replicas/runtime/world.py); routes read and write rows with plain sqlite3
and return dicts. Timestamps are ISO strings 'YYYY-MM-DDTHH:MM:SSZ'; JSON columns (tags,
actions) hold JSON text. The shop's orders, payments and customer accounts are the
checkout's (replicas/checkout); a ticket names the order it is about by its number.
"""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


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


class Agent(HelpdeskModel, table=True):
    __tablename__ = "agents"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    email: str = Field(unique=True)
    role: str  # agent | lead | manager
    group_id: int = Field(foreign_key="groups.id")
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    created_at: str


class Customer(HelpdeskModel, table=True):
    __tablename__ = "customers"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    email: str = Field(index=True)
    phone: str | None = None
    tier: str  # standard | silver | gold | platinum
    organization_id: int | None = Field(default=None, foreign_key="organizations.id")
    locale: str
    notes: str = Field(default="", sa_column_kwargs={"server_default": ""})
    created_at: str
    updated_at: str
    # Imported from the legacy system (Desk.com) with its raw, inconsistent date text.
    legacy_id: str | None = None
    legacy_created: str | None = None


class Ticket(HelpdeskModel, table=True):
    __tablename__ = "tickets"

    id: int | None = Field(default=None, primary_key=True)
    subject: str
    description: str
    status: str = Field(index=True)  # new | open | pending | on-hold | solved | closed
    priority: str  # low | normal | high | urgent
    type: str  # question | incident | problem | task
    channel: str  # email | chat | phone | web
    tags: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})  # JSON array
    requester_id: int = Field(foreign_key="customers.id", index=True)
    assignee_id: int | None = Field(default=None, foreign_key="agents.id", index=True)
    group_id: int | None = Field(default=None, foreign_key="groups.id")
    organization_id: int | None = Field(default=None, foreign_key="organizations.id")
    order_number: str | None = Field(default=None, index=True)  # the checkout's order
    merged_into_id: int | None = Field(default=None, foreign_key="tickets.id")
    sla_due_at: str | None = None
    created_at: str
    updated_at: str
    solved_at: str | None = None
    legacy_id: str | None = None
    legacy_created: str | None = None


class Comment(HelpdeskModel, table=True):
    __tablename__ = "comments"

    id: int | None = Field(default=None, primary_key=True)
    ticket_id: int = Field(foreign_key="tickets.id", index=True)
    author_type: str  # customer | agent | system
    author_id: int | None = None  # customers.id or agents.id by author_type; None for system
    body: str
    public: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    created_at: str


class Macro(HelpdeskModel, table=True):
    __tablename__ = "macros"

    id: int | None = Field(default=None, primary_key=True)
    title: str
    description: str
    actions: str  # JSON object: status, priority, type, group_id, add_tags, remove_tags, comment
    active: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})
    updated_at: str


class SatisfactionRating(HelpdeskModel, table=True):
    __tablename__ = "satisfaction_ratings"

    id: int | None = Field(default=None, primary_key=True)
    ticket_id: int = Field(foreign_key="tickets.id", index=True)
    score: str  # good | bad
    comment: str = Field(default="", sa_column_kwargs={"server_default": ""})
    created_at: str


class Article(HelpdeskModel, table=True):
    __tablename__ = "articles"

    id: int | None = Field(default=None, primary_key=True)
    title: str
    body: str
    category: str
    locale: str = Field(default="en-US", sa_column_kwargs={"server_default": "en-US"})
    created_at: str
    updated_at: str


METADATA = HelpdeskModel.metadata
