"""The CRM's HubSpot CRM v3 objects API over HTTP (replicas/runtime/objects through the
generated routes): cursor paging walks every record once, search's operators and limits,
batches with per-input errors, archive, associations v4, idProperty, merge, and refusals in
HubSpot's error body that change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import BASE, Crm

pytestmark = pytest.mark.anyio
V3 = "/crm/v3/objects"


async def _walk(crm: Crm, path: str, limit: int, **params: Any) -> list[str]:
    ids: list[str] = []
    after: str | None = None
    while True:
        page = await crm.call("GET", path, params={"limit": limit, **params,
                                                   **({"after": after} if after else {})})
        ids += [r["id"] for r in page["results"]]
        if "paging" not in page:
            return ids
        after = page["paging"]["next"]["after"]
        assert page["paging"]["next"]["link"] == f"{BASE}{path}?after={after}"


async def test_paging_walks_every_record_once_even_while_records_are_added(crm: Any) -> None:
    env = await crm()
    db = await env.db()
    expected = [str(r["id"]) for r in db.execute(
        "SELECT id FROM contacts WHERE NOT archived ORDER BY id")]
    first = await env.call("GET", f"{V3}/contacts", params={"limit": 7})
    made = await env.call("POST", f"{V3}/contacts", 201,
                          json={"properties": {"email": "new.person@example.org"}})
    rest = await _walk(env, f"{V3}/contacts", 7, after=first["paging"]["next"]["after"])
    seen = [r["id"] for r in first["results"]] + rest
    assert seen == [*expected, made["id"]]
    assert len(set(seen)) == len(seen)


async def test_a_record_answers_string_values_and_the_properties_asked_for(crm: Any) -> None:
    env = await crm()
    db = await env.db()
    deal = db.execute("SELECT * FROM deals WHERE amount IS NOT NULL ORDER BY id").fetchone()
    got = await env.call("GET", f"{V3}/deals/{deal['id']}",
                         params={"properties": "amount,dealstage,nonsense"})
    amount = deal["amount"]
    assert got["properties"] == {
        "amount": str(int(amount)) if float(amount).is_integer() else str(amount),
        "dealstage": deal["dealstage"]}
    assert got["id"] == str(deal["id"]) and got["archived"] is False
    assert got["createdAt"] == deal["createdate"].replace("Z", ".000Z")
    default = await env.call("GET", f"{V3}/deals/{deal['id']}")
    assert set(default["properties"]) == {"dealname", "amount", "closedate", "pipeline",
                                          "dealstage", "createdate", "hs_lastmodifieddate",
                                          "hs_object_id"}


def _ids(answer: dict[str, Any]) -> set[int]:
    return {int(r["id"]) for r in answer["results"]}


def _search(**body: Any) -> dict[str, Any]:
    return {"json": {"limit": 200, **body}}


def _one(name: str, operator: str, **rest: Any) -> list[dict[str, Any]]:
    return [{"filters": [{"propertyName": name, "operator": operator, **rest}]}]


async def test_search_operators_match_what_the_rows_hold(crm: Any) -> None:
    env = await crm()
    rows = [dict(r) for r in (await env.db()).execute("SELECT * FROM deals WHERE NOT archived")]
    amounts = sorted({r["amount"] for r in rows if r["amount"] is not None})
    mid = amounts[len(amounts) // 2]
    low, high = amounts[len(amounts) // 4], amounts[3 * len(amounts) // 4]
    stages = ["closedwon", "closedlost"]
    cases: list[tuple[list[dict[str, Any]], set[int]]] = [
        (_one("amount", "GT", value=str(mid)),
         {r["id"] for r in rows if r["amount"] is not None and r["amount"] > mid}),
        (_one("amount", "LTE", value=str(mid)),
         {r["id"] for r in rows if r["amount"] is not None and r["amount"] <= mid}),
        (_one("amount", "BETWEEN", value=str(low), highValue=str(high)),
         {r["id"] for r in rows if r["amount"] is not None and low <= r["amount"] <= high}),
        (_one("dealstage", "IN", values=stages), {r["id"] for r in rows
                                                    if r["dealstage"] in stages}),
        (_one("dealstage", "NOT_IN", values=stages), {r["id"] for r in rows
                                                        if r["dealstage"] not in stages}),
        (_one("dealstage", "EQ", value="CLOSEDWON"),
         {r["id"] for r in rows if r["dealstage"] == "closedwon"}),
        (_one("dealstage", "NEQ", value="closedwon"),
         {r["id"] for r in rows if r["dealstage"] != "closedwon"}),
        (_one("closedate", "HAS_PROPERTY"), {r["id"] for r in rows if r["closedate"]}),
        (_one("closedate", "NOT_HAS_PROPERTY"), {r["id"] for r in rows if not r["closedate"]}),
        (_one("closedate", "LT", value="2025-06-16T09:00:00Z"),
         {r["id"] for r in rows if r["closedate"] and r["closedate"] < "2025-06-16T09:00:00Z"}),
        # OR of groups, AND within one.
        ([{"filters": [{"propertyName": "dealstage", "operator": "EQ", "value": "closedwon"},
                       {"propertyName": "amount", "operator": "GTE", "value": str(mid)}]},
          {"filters": [{"propertyName": "dealstage", "operator": "EQ", "value": "closedlost"}]}],
         {r["id"] for r in rows if (r["dealstage"] == "closedwon" and r["amount"] is not None
                                    and r["amount"] >= mid) or r["dealstage"] == "closedlost"}),
    ]
    for groups, expected in cases:
        answer = await env.call("POST", f"{V3}/deals/search", **_search(filterGroups=groups))
        assert _ids(answer) == expected and answer["total"] == len(expected), groups
        assert expected  # each case means something in world 1


async def test_search_query_tokens_sorts_and_pages(crm: Any) -> None:
    env = await crm()
    contact = dict((await env.db()).execute(
        "SELECT * FROM contacts WHERE NOT archived ORDER BY id").fetchone())
    named = await env.call("POST", f"{V3}/contacts/search", **_search(
        query=f"{contact['firstname']} {contact['lastname']}".upper()))
    assert int(contact["id"]) in _ids(named)
    token = contact["email"].split("@")[1]
    by_token = await env.call("POST", f"{V3}/contacts/search", **_search(
        filterGroups=_one("email", "CONTAINS_TOKEN", value=f"*{token}")))
    assert int(contact["id"]) in _ids(by_token)
    assert all(r["properties"]["email"].lower().endswith(token) for r in by_token["results"])
    ordered = await env.call("POST", f"{V3}/deals/search", **_search(
        sorts=["-amount"], properties=["amount"],
        filterGroups=_one("amount", "HAS_PROPERTY")))
    amounts = [float(r["properties"]["amount"]) for r in ordered["results"]]
    assert amounts == sorted(amounts, reverse=True)
    pages, after = [], None
    while True:
        page = await env.call("POST", f"{V3}/deals/search", json={
            "limit": 25, **({"after": after} if after else {})})
        pages += [r["id"] for r in page["results"]]
        if "paging" not in page:
            break
        after = page["paging"]["next"]["after"]
    assert len(pages) == len(set(pages)) == page["total"]


async def test_search_refuses_past_hubspots_limits(crm: Any) -> None:
    env = await crm()
    six_groups = [{"filters": [{"propertyName": "amount", "operator": "HAS_PROPERTY"}]}] * 6
    for body, field in (({"filterGroups": six_groups}, "filterGroups"),
                        ({"limit": 201}, "limit"),
                        ({"filterGroups": _one("nickname", "EQ", value="x")},
                         "filterGroups.filters.propertyName"),
                        ({"filterGroups": _one("amount", "GT", value="lots")},
                         "filterGroups.filters.value")):
        refused = await env.call("POST", f"{V3}/deals/search", 400, json=body)
        assert refused["status"] == "error" and refused["category"] == "VALIDATION_ERROR"
        assert refused["errors"][0]["in"] == field, refused


async def test_refused_writes_name_each_property_and_change_nothing(crm: Any) -> None:
    env = await crm()
    before = await env.state()
    refused = await env.call("PATCH", f"{V3}/deals/1", 400, json={"properties": {
        "nickname": "x", "createdate": "2020-01-01", "amount": "lots", "dealstage": "1",
        "hubspot_owner_id": "99999", "hs_priority": "urgent"}})
    codes = {e["context"]["propertyName"][0]: e["code"] for e in refused["errors"]}
    assert codes == {"nickname": "PROPERTY_DOESNT_EXIST", "createdate": "READ_ONLY_VALUE",
                     "amount": "INVALID_DECIMAL", "dealstage": "INVALID_OPTION",
                     "hubspot_owner_id": "INVALID_OWNER_ID", "hs_priority": "INVALID_OPTION"}
    assert refused["message"].startswith("Property values were not valid: ")
    await env.call("POST", f"{V3}/tickets", 400, json={"properties": {"subject": "Help"}})
    await env.call("POST", f"{V3}/deals/batch/create", 400, json={"inputs": [
        {"properties": {"dealname": "fine"}}, {"properties": {"amount": "x"}}]})
    await env.call("POST", f"{V3}/deals/batch/update", 400,
                   json={"inputs": [{"id": str(i), "properties": {}} for i in range(1, 102)]})
    await env.call("PATCH", f"{V3}/deals/999999", 404, json={"properties": {"amount": "1"}})
    assert await env.state() == before


async def test_a_unique_email_is_a_conflict_whatever_its_case(crm: Any) -> None:
    env = await crm()
    contact = (await env.db()).execute("SELECT id, email FROM contacts WHERE NOT archived "
                                       "ORDER BY id").fetchone()
    refused = await env.call("POST", f"{V3}/contacts", 409, json={
        "properties": {"email": contact["email"].upper()}})
    assert refused["category"] == "CONFLICT"
    assert refused["message"] == f"Contact already exists. Existing ID: {contact['id']}"
    found = await env.call("GET", f"{V3}/contacts/{contact['email'].upper()}",
                           params={"idProperty": "email"})
    assert found["id"] == str(contact["id"])


async def test_an_update_sets_values_and_moves_the_modified_date(crm: Any) -> None:
    env = await crm()
    updated = await env.call("PATCH", f"{V3}/deals/1", json={"properties": {
        "dealstage": "closedwon", "amount": 1234.5, "description": ""}})
    assert updated["properties"]["dealstage"] == "closedwon"
    assert updated["properties"]["amount"] == "1234.5"
    row = (await env.db()).execute("SELECT * FROM deals WHERE id = 1").fetchone()
    assert (row["dealstage"], row["amount"], row["description"]) == ("closedwon", 1234.5, None)
    assert updated["updatedAt"] == row["hs_lastmodifieddate"].replace("Z", ".000Z")


async def test_batches_answer_207_naming_the_missing_ids(crm: Any) -> None:
    env = await crm()
    read = await env.call("POST", f"{V3}/contacts/batch/read", 207, json={
        "inputs": [{"id": "1"}, {"id": "999999"}], "properties": ["email"],
        "propertiesWithHistory": []})
    assert [r["id"] for r in read["results"]] == ["1"] and read["numErrors"] == 1
    assert read["errors"][0]["category"] == "OBJECT_NOT_FOUND"
    assert read["errors"][0]["context"] == {"ids": ["999999"]}
    updated = await env.call("POST", f"{V3}/tasks/batch/update", 207, json={"inputs": [
        {"id": "1", "properties": {"hs_task_status": "COMPLETED"}},
        {"id": "999999", "properties": {"hs_task_status": "COMPLETED"}}]})
    assert [r["id"] for r in updated["results"]] == ["1"]
    db = await env.db()
    assert db.execute("SELECT hs_task_status FROM tasks WHERE id = 1").fetchone()[0] == (
        "COMPLETED")
    made = await env.call("POST", f"{V3}/notes/batch/create", 201, json={"inputs": [
        {"properties": {"hs_note_body": f"n{i}", "hs_timestamp": "1750064400000"}}
        for i in range(2)]})
    assert [r["properties"]["hs_object_id"] for r in made["results"]] == [
        r["id"] for r in made["results"]]
    assert made["status"] == "COMPLETE"


async def test_archive_hides_a_record_but_archived_lists_it(crm: Any) -> None:
    env = await crm()
    await env.call("DELETE", f"{V3}/companies/2", 204)
    await env.call("GET", f"{V3}/companies/2", 404)
    archived = await env.call("GET", f"{V3}/companies/2", params={"archived": "true"})
    assert archived["archived"] is True and archived["archivedAt"]
    listed = await _walk(env, f"{V3}/companies", 100, archived="true")
    assert "2" in listed and "2" not in await _walk(env, f"{V3}/companies", 100)
    found = await env.call("POST", f"{V3}/companies/search", json={"limit": 200})
    assert 2 not in _ids(found)
    await env.call("POST", f"{V3}/companies/batch/archive", 204,
                   json={"inputs": [{"id": "3"}, {"id": "999999"}]})
    await env.call("GET", f"{V3}/companies/3", 404)


async def test_associations_both_ways_with_labels_and_their_removal(crm: Any) -> None:
    env = await crm()
    primary = [{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 1}]
    pair = await env.call("PUT", "/crm/v4/objects/contacts/5/associations/companies/3", 201,
                          json=primary)
    assert pair == {"fromObjectTypeId": "0-1", "fromObjectId": "5", "toObjectTypeId": "0-2",
                    "toObjectId": "3", "labels": ["Primary"]}
    there = await env.call("GET", "/crm/v4/objects/contact/5/associations/companies")
    assert {"toObjectId": "3", "associationTypes": [
        {"category": "HUBSPOT_DEFINED", "typeId": 1, "label": "Primary"},
        {"category": "HUBSPOT_DEFINED", "typeId": 279, "label": None}]} in there["results"]
    back = await env.call("GET", "/crm/v4/objects/0-2/3/associations/contacts")
    assert any(r["toObjectId"] == "5" and {t["typeId"] for t in r["associationTypes"]} >= {2, 280}
               for r in back["results"])
    read = await env.call("GET", f"{V3}/contacts/5", params={"associations": "companies"})
    assert {"id": "3", "type": "contact_to_company"} in read["associations"]["companies"][
        "results"]
    await env.call("DELETE", "/crm/v4/objects/contacts/5/associations/companies/3", 204)
    gone = await env.call("GET", "/crm/v4/objects/companies/3/associations/contacts")
    assert all(r["toObjectId"] != "5" for r in gone["results"])
    default = await env.call(
        "PUT", "/crm/v4/objects/deals/1/associations/default/tickets/1")
    assert [r["associationSpec"]["associationTypeId"] for r in default["results"]] == [27, 28]
    labels = await env.call("GET", "/crm/v4/associations/contacts/companies/labels")
    assert {(r["typeId"], r["label"]) for r in labels["results"]} == {(279, None),
                                                                     (1, "Primary")}
    before = await env.state()
    wrong = await env.call("PUT", "/crm/v4/objects/contacts/5/associations/companies/3", 400,
                           json=[{"associationCategory": "HUBSPOT_DEFINED",
                                  "associationTypeId": 3}])
    assert wrong["category"] == "VALIDATION_ERROR"
    await env.call("GET", "/crm/v4/objects/planets/5/associations/companies", 400)
    assert await env.state() == before


async def test_a_record_created_with_associations_is_associated(crm: Any) -> None:
    env = await crm()
    made = await env.call("POST", f"{V3}/notes", 201, json={
        "properties": {"hs_note_body": "Called back", "hs_timestamp": "2025-06-16T09:00:00Z"},
        "associations": [{"to": {"id": "4"}, "types": [
            {"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 202}]}]})
    linked = await env.call("GET", "/crm/v4/objects/contacts/4/associations/notes")
    assert made["id"] in {r["toObjectId"] for r in linked["results"]}


async def test_merging_keeps_the_primary_and_archives_the_other(crm: Any) -> None:
    env = await crm()
    await env.call("PUT", "/crm/v4/objects/deals/2/associations/default/contacts/8")
    merged = await env.call("POST", f"{V3}/contacts/merge", json={
        "primaryObjectId": "7", "objectIdToMerge": "8"})
    assert merged["id"] == "7"
    await env.call("GET", f"{V3}/contacts/8", 404)
    deals = await env.call("GET", "/crm/v4/objects/contacts/7/associations/deals")
    assert "2" in {r["toObjectId"] for r in deals["results"]}


async def test_pipelines_and_owners(crm: Any) -> None:
    env = await crm()
    pipelines = await env.call("GET", "/crm/v3/pipelines/deals")
    [sales] = pipelines["results"]
    assert sales["id"] == "default" and sales["stages"][-1]["id"] == "closedlost"
    assert sales["stages"][5]["metadata"] == {"isClosed": "true", "probability": "1.0"}
    stages = await env.call("GET", "/crm/v3/pipelines/tickets/0/stages")
    assert [s["id"] for s in stages["results"]] == ["1", "2", "3", "4"]
    await env.call("GET", "/crm/v3/pipelines/deals/nope", 404)
    db = await env.db()
    owners = [dict(r) for r in db.execute("SELECT * FROM owners WHERE NOT archived ORDER BY id")]
    assert await _walk(env, "/crm/v3/owners/", 5) == [str(o["id"]) for o in owners]
    one = await env.call("GET", "/crm/v3/owners/", params={"email": owners[1]["email"]})
    assert [o["id"] for o in one["results"]] == [str(owners[1]["id"])]
    by_user = await env.call("GET", f"/crm/v3/owners/{owners[1]['user_id']}",
                             params={"idProperty": "userId"})
    assert by_user["email"] == owners[1]["email"]
