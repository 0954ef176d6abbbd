"""The helpdesk's admin and integration operations (Zendesk Support API): creating,
changing and deleting organizations, groups, macros, views and triggers; deleting users;
bulk creates (jobs); uploads and attachments; the incremental exports. Each operation once
answered and once refused. Shapes: the Zendesk resource each answers."""

from __future__ import annotations

from tests.conformance.harness import Call

A = "/api/v2"
SOON = 2_000_000_000  # 2033-05-18: a start_time in the future


def scenario_organizations_and_groups(call: Call) -> None:
    made = call("POST", f"{A}/organizations", status=201, shape="Organization",
                json={"organization": {"name": "Conformance Org", "notes": "x"}})
    org = made["organization"]["id"]
    call("POST", f"{A}/organizations", status=422, shape="Error",
         json={"organization": {"name": "conformance org"}})
    call("PUT", f"{A}/organizations/{org}", status=200, shape="Organization",
         json={"organization": {"notes": "changed"}})
    call("PUT", f"{A}/organizations/999999", status=404, shape="Error",
         json={"organization": {"notes": "changed"}})
    call("DELETE", f"{A}/organizations/{org}", status=204)
    call("DELETE", f"{A}/organizations/{org}", status=404, shape="Error")
    group = call("POST", f"{A}/groups", status=201, shape="Group",
                 json={"group": {"name": "Conformance Group"}})["group"]["id"]
    call("POST", f"{A}/groups", status=422, shape="Error", json={"group": {}})
    call("PUT", f"{A}/groups/{group}", status=200, shape="Group",
         json={"group": {"description": "Checks"}})
    call("PUT", f"{A}/groups/999999", status=404, shape="Error",
         json={"group": {"description": "Checks"}})
    call("DELETE", f"{A}/groups/{group}", status=204)
    call("DELETE", f"{A}/groups/1", status=422, shape="Error")


def scenario_macros_views_triggers(call: Call) -> None:
    actions = [{"field": "status", "value": "pending"}]
    conditions = [{"field": "status", "operator": "less_than", "value": "solved"}]
    bodies = {
        "macros": ({"macro": {"title": "Conformance", "actions": actions}},
                   {"macro": {"title": "No actions"}}, "Macro"),
        "views": ({"view": {"title": "Conformance", "all": conditions}},
                  {"view": {"title": "No conditions"}}, "View"),
        "triggers": ({"trigger": {"title": "Conformance", "conditions": {"all": conditions},
                                  "actions": actions}},
                     {"trigger": {"title": "Bad", "conditions": {"all": conditions},
                                  "actions": [{"field": "colour", "value": "red"}]}},
                     "Trigger"),
    }
    for resource, (good, bad, shape) in bodies.items():
        key = resource[:-1]
        made = call("POST", f"{A}/{resource}", status=201, shape=shape, json=good)[key]["id"]
        call("POST", f"{A}/{resource}", status=422, shape="Error", json=bad)
        call("PUT", f"{A}/{resource}/{made}", status=200, shape=shape,
             json={key: {"title": "Conformance, renamed"}})
        call("PUT", f"{A}/{resource}/999999", status=404, shape="Error",
             json={key: {"title": "Nobody"}})
        call("DELETE", f"{A}/{resource}/{made}", status=204)
        call("DELETE", f"{A}/{resource}/{made}", status=404, shape="Error")


def scenario_bulk_creates_and_user_deletion(call: Call) -> None:
    job = call("POST", f"{A}/users/create_many", status=200, shape="JobStatus",
               json={"users": [{"name": "Conformance Person",
                                "email": "conformance.person@example.com"}]})
    user = job["job_status"]["results"][0]["id"]
    call("POST", f"{A}/users/create_many", status=422, shape="Error", json={"users": []})
    call("POST", f"{A}/tickets/create_many", status=200, shape="JobStatus",
         json={"tickets": [{"subject": "Conformance", "requester_id": user,
                            "comment": {"body": "Created in bulk."}}]})
    call("POST", f"{A}/tickets/create_many", status=422, shape="Error",
         json={"tickets": [{"comment": {"body": "x"}}] * 101})
    call("DELETE", f"{A}/users/{user}", status=200, shape="User")
    call("DELETE", f"{A}/users/1", status=422, shape="Error")


def scenario_uploads_and_attachments(call: Call) -> None:
    made = call("POST", f"{A}/uploads", status=201, shape="Upload",
                params={"filename": "note.txt"}, content=b"hello",
                headers={"content-type": "text/plain"})["upload"]
    call("POST", f"{A}/uploads", status=422, shape="Error", params={"filename": "empty.txt"},
         content=b"")
    attachment = made["attachment"]
    call("GET", f"{A}/attachments/{attachment['id']}", status=200, shape="Attachment")
    call("GET", f"{A}/attachments/999999", status=404, shape="Error")
    call("DELETE", f"{A}/uploads/{made['token']}", status=204)
    call("DELETE", f"{A}/uploads/{made['token']}", status=404, shape="Error")


def scenario_incremental_exports(call: Call) -> None:
    for resource, shape in (("tickets", "Ticket[]"), ("users", "User[]")):
        call("GET", f"{A}/incremental/{resource}/cursor", status=200, shape=shape,
             params={"start_time": 0, "per_page": 2})
        call("GET", f"{A}/incremental/{resource}/cursor", status=422, shape="Error",
             params={"cursor": "not-a-cursor"})
        call("GET", f"{A}/incremental/{resource}", status=200, shape=shape,
             params={"start_time": 0, "per_page": 2})
        call("GET", f"{A}/incremental/{resource}", status=422, shape="Error",
             params={"start_time": SOON})
