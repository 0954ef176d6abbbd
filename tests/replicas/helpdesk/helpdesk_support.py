"""Setup builders shared by the helpdesk tests (a plain module; fixtures live in conftest)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

# ``episode`` fixture: ``await episode(seed=1, setup=[...], script={...})`` -> conftest.Api
MakeEpisode = Callable[..., Awaitable[Any]]

ORDER_NUMBER = 360001  # the custom ticket fields' ids (world.yaml ticket_fields)
PRODUCT = 360002
CONTACT_REASON = 360003
SUPPORT, BILLING, TIER_2 = 1, 2, 3  # group ids


def user_setup(bind: str = "customer", *, name: str = "Tess Ticketson",
               email: str = "tess@example.com", **values: Any) -> list[dict[str, Any]]:
    """Setup ops binding an end user ``bind`` (silver, en-US unless given) with their
    primary email identity, as the world's are. ``ops[0]["values"]`` is the user's."""
    return [
        {
            "bind": bind,
            "insert": "users",
            "values": {
                "name": name,
                "email": email,
                "role": "end-user",
                "tier": "silver",
                "locale": "en-US",
                "created_at": "@now-100d",
                "updated_at": "@now-100d",
                **values,
            },
        },
        {
            "insert": "user_identities",
            "values": {"user_id": f"${bind}.id", "type": "email", "value": email,
                       "is_primary": True, "created_at": "@now-100d"},
        },
    ]


def ticket_setup(status: str = "open", *, bind: str = "ticket", requester: str = "customer",
                 with_requester: bool = True, **values: Any) -> list[dict[str, Any]]:
    """Setup ops binding ``customer`` (see :func:`user_setup`) and ``ticket`` (assigned to
    agent 1 in Support unless overridden, tagged ``grinder``), its description the first
    comment, by the requester. ``ops[0]["values"]`` is the customer's."""
    solved = "@now-1d" if status in ("solved", "closed") else None
    ticket = {
        "subject": "Help with my grinder",
        "description": "It squeaks.",
        "status": status,
        "priority": "normal",
        "type": "question",
        "channel": "email",
        "tags": '["grinder"]',
        "requester_id": f"${requester}.id",
        "submitter_id": f"${requester}.id",
        "assignee_id": 1,
        "group_id": SUPPORT,
        "status_updated_at": "@now-1d",
        "solved_at": solved,
        "created_at": "@now-1d",
        "updated_at": "@now-1d",
        **values,
    }
    return [
        *(user_setup(requester) if with_requester else []),
        {"bind": bind, "insert": "tickets", "values": ticket},
        {
            "insert": "comments",
            "values": {"ticket_id": f"${bind}.id", "author_id": f"${requester}.id",
                       "body": ticket["description"], "public": True,
                       "created_at": ticket["created_at"]},
        },
    ]


def fields_of(ticket: dict[str, Any]) -> dict[int, Any]:
    """A ticket's custom field values by field id."""
    return {f["id"]: f["value"] for f in ticket["custom_fields"]}


def events_of(audits: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The events of ``kind`` (Create, Change, Comment, Notification) across audits."""
    return [e for a in audits for e in a["events"] if e["type"] == kind]
