"""HubSpot's CRM objects (v3): each type's list walked by its cursor, create, read, update and
archive, its batch API and its search (developers.hubspot.com/docs/api/crm/understanding-the-crm,
/docs/api/crm/search), and the contacts' merge; each answer held to the client's model of that
type's package (``contacts.SimplePublicObject``, ``objects.notes.SimplePublicObject``)."""

from __future__ import annotations

from typing import Any

from tests.conformance.crm import OBJECTS, PACKAGES, TEXT, new_record, pipeline_of
from tests.conformance.harness import Call

V3 = "/crm/v3/objects"
MISSING_ID = "999999999"
NO_TOKEN = {"Authorization": "Bearer not-a-token"}


def first_stage(call: Call, object_type: str) -> tuple[str, str]:
    pipelines = call("GET", f"/crm/v3/pipelines/{object_type}", status=200,
                     shape="pipelines.CollectionResponsePipelineNoPaging")
    first = pipelines["results"][0]
    return first["id"], min(first["stages"], key=lambda s: s["displayOrder"])["id"]


def properties(call: Call, kind: str, n: int) -> dict[str, str]:
    object_type = pipeline_of(kind)
    return new_record(kind, n, first_stage(call, object_type) if object_type else ("", ""))


def walk(call: Call, kind: str) -> list[str]:
    """Every id of ``kind``, read by following ``paging.next.after`` to the end."""
    shape = f"{PACKAGES[kind]}.CollectionResponseSimplePublicObjectWithAssociationsForwardPaging"
    ids: list[str] = []
    params: dict[str, Any] = {"limit": 25}
    while True:
        page = call("GET", f"{V3}/{kind}", status=200, shape=shape, params=params)
        ids += [record["id"] for record in page["results"]]
        if "paging" not in page:
            return ids
        params["after"] = page["paging"]["next"]["after"]


def basic(call: Call, kind: str) -> None:
    package, base = PACKAGES[kind], f"{V3}/{kind}"
    error = f"{package}.Error"
    assert walk(call, kind)
    call("GET", base, status=400, shape=error, params={"limit": "many"})
    created = call("POST", base, status=201, shape=f"{package}.SimplePublicObject",
                   json={"properties": properties(call, kind, 1)})
    call("POST", base, status=400, shape=error,
         json={"properties": {"favourite_colour": "teal"}})
    one = f"{base}/{created['id']}"
    call("GET", one, status=200, shape=f"{package}.SimplePublicObjectWithAssociations",
         params={"properties": "hs_object_id", "archived": "false"})
    call("GET", f"{base}/{MISSING_ID}", status=404, shape=error)
    field = TEXT[kind]
    call("PATCH", one, status=200, shape=f"{package}.SimplePublicObject",
         json={"properties": {field: "Changed"}})
    call("PATCH", f"{base}/{MISSING_ID}", status=404, shape=error,
         json={"properties": {field: "Changed"}})
    call("DELETE", one, status=401, shape=error, headers=NO_TOKEN)
    call("DELETE", one, status=204)
    call("GET", one, status=404, shape=error)


def batch(call: Call, kind: str) -> None:
    package, base = PACKAGES[kind], f"{V3}/{kind}/batch"
    error, answer = f"{package}.Error", f"{package}.BatchResponseSimplePublicObject"
    created = call("POST", f"{base}/create", status=201, shape=answer, json={"inputs": [
        {"properties": properties(call, kind, n)} for n in (2, 3)]})
    call("POST", f"{base}/create", status=400, shape=error, json={"inputs": [
        {"properties": {"favourite_colour": "teal"}}]})
    ids = [{"id": record["id"]} for record in created["results"]]
    call("POST", f"{base}/read", status=200, shape=answer,
         json={"inputs": ids, "properties": [], "propertiesWithHistory": []})
    call("POST", f"{base}/read", status=400, shape=error, json={"properties": []})
    field = TEXT[kind]
    call("POST", f"{base}/update", status=200, shape=answer,
         json={"inputs": [{**i, "properties": {field: "Batch"}} for i in ids]})
    call("POST", f"{base}/update", status=400, shape=error,
         json={"inputs": [{"id": ids[0]["id"], "properties": {"favourite_colour": "teal"}}]})
    call("POST", f"{base}/archive", status=204, json={"inputs": ids})
    call("POST", f"{base}/archive", status=400, shape=error, json={"inputs": "all"})


def search(call: Call, kind: str) -> None:
    package = PACKAGES[kind]
    url = f"{V3}/{kind}/search"
    shape = f"{package}.CollectionResponseWithTotalSimplePublicObjectForwardPaging"
    request: dict[str, Any] = {
        "filterGroups": [{"filters": [{"propertyName": "hs_object_id", "operator": "GT",
                                       "value": "0"}]}],
        "sorts": [{"propertyName": "hs_object_id", "direction": "DESCENDING"}], "limit": 10}
    found = call("POST", url, status=200, shape=shape, json=request)
    if "paging" in found:
        call("POST", url, status=200, shape=shape,
             json={**request, "after": found["paging"]["next"]["after"]})
    call("POST", url, status=400, shape=f"{package}.Error", json={"filterGroups": [
        {"filters": [{"propertyName": "hs_object_id", "operator": "ROUGHLY", "value": "1"}]}]})


def scenario_each_object_type(call: Call) -> None:
    for kind in OBJECTS:
        basic(call, kind)
        batch(call, kind)
        search(call, kind)


def scenario_contacts_merge(call: Call) -> None:
    base = f"{V3}/contacts"
    keep, other = (call("POST", base, status=201, shape="contacts.SimplePublicObject",
                        json={"properties": new_record("contacts", n)})["id"] for n in (4, 5))
    call("POST", f"{base}/merge", status=200, shape="contacts.SimplePublicObject",
         json={"primaryObjectId": keep, "objectIdToMerge": other})
    call("POST", f"{base}/merge", status=404, shape="contacts.Error",
         json={"primaryObjectId": keep, "objectIdToMerge": MISSING_ID})
