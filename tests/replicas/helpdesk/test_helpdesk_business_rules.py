"""The helpdesk's business rules on the virtual clock, as documented (replicas/helpdesk/
README.md, "Business rules"): triggers fire on creates and updates, automations on the hour
of the episode's clock, and SLA policies run their metrics in business hours of the ticket's
schedule (two regions, a holiday), with metric events that follow what agents do.

The world's clock starts Monday 16 June 2025 09:00 UTC (05:00 in New York, 11:00 in
Berlin); each agent request is one virtual minute; 19 June is a holiday in both regions."""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from replicas.helpdesk.spec import SPEC
from replicas.runtime.app import create_replica_app
from workgym_core.settings import Settings

pytestmark = pytest.mark.anyio
SECRET = "s"
_ids = itertools.count(1)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def app() -> Any:
    return create_replica_app(SPEC, Settings(data_dir=Path(tempfile.mkdtemp()),
                                             internal_secret=SECRET))


class Desk:
    """One episode of the helpdesk; ``step`` is its clock (minutes since the start)."""

    def __init__(self, client: httpx.AsyncClient, episode_id: str, rows: dict[str, Any]):
        self.client, self.id, self.rows, self.step = client, episode_id, rows, 0

    async def call(self, method: str, path: str, *, step: int | None = None,
                   status: int = 200, **kwargs: Any) -> Any:
        self.step = step if step is not None else self.step + 1
        response = await self.client.request(method, "/api/v2" + path, headers={
            "x-workgym-internal": SECRET, "x-workgym-episode": self.id,
            "x-workgym-step": str(self.step)}, **kwargs)
        assert response.status_code == status, response.text
        return response.json() if response.content else None

    async def events(self, ticket_id: int) -> list[tuple[str, int, str, str, bool]]:
        found = await self.call("GET", f"/tickets/{ticket_id}/metric_events")
        return [(e["metric"], e["instance_id"], e["type"], e["time"], e.get("deleted", False))
                for e in found["ticket_metric_events"]]


@pytest.fixture
async def desk(app: Any, anyio_backend: str) -> AsyncIterator[Any]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://helpdesk") as client:
        async def make(setup: list[dict[str, Any]]) -> Desk:
            episode_id = f"rules{next(_ids)}"
            response = await client.post("/_env/episodes", headers={
                "x-workgym-internal": SECRET}, json={"episode_id": episode_id, "seed": 2,
                                                     "setup": setup, "script": {}})
            assert response.status_code == 201, response.text
            return Desk(client, episode_id, response.json()["vars"])
        yield make


def _customer(locale: str, tier: str = "standard") -> dict[str, Any]:
    return {"bind": "customer", "insert": "users", "values": {
        "name": "Ada Lovelace", "email": f"ada.{locale.lower()}@example.com", "role": "end-user",
        "tier": tier, "locale": locale, "created_at": "@now-400d", "updated_at": "@now-400d"}}


def _ticket(priority: str = "normal", **given: Any) -> dict[str, Any]:
    return {"factory": "ticket", "bind": "ticket", "requester_id": "$customer.id",
            "priority": priority, "created_at": "@now", **given}


async def test_a_public_reply_notifies_the_requester_through_a_trigger(desk: Any) -> None:
    d = await desk([_customer("en-US"), _ticket()])
    tid = d.rows["ticket"]["id"]
    saved = await d.call("PUT", f"/tickets/{tid}", json={"ticket": {"comment": {
        "body": "We're on it.", "public": True}}})
    notes = [e for e in saved["audit"]["events"] if e["type"] == "Notification"]
    assert [n["via"]["source"]["from"]["title"] for n in notes] == [
        "Notify requester of comment update"]
    assert notes[0]["recipients"] == [d.rows["customer"]["id"]]
    assert notes[0]["body"] == "We're on it."  # {{ticket.latest_comment}} filled in
    quiet = await d.call("PUT", f"/tickets/{tid}", json={"ticket": {"comment": {
        "body": "Internal only.", "public": False}}})
    assert not [e for e in quiet["audit"]["events"] if e["type"] == "Notification"]


