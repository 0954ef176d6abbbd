"""HubSpot's official Python client (``hubspot-api-client``), unchanged but for its host and
token, against an episode of the CRM through a real ``workgym serve`` (proxy included).

The client deserializes every answer into its models, which refuse a missing required member
(and a datetime that does not parse): each call returning at all is a check of its shape. It
drives the objects' basic API (a page walk to the end, read, create, update, archive), their
batch and search APIs, associations v4, pipelines and owners, and meets HubSpot's errors as
``ApiException`` (each client package's own) carrying HubSpot's error body. The last test
reads the episode's trajectory: every operation the CRM serves was met by the client with a
success."""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hubspot import HubSpot
from hubspot.crm.associations.v4 import AssociationSpec
from hubspot.crm.contacts import PublicMergeInput
from hubspot.crm.objects import (
    BatchInputSimplePublicObjectBatchInput,
    BatchInputSimplePublicObjectBatchInputForCreate,
    BatchInputSimplePublicObjectId,
    BatchReadInputSimplePublicObjectId,
    Filter,
    FilterGroup,
    PublicObjectSearchRequest,
    SimplePublicObjectBatchInput,
    SimplePublicObjectBatchInputForCreate,
    SimplePublicObjectId,
    SimplePublicObjectInput,
    SimplePublicObjectInputForCreate,
)
from hubspot.utils.objects import fetch_all

import workgym
from workgym.processes import serving

from .coverage import served
from .crm import OBJECTS, PACKAGES, TASK, TEXT, new_record, pipeline_of

pytestmark = pytest.mark.xdist_group("hubspot-client")  # one episode, read whole by the last


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[workgym.sdk.Env]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("hubspot")),
           "WORKGYM_STEP_BUDGET": "100000"}
    with serving(env=env) as url, workgym.connect(url, TASK, seed=2, faults="none") as episode:
        episode.reset()
        yield episode


@pytest.fixture(scope="module")
def hubspot(run: workgym.sdk.Env) -> HubSpot:
    obs = run.observation
    assert obs is not None
    return HubSpot(access_token=obs.token, host=obs.apps["crm"].rstrip("/"))


def api(hubspot: HubSpot, kind: str) -> Any:
    """The client's discovery of an object type: ``crm.contacts``, ``crm.objects.notes``."""
    found = hubspot.crm
    for part in PACKAGES[kind].split("."):
        found = getattr(found, part)
    return found


def first_stage(hubspot: HubSpot, object_type: str) -> tuple[str, str]:
    """The first pipeline of ``object_type`` and its first stage, read through the client."""
    pipeline = hubspot.crm.pipelines.pipelines_api.get_all(object_type).results[0]
    return pipeline.id, min(pipeline.stages, key=lambda s: s.display_order).id


def new_properties(hubspot: HubSpot, kind: str, n: int) -> dict[str, str]:
    """Properties HubSpot accepts to create one record of ``kind``, a deal or a ticket in the
    first stage of its first pipeline."""
    object_type = pipeline_of(kind)
    return new_record(kind, n, first_stage(hubspot, object_type) if object_type else ("", ""))


# The client types ``sorts`` as strings, but HubSpot takes sort objects: users pass these
# (github.com/HubSpot/hubspot-api-python/issues/236); the client sends them as given.
SORTS = [{"propertyName": "hs_object_id", "direction": "DESCENDING"}]


# Each of the client's packages raises its own ApiException.
API_EXCEPTIONS = tuple(importlib.import_module(f"hubspot.crm.{package}").ApiException
                       for package in sorted({*PACKAGES.values(), "pipelines", "owners"}))


