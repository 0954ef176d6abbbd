"""The tool dependency graph: the weighting rule on a small document, the apps' graphs, their
committed GRAPH.md, and ``workgym factory graph``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from replicas import catalog
from workgym.cli import main
from workgym.factory import drawing
from workgym.factory.graph import STRONG, Edge, declared_bags, derive, graph

ROOT = Path(__file__).resolve().parents[2]


def _op(op_id: str, answer: dict[str, Any] | None = None, params: tuple[Any, ...] = (),
        body: dict[str, Any] | None = None) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": op_id,
        "parameters": [{"name": name, "in": where, "schema": schema}
                       for name, where, schema in params],
        "responses": {"200": {"content": {"application/json": {"schema": answer}}}
                      if answer is not None else {"description": "no content"}}}
    if body is not None:
        op["requestBody"] = {"content": {"application/json": {"schema": body}}}
    return op


INT, STR = {"type": "integer"}, {"type": "string"}
DOCUMENT: dict[str, Any] = {
    "paths": {
        "/customers": {"get": _op("list_customers", {"$ref": "#/components/schemas/Page"},
                                  params=(("limit", "query", INT), ("email", "query", STR)))},
        "/customers/{customer_id}": {
            "get": _op("get_customer", {"$ref": "#/components/schemas/Customer"},
                       params=(("customer_id", "path", INT),))},
        "/orders": {"post": _op("create_order", {"$ref": "#/components/schemas/Order"}, body={
            "type": "object", "properties": {"order": {"type": "object", "properties": {
                "customer_id": INT, "assignee_id": STR, "note": STR}}}})},
        "/orders/show_many": {"get": _op("show_many_orders", {}, params=(("ids", "query", STR),))},
        "/orders/{order_id}": {"delete": _op("delete_order", None,
                                             params=(("order_id", "path", INT),))},
        "/orders/{kind}/summary": {"get": _op("summarize_orders", {}, params=(
            ("kind", "path", {"type": "string", "enum": ["open", "closed"]}),))},
        "/orders/batch/read": {"post": _op("read_orders", {}, body={
            "type": "object", "properties": {"inputs": {"type": "array", "items": {
                "type": "object", "properties": {"id": STR}}}}})},
        "/objects/{objectType}/{objectId}/labels": {"get": _op("list_labels", {}, params=(
            ("objectType", "path", STR), ("objectId", "path", STR)))},
    },
    "components": {"schemas": {
        "Page": {"type": "object", "properties": {
            "data": {"type": "array", "items": {"$ref": "#/components/schemas/Customer"}},
            "has_more": {"type": "boolean"}}},
        "Customer": {"type": "object", "properties": {
            "id": INT, "email": STR, "note": STR, "assignee_id": INT}},
        "Order": {"type": "object", "properties": {
            "id": INT, "customer_id": INT, "note": STR}},
    }},
}


def _edges(found: Any, source: str, target: str) -> dict[str, Edge]:
    return {e.parameter: e for e in found.edges if (e.source, e.target) == (source, target)}


def test_an_id_feeds_its_resource_s_item_operations_and_references_to_it() -> None:
    found = derive(DOCUMENT, "shop")
    listed = _edges(found, "list_customers", "get_customer")
    assert listed["path:customer_id"] == Edge("list_customers", "get_customer", "data[].id",
                                             "path:customer_id", 1.0, "identity", "customer")
    assert _edges(found, "list_customers", "create_order")["body:order.customer_id"].weight \
        == 0.8  # a customer's id -> an input referring to a customer
    assert _edges(found, "create_order", "get_customer")["path:customer_id"].rule == "reference"
    assert _edges(found, "create_order", "delete_order")["path:order_id"].weight == 1.0
    # an untyped answer still yields its own resource's ids; `ids` takes a list of them
    assert _edges(found, "show_many_orders", "delete_order")["path:order_id"].weight == 1.0
    assert _edges(found, "create_order", "show_many_orders")["query:ids"].weight == 0.9


def test_a_same_name_edge_weighs_how_specific_the_name_is_and_whether_types_match() -> None:
    found = derive(DOCUMENT, "shop")
    to_create = _edges(found, "get_customer", "create_order")
    # compound and ending in _id (+0.4), but an integer passed as a string (-0.2)
    assert to_create["body:order.assignee_id"].weight == 0.5
    # `note`: one word, carried by two resources -> below the floor, no edge
    assert "body:order.note" not in to_create
    # `email`: one word carried by customers only, same type
    assert _edges(found, "get_customer", "list_customers")["query:email"].weight == 0.6


def test_a_batch_takes_its_resource_s_ids_and_a_generic_record_anyone_s() -> None:
    found = derive(DOCUMENT, "shop")
    assert _edges(found, "create_order", "read_orders")["body:inputs[].id"].rule == "id list"
    assert "body:inputs[].id" not in _edges(found, "get_customer", "read_orders")
    assert {e.parameter: e.weight for e in found.fed_by("list_labels")} == {
        "path:objectId": 0.5}  # any record's id; objectType is a choice
    assert {e.source for e in found.fed_by("list_labels")} == {  # untyped answers: own ids
        "create_order", "get_customer", "list_customers", "read_orders", "show_many_orders",
        "summarize_orders"}


BAG = {"type": "object", "additionalProperties": STR}  # HubSpot's `properties`
BAGGED: dict[str, Any] = {
    "paths": {
        "/owners": {"get": _op("list_owners", {"type": "object", "properties": {
            "results": {"type": "array", "items": {"type": "object", "properties": {
                "id": STR}}}}})},
        "/owners/{ownerId}": {"get": _op("get_owner", {}, params=(("ownerId", "path", STR),))},
        "/deals": {"post": _op("create_deal", {"$ref": "#/components/schemas/Deal"}, body={
            "type": "object", "properties": {"properties": BAG}})},
        "/deals/{dealId}": {"get": _op("get_deal", {"$ref": "#/components/schemas/Deal"},
                                       params=(("dealId", "path", STR),))},
    },
    "components": {"schemas": {"Deal": {"type": "object", "properties": {
        "id": STR, "properties": BAG}}}},
}


def test_a_property_bag_s_declared_properties_are_fields_and_inputs() -> None:
    bags = {"deal": {"hubspot_owner_id": ("owners", True), "createdate": (None, False)}}
    found = derive(BAGGED, "crm", bags)
    assert _edges(found, "list_owners", "create_deal")["body:properties.hubspot_owner_id"] \
        == Edge("list_owners", "create_deal", "results[].id", "body:properties.hubspot_owner_id",
                0.8, "reference", "owner")
    assert _edges(found, "get_deal", "get_owner")["path:ownerId"].field \
        == "properties.hubspot_owner_id"
    # a read-only property is answered, never sent
    assert not [e for e in found.edges if e.parameter.endswith("createdate")]
    assert not _edges(derive(BAGGED, "crm"), "list_owners", "create_deal")


def test_the_crm_s_properties_come_from_its_rules_file() -> None:
    source = ROOT / "replicas" / "crm" / "source"
    bags = declared_bags(source)
    assert bags["deal"]["hubspot_owner_id"] == ("owners", True)
    assert declared_bags(ROOT / "replicas" / "helpdesk" / "source") == {}  # hand-written
    document = yaml.safe_load((source / "openapi.yaml").read_text())
    fed = {e.source for e in derive(document, "crm", bags).fed_by("deals_update")
           if e.parameter == "body:properties.hubspot_owner_id" and e.record == "owner"}
    assert fed and all(op.startswith("owners_") for op in fed)


def test_paging_inputs_choices_and_itself_are_fed_by_nothing() -> None:
    found = derive(DOCUMENT, "shop")
    parameters = {(e.target, e.parameter) for e in found.edges}
    assert ("list_customers", "query:limit") not in parameters
    assert not found.fed_by("summarize_orders")  # {kind} is an enum, not an identifier
    assert all(e.source != e.target for e in found.edges)


def test_the_same_document_gives_the_same_graph_in_any_order() -> None:
    shuffled = {**DOCUMENT, "paths": dict(reversed(list(DOCUMENT["paths"].items())))}
    assert drawing.mermaid(derive(DOCUMENT, "shop")) == drawing.mermaid(derive(shuffled, "shop"))
    assert derive(DOCUMENT, "shop").to_json() == derive(shuffled, "shop").to_json()


def test_feeds_fed_by_and_walks_follow_the_edges() -> None:
    found = derive(DOCUMENT, "shop")
    assert {e.target for e in found.feeds("list_customers")} == {
        "create_order", "get_customer", "list_labels"}
    assert found.fed_by("get_customer", min_weight=1.0) == (
        _edges(found, "list_customers", "get_customer")["path:customer_id"],)
    walks = list(found.walks(3))
    assert (_edges(found, "list_customers", "create_order")["body:order.customer_id"],
            _edges(found, "create_order", "delete_order")["path:order_id"]) in walks
    for walk in walks:
        ops = [walk[0].source, *(e.target for e in walk)]
        assert len(ops) == len(set(ops)) <= 3 and "{" not in found.node(ops[0]).path
        assert all(e.weight >= STRONG for e in walk)
        assert all(a.target == b.source for a, b in zip(walk, walk[1:], strict=False))
    with pytest.raises(KeyError):
        found.feeds("no_such_operation")


@pytest.mark.parametrize("app", sorted(catalog.app_names()))
def test_each_app_s_graph_md_is_current(
        app: str, record_property: Callable[[str, object], None]) -> None:
    started = time.perf_counter()
    found = graph(app)
    took = time.perf_counter() - started
    assert found.edges and all(e.weight > 0 for e in found.edges)
    path = drawing.markdown_path(app)
    assert path.is_file() and path.read_text() == drawing.markdown(found), (
        f"replicas/{app}/GRAPH.md is not current: run `make graphs`")
    assert "[`GRAPH.md`](GRAPH.md)" in (path.parent / "README.md").read_text()
    counts = found.counts()
    record_property("figure", f"{app}: graph of {counts['nodes']} operations, "
                    f"{counts['edges']} edges, {counts['strong']} strong (derived with its "
                    f"OpenAPI document in {took:.2f} s)")


def test_the_apps_graphs_have_their_known_feeds() -> None:
    notes = graph("notes")
    assert _edges(notes, "list_people", "get_person")["path:person_id"].weight == 1.0
    assert _edges(notes, "list_people", "create_note")["body:person_id"].rule == "reference"
    checkout = graph("checkout")
    assert _edges(checkout, "list_charges", "create_refund")["body:charge"].field == "data[].id"
    assert _edges(checkout, "retrieve_charge", "retrieve_customer")["path:customer"].strong
    helpdesk = graph("helpdesk")
    assert _edges(helpdesk, "list_tickets", "update_ticket")["path:ticket_id"].weight == 1.0
    tracker = graph("tracker")  # untyped answers: the ids of the operation's own resource
    assert _edges(tracker, "search_issues", "get_issue")["path:issue"].weight == 1.0


def test_the_command_prints_json_mermaid_and_dot(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["factory", "graph", "notes", "--min-weight", "1"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["edges"] and {e["weight"] for e in printed["edges"]} == {1.0}
    assert printed["edges"] == graph("notes").to_json(1.0)["edges"]
    assert main(["factory", "graph", "notes", "--format", "mermaid"]) == 0
    assert capsys.readouterr().out == drawing.mermaid(graph("notes"))
    assert main(["factory", "graph", "notes", "--format", "dot"]) == 0
    assert capsys.readouterr().out.startswith('digraph "notes" {')
    with pytest.raises(SystemExit):
        main(["factory", "graph", "no_such_app"])
    assert "invalid choice: 'no_such_app'" in capsys.readouterr().err


def test_a_search_s_free_form_results_feed_any_identifying_path_parameter() -> None:
    searching = {**DOCUMENT, "paths": {**DOCUMENT["paths"], "/search": {"get": _op(
        "search", {"type": "object", "properties": {"results": {"type": "array", "items": {
            "type": "object", "additionalProperties": True}}}})}}}
    found = derive(searching, "shop")
    assert _edges(found, "search", "get_customer")["path:customer_id"] == Edge(
        "search", "get_customer", "results[].id", "path:customer_id", 0.5, "any record", "*")
    assert _edges(found, "search", "delete_order")["path:order_id"].rule == "any record"
    assert not _edges(found, "search", "list_labels")  # a generic record's: not a known one
    assert not _edges(derive(DOCUMENT, "shop"), "list_customers", "delete_order")


def test_the_served_crm_s_bag_of_scalars_or_null_feeds_its_declared_properties() -> None:
    # served, a property's value is a string, a number, a boolean or null (not only a string)
    fed = {e.source for e in graph("crm").fed_by("deals_update")
           if e.parameter == "body:properties.hubspot_owner_id" and e.record == "owner"}
    assert fed and all(op.startswith("owners_") for op in fed)