async def test_the_escalation_tag_routes_to_tier_2_and_removes_itself(desk: Any) -> None:
    d = await desk([_customer("en-US"), _ticket()])
    tid = d.rows["ticket"]["id"]
    saved = await d.call("PUT", f"/tickets/{tid}", json={"ticket": {
        "additional_tags": ["escalate_tier2"]}})
    ticket = saved["ticket"]
    assert (ticket["group_id"], ticket["assignee_id"], ticket["priority"]) == (3, None, "high")
    assert "escalate_tier2" not in ticket["tags"]
    by_rule = {e["field_name"] for e in saved["audit"]["events"]
               if e.get("via", {}).get("channel") == "rule"}
    assert by_rule == {"group_id", "assignee_id", "priority", "tags"}


async def test_new_billing_requests_are_routed_and_emea_customers_get_emea_hours(
        desk: Any) -> None:
    d = await desk([_customer("de-DE")])
    created = await d.call("POST", "/tickets", status=201, json={"ticket": {
        "subject": "Doppelte Abbuchung", "requester_id": d.rows["customer"]["id"],
        "comment": {"body": "Sie haben mich zweimal belastet."},
        "custom_fields": [{"id": 360003, "value": "billing"}]}})
    assert created["ticket"]["group_id"] == 2  # "Route billing requests"
    fired = {e["via"]["source"]["from"]["title"] for e in created["audit"]["events"]
             if "via" in e}
    assert {"Route billing requests", "Business hours by region",
            "Notify requester of received request"} <= fired


async def test_first_reply_time_runs_in_business_hours_and_a_reply_fulfils_it(
        desk: Any) -> None:
    # Created Monday 05:00 in New York: the clock starts at 08:00; 960 business minutes of
    # the Standard policy (normal priority) are Monday 08:00-18:00 and Tuesday 08:00-14:00.
    d = await desk([_customer("en-US"), _ticket()])
    tid = d.rows["ticket"]["id"]
    events = await d.events(tid)
    assert ("reply_time", 1, "breach", "2025-06-17T18:00:00Z", False) in events
    assert ("requester_wait_time", 1, "activate", "2025-06-16T09:00:00Z", False) in events
    await d.call("PUT", f"/tickets/{tid}", json={"ticket": {"comment": {
        "body": "Hello, looking into it.", "public": True}}}, step=30)
    events = await d.events(tid)
    assert ("reply_time", 1, "fulfill", "2025-06-16T09:30:00Z", False) in events
    assert ("reply_time", 1, "breach", "2025-06-17T18:00:00Z", True) in events  # met
    shown = await d.call("GET", f"/tickets/{tid}?include=slas")
    stages = {m["metric"]: m["stage"] for m in shown["ticket"]["slas"]["policy_metrics"]}
    assert stages == {"first_reply_time": "achieved", "requester_wait_time": "active"}


async def test_the_holiday_and_the_weekend_are_not_business_hours(desk: Any) -> None:
    # Wednesday 18 June 21:00 UTC = 17:00 in New York: one hour on Wednesday, Thursday is
    # Juneteenth, ten hours on Friday, then Monday 08:00-13:00 (960 minutes in all).
    d = await desk([_customer("en-US"), _ticket(created_at="@now+2d+12h")])
    events = await d.events(d.rows["ticket"]["id"])
    assert ("reply_time", 1, "breach", "2025-06-23T17:00:00Z", False) in events


async def test_emea_tickets_run_on_berlin_hours(desk: Any) -> None:
    # Berlin 9-17: Monday 11:00-17:00 (6 h), Tuesday 9-17 (8 h), Wednesday 9:00-11:00 (2 h).
    d = await desk([_customer("de-DE"), _ticket(schedule_id=2)])
    events = await d.events(d.rows["ticket"]["id"])
    assert ("reply_time", 1, "breach", "2025-06-18T09:00:00Z", False) in events


