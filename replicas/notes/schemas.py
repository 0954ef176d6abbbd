"""Request and response models of the notes API, and row -> response converters."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from replicas.runtime.clock import ISO_DESCRIPTION
from replicas.runtime.params import RecordId

Title = Field(min_length=1, max_length=120, description="A short title.")
Body = Field(min_length=1, max_length=4000, description="What the note says.")


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PersonOut(_Out):
    id: int = Field(description="Person id.")
    name: str = Field(description="Full name.")
    email: str = Field(description="Email address (unique).")
    locale: str = Field(description="Language and region, e.g. 'de-DE'.")
    company: str | None = Field(description="The company they work at, if any.")
    created_at: str = Field(description=f"When they were added, {ISO_DESCRIPTION}.")


class NoteOut(_Out):
    id: int = Field(description="Note id.")
    person_id: int = Field(description="The person the note is about.")
    title: str = Field(description="A short title.")
    body: str = Field(description="What the note says.")
    pinned: bool = Field(description="Pinned notes cannot be deleted until unpinned.")
    created_at: str = Field(description=f"When it was written, {ISO_DESCRIPTION}.")
    updated_at: str = Field(description=f"When it last changed, {ISO_DESCRIPTION}.")


class NoteCreate(_In):
    person_id: RecordId = Field(description="The person the note is about (see list_people).")
    title: str = Title
    body: str = Body
    pinned: bool = Field(False, description="Pin it (it cannot be deleted until unpinned).")


class NoteUpdate(_In):
    title: str | None = Field(None, min_length=1, max_length=120, description="A new title.")
    body: str | None = Field(None, min_length=1, max_length=4000, description="A new text.")
    pinned: bool | None = Field(None, description="Pin or unpin it.")


def note(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "pinned": bool(row["pinned"])}
