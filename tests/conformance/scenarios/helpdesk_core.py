"""The helpdesk's Zendesk resources, each served operation met with a success and an error
(harness.py), each answer checked against zenpy's shapes (zendesk_shapes.py): tickets and
their comments, audits, tags, merges and macros; users, identities, organizations, groups
and memberships; the business rules, views, SLA policies, schedules; search; the help center
and satisfaction ratings; job statuses and metric events."""

from __future__ import annotations

from typing import Any

from tests.conformance.harness import Call

API = "/api/v2"
MISSING = 999_999
BAD_CURSOR = {"page[after]": "not-a-cursor"}


def _listed(call: Call, path: str, shape: str, **params: Any) -> Any:
    """A list: a page by offset, a page by cursor, and a cursor it never gave (refused)."""
    page = call("GET", f"{API}/{path}", status=200, shape=shape, params=params)
    call("GET", f"{API}/{path}", status=200, shape=shape, params={**params, "page[size]": 2})
    call("GET", f"{API}/{path}", status=422, shape="Error", params={**params, **BAD_CURSOR})
    return page


def _shown(call: Call, path: str, shape: str, missing: str | None = None) -> Any:
    """One record, and one that does not exist (404)."""
    found = call("GET", f"{API}/{path}", status=200, shape=shape)
    call("GET", f"{API}/{missing or path.rsplit('/', 1)[0] + f'/{MISSING}'}", status=404,
         shape="Error")
    return found


def scenario_tickets(call: Call) -> None:
    tickets = _listed(call, "tickets", "Ticket[]")["tickets"]
    first, second = tickets[0]["id"], tickets[1]["id"]
    _shown(call, f"tickets/{first}", "Ticket")
    call("GET", f"{API}/tickets/show_many", status=200, shape="Ticket[*]",
         params={"ids": f"{first},{second}"})
    call("GET", f"{API}/tickets/show_many", status=422, shape="Error", params={"ids": "x"})
    created = call("POST", f"{API}/tickets", status=201, shape="Ticket", json={"ticket": {
        "subject": "Grinder", "comment": {"body": "It arrived broken."}, "priority": "high"}})
    new = created["ticket"]["id"]
    call("POST", f"{API}/tickets", status=422, shape="Error",
         json={"ticket": {"subject": "No words", "priority": "extreme"}})
    call("PUT", f"{API}/tickets/{new}", status=200, shape="Ticket",
         json={"ticket": {"comment": {"body": "Looking into it.", "public": False}}})
    call("PUT", f"{API}/tickets/{new}", status=422, shape="Error",
         json={"ticket": {"status": "sideways"}})
    _listed(call, f"tickets/{new}/comments", "Comment[]")
    call("GET", f"{API}/tickets/{MISSING}/comments", status=404, shape="Error")
    _listed(call, f"tickets/{new}/audits", "Audit[]")
    call("GET", f"{API}/tickets/{MISSING}/audits", status=404, shape="Error")
    call("GET", f"{API}/tickets/{new}/tags", status=200, shape="Tags")
    call("GET", f"{API}/tickets/{MISSING}/tags", status=404, shape="Error")
    for method in ("PUT", "POST", "DELETE"):
        call(method, f"{API}/tickets/{new}/tags", status=200, shape="Tags",
             json={"tags": ["checked"]})
        call(method, f"{API}/tickets/{new}/tags", status=422, shape="Error", json={"tags": []})
    job = call("PUT", f"{API}/tickets/update_many", status=200, shape="JobStatus",
               params={"ids": str(new)}, json={"ticket": {"priority": "low"}})
    call("PUT", f"{API}/tickets/update_many", status=422, shape="Error", json={})
    _shown(call, f"job_statuses/{job['job_status']['id']}", "JobStatus")
    other = call("POST", f"{API}/tickets", status=201, shape="Ticket", json={"ticket": {
        "subject": "Grinder again", "comment": {"body": "Still broken."},
        "requester_id": created["ticket"]["requester_id"]}})["ticket"]["id"]
    call("POST", f"{API}/tickets/{new}/merge", status=200, shape="JobStatus",
         json={"ids": [other]})
    call("POST", f"{API}/tickets/{new}/merge", status=422, shape="Error", json={"ids": [new]})