async def test_urgent_and_platinum_run_around_the_clock(desk: Any) -> None:
    d = await desk([_customer("en-US", tier="platinum"), _ticket(priority="high")])
    events = await d.events(d.rows["ticket"]["id"])
    # The Platinum policy: 120 calendar minutes for a high-priority first reply.
    assert ("reply_time", 1, "breach", "2025-06-16T11:00:00Z", False) in events


async def test_pending_pauses_requester_wait_and_the_next_reply_is_measured(
        desk: Any) -> None:
    d = await desk([_customer("en-US"), _ticket()])
    tid = d.rows["ticket"]["id"]
    # Tuesday 10:00 in New York (14:00 UTC): 720 business minutes of waiting so far
    # (Monday 08:00-18:00 and Tuesday 08:00-10:00).
    await d.call("PUT", f"/tickets/{tid}", step=29 * 60, json={"ticket": {
        "status": "pending", "comment": {"body": "Which order is it?", "public": True}}})
    customer = d.rows["customer"]["id"]
    await d.call("PUT", f"/tickets/{tid}", step=30 * 60, json={"ticket": {"comment": {
        "body": "A-10001", "public": True, "author_id": customer}}})
    events = await d.events(tid)
    assert ("requester_wait_time", 1, "pause", "2025-06-17T14:00:00Z", False) in events
    # The requester answered: the ticket reopened, waiting resumed with 4800 - 720 minutes
    # left, and their comment started next reply time (instance 2: 1440 business minutes).
    assert ("requester_wait_time", 1, "activate", "2025-06-17T15:00:00Z", False) in events
    assert ("reply_time", 2, "activate", "2025-06-17T15:00:00Z", False) in events
    # 24 business hours from Tuesday 11:00: Tuesday 7, Wednesday 10, (Thursday off),
    # Friday 7: Friday 15:00 in New York.
    assert ("reply_time", 2, "breach", "2025-06-20T19:00:00Z", False) in events
    ticket = (await d.call("GET", f"/tickets/{tid}"))["ticket"]
    assert ticket["status"] == "open"
    await d.call("PUT", f"/tickets/{tid}", step=31 * 60, json={"ticket": {
        "status": "solved", "comment": {"body": "Refunded.", "public": True}}})
    kinds = [(m, i, t) for m, i, t, _, _ in await d.events(tid)]
    assert ("reply_time", 2, "fulfill") in kinds and ("requester_wait_time", 1, "fulfill") in kinds


async def test_automations_close_solved_tickets_on_the_hour(desk: Any) -> None:
    d = await desk([_customer("en-US"), _ticket()])
    tid = d.rows["ticket"]["id"]
    await d.call("PUT", f"/tickets/{tid}", json={"ticket": {"status": "solved"}})
    # Solved at 09:01. The hourly runs up to 97 hours later find it solved for 96 whole
    # hours, not more: still solved.
    await d.call("PUT", f"/tickets/{tid}/tags", step=97 * 60 + 30, json={"tags": ["a"]})
    assert (await d.call("GET", f"/tickets/{tid}"))["ticket"]["status"] == "solved"
    # The next write after 98 hours: the run on that hour closes it (after the write).
    await d.call("PUT", f"/tickets/{tid}/tags", step=98 * 60 + 1, json={"tags": ["b"]})
    ticket = (await d.call("GET", f"/tickets/{tid}"))["ticket"]
    assert ticket["status"] == "closed"
    audits = (await d.call("GET", f"/tickets/{tid}/audits"))["audits"]
    closing = audits[-1]
    assert closing["via"]["channel"] == "rule"
    assert closing["events"][0]["via"]["source"]["from"]["title"] == (
        "Close ticket 4 days after status is set to solved")
