"""The notes schema: people (the seed's identity) and the notes about them."""

from __future__ import annotations

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class NotesModel(SQLModel, registry=registry()):
    """Base of the notes tables: its own metadata, so other apps' tables never mix in."""


class Person(NotesModel, table=True):
    __tablename__ = "people"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    email: str = Field(unique=True)
    locale: str
    company: str | None = None
    created_at: str


class Note(NotesModel, table=True):
    __tablename__ = "notes"

    id: int | None = Field(default=None, primary_key=True)
    person_id: int = Field(foreign_key="people.id", index=True)
    title: str
    body: str
    pinned: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    created_at: str
    updated_at: str


METADATA = NotesModel.metadata