def scenario_users(call: Call) -> None:
    users = _listed(call, "users", "User[]", role="end-user")["users"]
    user = users[0]["id"]
    _shown(call, f"users/{user}", "User")
    call("GET", f"{API}/users/me", status=200, shape="User")
    # The gateway's refusal, in WorkGym's body, not Zendesk's (issue 28, part 3): no shape.
    call("GET", f"{API}/users/me", status=401, headers={"Authorization": "Bearer nope"})
    call("GET", f"{API}/users/show_many", status=200, shape="User[*]", params={"ids": str(user)})
    call("GET", f"{API}/users/show_many", status=422, shape="Error", params={"ids": "x"})
    _listed(call, "users/search", "User[]", query=users[0]["email"])
    created = call("POST", f"{API}/users", status=201, shape="User", json={"user": {
        "name": "Grace Hopper", "email": "grace.hopper@example.org"}})["user"]["id"]
    call("POST", f"{API}/users", status=422, shape="Error", json={"user": {"role": "pope"}})
    call("PUT", f"{API}/users/{created}", status=200, shape="User",
         json={"user": {"notes": "Prefers email."}})
    call("PUT", f"{API}/users/{created}", status=422, shape="Error",
         json={"user": {"role": "pope"}})
    _listed(call, f"users/{user}/identities", "Identity[]")
    call("GET", f"{API}/users/{MISSING}/identities", status=404, shape="Error")
    identity = call("POST", f"{API}/users/{created}/identities", status=201, shape="Identity",
                    json={"identity": {"type": "email", "value": "grace@navy.example"}})
    call("POST", f"{API}/users/{created}/identities", status=422, shape="Error",
         json={"identity": {"type": "pigeon", "value": "coo"}})
    ident = identity["identity"]["id"]
    _shown(call, f"users/{created}/identities/{ident}", "Identity")
    call("PUT", f"{API}/users/{created}/identities/{ident}/make_primary", status=200,
         shape="Identity[*]")
    call("PUT", f"{API}/users/{created}/identities/{MISSING}/make_primary", status=404,
         shape="Error")
    primary = call("GET", f"{API}/users/{created}/identities", status=200,
                   shape="Identity[]")["identities"]
    spare = next(i["id"] for i in primary if not i["primary"])
    call("DELETE", f"{API}/users/{created}/identities/{spare}", status=204)
    call("DELETE", f"{API}/users/{created}/identities/{MISSING}", status=404, shape="Error")
    _listed(call, f"users/{user}/tickets/requested", "Ticket[]")
    call("GET", f"{API}/users/{MISSING}/tickets/requested", status=404, shape="Error")
    _listed(call, "users/1/tickets/assigned", "Ticket[]")
    call("GET", f"{API}/users/{MISSING}/tickets/assigned", status=404, shape="Error")
    other = call("POST", f"{API}/users", status=201, shape="User", json={"user": {
        "name": "G. Hopper", "email": "g.hopper@example.org"}})["user"]["id"]
    call("PUT", f"{API}/users/{other}/merge", status=200, shape="User",
         json={"user": {"id": created}})
    call("PUT", f"{API}/users/{created}/merge", status=422, shape="Error",
         json={"user": {"id": created}})


def scenario_organizations_and_groups(call: Call) -> None:
    orgs = _listed(call, "organizations", "Organization[]")["organizations"]
    org = orgs[0]["id"]
    _shown(call, f"organizations/{org}", "Organization")
    _listed(call, "organizations/search", "Organization[]", name=orgs[0]["name"])
    _listed(call, f"organizations/{org}/users", "User[]")
    call("GET", f"{API}/organizations/{MISSING}/users", status=404, shape="Error")
    _listed(call, f"organizations/{org}/tickets", "Ticket[]")
    call("GET", f"{API}/organizations/{MISSING}/tickets", status=404, shape="Error")
    _listed(call, "groups", "Group[]")
    _shown(call, "groups/1", "Group")
    _listed(call, "groups/1/memberships", "GroupMembership[]")
    call("GET", f"{API}/groups/{MISSING}/memberships", status=404, shape="Error")
    _listed(call, "groups/1/users", "User[]")
    call("GET", f"{API}/groups/{MISSING}/users", status=404, shape="Error")
    memberships = _listed(call, "group_memberships", "GroupMembership[]")["group_memberships"]
    _shown(call, f"group_memberships/{memberships[0]['id']}", "GroupMembership")
    _listed(call, "users/1/group_memberships", "GroupMembership[]")
    call("GET", f"{API}/users/{MISSING}/group_memberships", status=404, shape="Error")
    _listed(call, "users/1/groups", "Group[]")
    call("GET", f"{API}/users/{MISSING}/groups", status=404, shape="Error")


