"""Behaviours Zendesk documents that the helpdesk once answered otherwise (issue 28): a ticket
created from its description alone, ``per_page`` above 100, the end of cursor paging, and
the safe update's 409."""

from __future__ import annotations

import pytest

from tests.replicas.helpdesk.helpdesk_support import MakeEpisode

pytestmark = pytest.mark.anyio
T = "/api/v2/tickets"


async def test_a_ticket_created_with_a_description_and_no_comment(
        episode: MakeEpisode) -> None:
    """Zendesk: "description: Read-only; the first comment on the ticket. When creating a
    ticket, use comment to set the description" -- and it accepts ``description`` in its
    place (zenpy's first README example, ``Ticket(description=..., subject=...)``)
    (developer.zendesk.com/api-reference/ticketing/tickets/tickets/#json-format)."""
    api = await episode()
    created = (await api.ok("POST", T, {"ticket": {
        "subject": "Hello", "description": "My grinder is broken."}}, status=201))["ticket"]
    assert created["description"] == "My grinder is broken."
    first = (await api.ok("GET", f"{T}/{created['id']}/comments"))["comments"][0]
    assert (first["body"], first["public"]) == ("My grinder is broken.", True)


async def test_per_page_above_100_is_capped_at_100(episode: MakeEpisode) -> None:
    """Zendesk offset pagination: "per_page ... maximum of 100"; a larger value answers 100
    records, it is not refused
    (developer.zendesk.com/api-reference/introduction/pagination/#using-offset-pagination)."""
    api = await episode()
    page = await api.ok("GET", T, params={"per_page": 500})
    assert len(page["tickets"]) == 100
    assert "per_page=100" in page["next_page"]


async def test_cursor_paging_ends_with_has_more_false_and_no_next_link(
        episode: MakeEpisode) -> None:
    """Zendesk cursor pagination: follow ``links.next`` "until the meta[has_more] property is
    false"; the last page has no next link (node-zendesk follows ``links.next``)
    (developer.zendesk.com/api-reference/introduction/pagination/#using-cursor-pagination)."""
    api = await episode()
    page = await api.ok("GET", "/api/v2/groups", params={"page[size]": 100})
    assert page["meta"]["has_more"] is False and page["links"]["next"] is None
    first = await api.ok("GET", "/api/v2/groups", params={"page[size]": 1})
    assert first["meta"]["has_more"] is True and first["links"]["next"]


async def test_a_stale_safe_update_is_zendesks_update_conflict(episode: MakeEpisode) -> None:
    """Zendesk: a safe update whose ``updated_stamp`` is stale answers 409 ``{"error":
    "UpdateConflict", "description": "Safe Update prevented the update due to outdated
    ticket data. Please fetch the latest ticket data and try again."}``
    (developer.zendesk.com/api-reference/ticketing/tickets/tickets/
    #protecting-against-ticket-update-collisions)."""
    api = await episode()
    ticket = (await api.ok("GET", T, params={"per_page": 1}))["tickets"][0]
    stale = "2000-01-01T00:00:00Z"
    before = await api.state()
    conflict = await api.refused("PUT", f"{T}/{ticket['id']}", {"ticket": {
        "priority": "urgent", "safe_update": True, "updated_stamp": stale}}, status=409)
    assert conflict == {"error": "UpdateConflict", "description": (
        "Safe Update prevented the update due to outdated ticket data. Please fetch the "
        "latest ticket data and try again.")}
    assert await api.state() == before