def refused(status: int, call: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """HubSpot's error body, from the ApiException with ``status`` that ``call`` raises."""
    with pytest.raises(API_EXCEPTIONS) as raised:
        call(*args, **kwargs)
    assert raised.value.status == status, raised.value
    body: dict[str, Any] = json.loads(raised.value.body)
    return body


@pytest.mark.parametrize("kind", OBJECTS)
def test_an_object_created_read_updated_and_archived(hubspot: HubSpot, kind: str) -> None:
    basic = api(hubspot, kind).basic_api
    properties = new_properties(hubspot, kind, 1)
    created = basic.create(SimplePublicObjectInputForCreate(properties=properties))
    assert {k: created.properties[k] for k in properties} == properties
    field = TEXT[kind]
    value = properties[field]
    read = basic.get_by_id(created.id, properties=[field])
    assert (read.id, read.properties[field], read.archived) == (created.id, value, False)
    changed = basic.update(created.id, SimplePublicObjectInput(properties={field: value + "x"}))
    assert changed.properties[field] == value + "x"
    assert changed.updated_at >= created.updated_at
    basic.archive(created.id)
    refused(404, basic.get_by_id, created.id)
    archived = basic.get_by_id(created.id, archived=True)
    assert archived.archived is True


@pytest.mark.parametrize("kind", OBJECTS)
def test_a_page_walk_reaches_the_end(hubspot: HubSpot, kind: str) -> None:
    """``after`` from each page's ``paging.next`` until there is none: every record once."""
    basic, walked, after = api(hubspot, kind).basic_api, [], None
    while True:
        page = basic.get_page(limit=7, after=after)
        walked += [record.id for record in page.results]
        if page.paging is None:
            break
        after = page.paging.next.after
    assert walked and len(walked) == len(set(walked))
    assert [r.id for r in fetch_all(api(hubspot, kind).basic_api)] == walked  # the client's


@pytest.mark.parametrize("kind", OBJECTS)
def test_batch_create_read_update_and_archive(hubspot: HubSpot, kind: str) -> None:
    batch, field = api(hubspot, kind).batch_api, TEXT[kind]
    created = batch.create(BatchInputSimplePublicObjectBatchInputForCreate(inputs=[
        SimplePublicObjectBatchInputForCreate(properties=new_properties(hubspot, kind, n))
        for n in (10, 11)]))
    assert created.status == "COMPLETE"
    ids = sorted(record.id for record in created.results)
    read = batch.read(BatchReadInputSimplePublicObjectId(
        inputs=[SimplePublicObjectId(id=i) for i in ids], properties=[field],
        properties_with_history=[]))
    assert sorted(r.id for r in read.results) == ids
    updated = batch.update(BatchInputSimplePublicObjectBatchInput(inputs=[
        SimplePublicObjectBatchInput(id=i, properties={field: "Batch"}) for i in ids]))
    assert {r.properties[field] for r in updated.results} == {"Batch"}
    batch.archive(BatchInputSimplePublicObjectId(inputs=[SimplePublicObjectId(id=i)
                                                         for i in ids]))
    for i in ids:
        refused(404, api(hubspot, kind).basic_api.get_by_id, i)


@pytest.mark.parametrize("kind", OBJECTS)
def test_search_filters_sorts_and_pages(hubspot: HubSpot, kind: str) -> None:
    """Three records sharing a value, found by it newest first two at a time; one by id."""
    basic, search, field = api(hubspot, kind).basic_api, api(hubspot, kind).search_api, TEXT[kind]
    ids = [basic.create(SimplePublicObjectInputForCreate(properties={
        **new_properties(hubspot, kind, n), field: f"Searchable {kind}"})).id for n in (20, 21, 22)]
    by_value = FilterGroup(filters=[Filter(property_name=field, operator="EQ",
                                           value=f"Searchable {kind}")])
    found, after = [], None
    while True:
        page = search.do_search(PublicObjectSearchRequest(
            filter_groups=[by_value], sorts=SORTS, properties=[field], limit=2, after=after))
        found += [record.id for record in page.results]
        assert page.total == 3
        if page.paging is None:
            break
        after = page.paging.next.after
    assert found == sorted(ids, key=int, reverse=True)
    one = search.do_search(PublicObjectSearchRequest(filter_groups=[FilterGroup(filters=[
        Filter(property_name="hs_object_id", operator="EQ", value=ids[1])])]))
    assert [r.id for r in one.results] == [ids[1]]


def test_associations_v4(hubspot: HubSpot) -> None:
    contact = hubspot.crm.contacts.basic_api.create(SimplePublicObjectInputForCreate(
        properties=new_properties(hubspot, "contacts", 30)))
    company = hubspot.crm.companies.basic_api.create(SimplePublicObjectInputForCreate(
        properties=new_properties(hubspot, "companies", 30)))
    deal = hubspot.crm.deals.basic_api.create(SimplePublicObjectInputForCreate(
        properties=new_properties(hubspot, "deals", 30)))
    v4 = hubspot.crm.associations.v4
    v4.basic_api.create_default("contacts", contact.id, "companies", company.id)
    labels = v4.schema.definitions_api.get_all("deals", "contacts").results
    assert labels and all(label.category for label in labels)
    spec = labels[0]
    made = v4.basic_api.create("deals", deal.id, "contacts", contact.id, [AssociationSpec(
        association_category=spec.category, association_type_id=spec.type_id)])
    assert (made.from_object_id, made.to_object_id) == (deal.id, contact.id)
    page = v4.basic_api.get_page("contacts", contact.id, "companies")
    assert [r.to_object_id for r in page.results] == [company.id]
    v4.basic_api.archive("deals", deal.id, "contacts", contact.id)
    assert v4.basic_api.get_page("deals", deal.id, "contacts").results == []


def test_pipelines_and_their_stages(hubspot: HubSpot) -> None:
    pipelines = hubspot.crm.pipelines
    for object_type in ("deals", "tickets"):
        every = pipelines.pipelines_api.get_all(object_type).results
        assert every and all(p.stages for p in every)
        one = pipelines.pipelines_api.get_by_id(object_type, every[0].id)
        assert one.label == every[0].label
        stages = pipelines.pipeline_stages_api.get_all(object_type, one.id).results
        assert [s.id for s in stages] == [s.id for s in one.stages]
    refused(404, pipelines.pipelines_api.get_by_id, "deals", "no-such-pipeline")


def test_owners(hubspot: HubSpot) -> None:
    owners = hubspot.crm.owners.owners_api
    walked, after = [], None
    while True:
        page = owners.get_page(limit=3, after=after)
        walked += page.results
        if page.paging is None:
            break
        after = page.paging.next.after
    assert walked and all(o.email for o in walked)
    one = owners.get_by_id(int(walked[0].id))
    assert one.email == walked[0].email


def test_errors_are_hubspots(hubspot: HubSpot) -> None:
    """A 404 and a refused property raise ``ApiException`` with HubSpot's error body; the
    refused create made nothing."""
    body = refused(404, hubspot.crm.deals.basic_api.get_by_id, "999999999")
    assert (body["status"], body["category"]) == ("error", "OBJECT_NOT_FOUND")
    assert body["message"] and body["correlationId"]
    body = refused(400, hubspot.crm.contacts.basic_api.create, SimplePublicObjectInputForCreate(
        properties={"email": "x@hubspot-client.example", "favourite_colour": "teal"}))
    assert (body["status"], body["category"]) == ("error", "VALIDATION_ERROR")
    assert "favourite_colour" in json.dumps(body["errors"])
    assert not hubspot.crm.contacts.search_api.do_search(PublicObjectSearchRequest(
        filter_groups=[FilterGroup(filters=[Filter(
            property_name="email", operator="EQ", value="x@hubspot-client.example")])])).results


def test_contacts_merge(hubspot: HubSpot) -> None:
    basic = hubspot.crm.contacts.basic_api
    keep, merged = (basic.create(SimplePublicObjectInputForCreate(
        properties=new_properties(hubspot, "contacts", n))) for n in (40, 41))
    result = basic.merge(PublicMergeInput(primary_object_id=keep.id,
                                          object_id_to_merge=merged.id))
    assert result.properties["email"] == "client40@hubspot-client.example"
    refused(404, basic.get_by_id, merged.id)


def test_the_client_met_every_served_operation(run: workgym.sdk.Env) -> None:
    """Read from the episode's trajectory: a success for each operation the CRM serves."""
    met = {(step["method"], step["route"]) for step in run.trajectory()
           if step["app"] == "crm" and step["status"] < 400}
    assert not sorted(served("crm") - met)
