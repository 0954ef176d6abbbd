"""One canonical spelling per id: '+7', '7.0', ' 7' and '07' never reach record 7."""

from __future__ import annotations

import pytest

from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, ticket_setup

pytestmark = pytest.mark.anyio


def aliases(record_id: int) -> list[str]:
    return [f"+{record_id}", f"{record_id}.0", f" {record_id}", f"0{record_id}"]


async def test_id_aliases_in_a_path_or_a_query_are_refused_and_change_nothing(
    episode: MakeEpisode,
) -> None:
    api = await episode(setup=ticket_setup())
    ticket, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    before = await api.state()
    for alias in aliases(ticket):
        response = await api.patch(f"/tickets/{alias}", {"priority": "urgent"})
        assert response.status_code == 422, (alias, response.text)
        error = response.json()["error"]
        assert (error["field"], error["rule"]) == ("ticket_id", "canonical_integer")
    for alias in aliases(customer):
        response = await api.get("/tickets", params={"requester_id": alias})
        assert response.status_code == 422, (alias, response.text)
        error = response.json()["error"]
        assert (error["field"], error["rule"]) == ("requester_id", "canonical_integer")
    assert await api.state() == before

    updated = await api.ok("PATCH", f"/tickets/{ticket}", {"priority": "urgent"})
    assert updated["priority"] == "urgent"
    found = await api.ok("GET", f"/tickets?requester_id={customer}")
    assert [t["id"] for t in found["data"]] == [ticket]
