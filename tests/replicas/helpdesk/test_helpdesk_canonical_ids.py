"""One canonical spelling per id: '+7', '7.0', ' 7' and '07' never reach record 7, in a
path, a query or an id list (all apps' integer parameters: tests/replicas/test_contract.py)."""

from __future__ import annotations

import pytest

from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, ticket_setup

pytestmark = pytest.mark.anyio


def aliases(record_id: int) -> list[str]:
    return [f"+{record_id}", f"{record_id}.0", f" {record_id}", f"0{record_id}"]


async def test_id_aliases_are_refused_and_change_nothing(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup())
    ticket, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    before = await api.state()
    for alias in aliases(ticket):
        for method, path, body in (
            ("PUT", f"/api/v2/tickets/{alias}", {"ticket": {"priority": "urgent"}}),
            ("GET", f"/api/v2/tickets/{alias}/comments", None),
            ("POST", f"/api/v2/tickets/{alias}/merge", {"ids": [1]}),
        ):
            response = await api.request(method, path, json=body)
            assert response.status_code == 422, (alias, path, response.text)
            error = response.json()
            assert error["error"] == "RecordInvalid" and list(error["details"]) == ["ticket_id"]
            assert "canonical" in error["details"]["ticket_id"][0]["description"]
        if alias.strip() != alias:
            continue  # a list may be spaced after its commas: "1, 7"
        response = await api.get("/api/v2/tickets/show_many", params={"ids": f"1,{alias}"})
        assert response.status_code == 422, (alias, response.text)
        assert list(response.json()["details"]) == ["ids"]
    for alias in aliases(customer):
        response = await api.get(f"/api/v2/users/{alias}/tickets/requested")
        assert response.status_code == 422, (alias, response.text)
        assert list(response.json()["details"]) == ["user_id"]
    for query in ("page=+2", "page=02", "per_page=5.0", "per_page= 5"):
        response = await api.get(f"/api/v2/tickets?{query}")
        assert response.status_code == 422, (query, response.text)
    # An id in a body is an integer, not a spelling of one.
    response = await api.put(f"/api/v2/tickets/{ticket}", {"ticket": {"assignee_id": "01"}})
    assert response.status_code == 422 and list(response.json()["details"]) == ["assignee_id"]
    assert await api.state() == before

    updated = await api.ok("PUT", f"/api/v2/tickets/{ticket}", {"ticket": {"priority": "urgent"}})
    assert updated["ticket"]["priority"] == "urgent"
    found = await api.ok("GET", f"/api/v2/users/{customer}/tickets/requested")
    assert [t["id"] for t in found["tickets"]] == [ticket]