def scenario_business_rules(call: Call) -> None:
    for kind, shape in (("macros", "Macro"), ("triggers", "Trigger"),
                        ("automations", "Automation"), ("views", "View")):
        items = _listed(call, kind, f"{shape}[]")[kind]
        _listed(call, f"{kind}/active", f"{shape}[]")
        _shown(call, f"{kind}/{items[0]['id']}", shape)
    fields = _listed(call, "ticket_fields", "TicketField[]")["ticket_fields"]
    _shown(call, f"ticket_fields/{fields[0]['id']}", "TicketField")
    policies = _listed(call, "slas/policies", "SlaPolicy[]")["sla_policies"]
    _shown(call, f"slas/policies/{policies[0]['id']}", "SlaPolicy")
    schedules = _listed(call, "business_hours/schedules", "Schedule[]")["schedules"]
    schedule = schedules[0]["id"]
    _shown(call, f"business_hours/schedules/{schedule}", "Schedule")
    call("GET", f"{API}/business_hours/schedules/{schedule}/holidays", status=200,
         shape="Holiday[*]")
    call("GET", f"{API}/business_hours/schedules/{MISSING}/holidays", status=404,
         shape="Error")


def scenario_views_and_macros(call: Call) -> None:
    view = call("GET", f"{API}/views/active", status=200, shape="View[]")["views"][0]["id"]
    call("GET", f"{API}/views/{view}/count", status=200, shape="ViewCount")
    call("GET", f"{API}/views/{MISSING}/count", status=404, shape="Error")
    _listed(call, f"views/{view}/tickets", "Ticket[]")
    call("GET", f"{API}/views/{MISSING}/tickets", status=404, shape="Error")
    call("GET", f"{API}/views/{view}/execute", status=200, shape="ViewRow[rows]")
    call("GET", f"{API}/views/{MISSING}/execute", status=404, shape="Error")
    macro = call("GET", f"{API}/macros/active", status=200,
                 shape="Macro[]")["macros"][0]["id"]
    call("GET", f"{API}/macros/{macro}/apply", status=200, shape="MacroResult")
    call("GET", f"{API}/macros/{MISSING}/apply", status=404, shape="Error")
    ticket = call("GET", f"{API}/tickets", status=200, shape="Ticket[]",
                  params={"per_page": 1})["tickets"][0]["id"]
    call("GET", f"{API}/tickets/{ticket}/macros/{macro}/apply", status=200,
         shape="MacroResult")
    call("GET", f"{API}/tickets/{MISSING}/macros/{macro}/apply", status=404, shape="Error")


def scenario_search(call: Call) -> None:
    call("GET", f"{API}/search", status=200, shape="Search[]",
         params={"query": "type:ticket status:open"})
    call("GET", f"{API}/search", status=200, shape="Search[]", params={"query": "support"})
    call("GET", f"{API}/search", status=422, shape="Error", params={"query": ""})
    call("GET", f"{API}/search/count", status=200, shape="Count",
         params={"query": "type:ticket"})
    call("GET", f"{API}/search/count", status=422, shape="Error", params={"query": ""})


def scenario_help_center_and_ratings(call: Call) -> None:
    articles = _listed(call, "help_center/articles", "Article[]")["articles"]
    _shown(call, f"help_center/articles/{articles[0]['id']}", "Article")
    _listed(call, "help_center/en-us/articles", "Article[]")
    call("GET", f"{API}/help_center/not_a_locale!/articles", status=422, shape="Error")
    call("GET", f"{API}/help_center/articles/search", status=200, shape="Article[results]",
         params={"query": "refund"})
    call("GET", f"{API}/help_center/articles/search", status=422, shape="Error")
    ratings = _listed(call, "satisfaction_ratings", "SatisfactionRating[]")
    _shown(call, f"satisfaction_ratings/{ratings['satisfaction_ratings'][0]['id']}",
           "SatisfactionRating")


def scenario_metric_events(call: Call) -> None:
    call("GET", f"{API}/incremental/ticket_metric_events", status=200,
         shape="TicketMetricEvent[]", params={"start_time": 0})
    call("GET", f"{API}/incremental/ticket_metric_events", status=422, shape="Error")
    ticket = call("GET", f"{API}/tickets", status=200, shape="Ticket[]",
                  params={"per_page": 1})["tickets"][0]["id"]
    _listed(call, f"tickets/{ticket}/metric_events", "TicketMetricEvent[]")
    call("GET", f"{API}/tickets/{MISSING}/metric_events", status=404, shape="Error")
