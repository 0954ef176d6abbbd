"""What the helpdesk's route modules share: path ids, the caller's base URL, sideloads."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

from replicas.runtime.deps import PublicBase
from replicas.runtime.params import Id
from workgym_core.errors import InvalidRequest

TicketId = Annotated[Id, Path(description="Id of the ticket.")]
UserId = Annotated[Id, Path(description="Id of the user.")]
OrganizationId = Annotated[Id, Path(description="Id of the organization.")]
GroupId = Annotated[Id, Path(description="Id of the group.")]
Base = PublicBase
Include = Annotated[str | None, Query(max_length=100, description=(
    "Sideloads, comma-separated: users, groups, organizations (tickets also slas: each "
    "ticket's SLA metrics)."))]


def ids_param(text: str) -> list[int]:
    """``1,2,3`` -> [1, 2, 3] (a 422 naming ``ids`` otherwise)."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or len(parts) > 100 or not all(p.isdigit() and p == str(int(p)) and
                                                 0 < int(p) < 2**31 for p in parts):
        raise InvalidRequest("ids: up to 100 comma-separated ticket ids", field="ids",
                             rule="id_list")
    return [int(p) for p in parts]


Ids = Annotated[str, Query(max_length=1200, description="Comma-separated ids (at most 100).")]
