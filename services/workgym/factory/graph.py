"""The tool dependency graph: which operation's outputs feed which operation's inputs, and how
strongly, derived from an app's served OpenAPI document (no network, no LLM).

Nodes are the document's operations (operationId, method, path). An edge ``A -> B`` says a field
of A's 2xx answer can be passed as an input of B (a path or query parameter, or a field of B's
request body), with a weight in (0, 1]:

* **Resources.** A path parameter names the resource it identifies: by its own name
  (``ticket_id``, ``{customer}``, ``contactId``, ``issueKey`` -> ticket, customer, contact,
  issue) or, when it is called just ``id``/``key``, by the segment before it (``/issues/{id}``).
  A parameter with an ``enum`` is a choice, not an identifier, and so is a generic record's type
  (``objectType``); ``objectId``, ``toObjectId`` take any record. The *known resources* are those
  identified so. An operation's own resource is that of the longest collection path its path
  starts with (``/tickets/{ticket_id}/tags`` -> ticket), else the last word of its operationId
  naming a collection (``search_issues`` -> issue), else its last literal segment; an object in an
  answer belongs to the resource of the property it sits under (``tickets[]`` -> ticket,
  ``audit`` -> audit), the operation's own under the top level or a container (``data``,
  ``results``...). An answer the document leaves untyped (the tracker's) yields its
  operation's own resource's ids: lists, searches and creates are the sources of ids. A list
  of free-form objects in an envelope (``results: [{...}]``: a search over every type) holds
  records of any resource (:data:`ANY`).
* **References.** An input or output *refers to* resource R when its snake-cased name, less a
  ``_id``/``_ids``/``_key`` suffix, is R or ends with ``_R`` (``customer``, ``organization_id``,
  ``hubspot_owner_id`` -> owner, ``default_payment_method`` -> payment method), or when the
  app's rules say so (below). An ``id``/``ids`` query or body input takes its operation's own
  resource's ids (``inputs[].id`` of a batch read), unless it sits under another key.
* **Property bags.** Where the document has only a bag of strings (HubSpot's ``properties``),
  a compiled app's rules file declares what is in it (:func:`declared_bags`): each property is
  a field of the records' answers and, unless read-only, an input of the bodies carrying the
  bag, referring to the table its ``references`` names (``dealstage`` -> pipeline stages).

The weights, highest kept when two rules join the same field and input:

==========  =======  ==========================================================================
rule        weight   from -> to
==========  =======  ==========================================================================
identity    1.0      the ``id`` of an R -> the path parameter identifying R (item operations)
id list     0.9      the ``id`` of an R -> an ``ids`` or ``id`` query or body input of an operation
                     on R (show/merge many, batch reads: ``inputs[].id``)
reference   0.8      the ``id`` of an R, or a field referring to R -> an input referring to R
                     (or identifying it): ``customer``, ``requester_id``... as foreign keys
any record  0.5      the ``id`` of any R -> a path parameter of a generic record (``objectId``);
                     the ``id`` of a free-form record of a list envelope (a search's
                     ``results[]`` of tickets, users...) -> any identifying path parameter
same name   0.3-0.8  a field named exactly like an input: 0.3, +0.2 if the name refers to a
                     resource or ends in id/key, +0.2 if compound (``assignee_id`` is specific,
                     ``email`` less so), +0.1 when both types are declared and equal, -0.2
                     when they differ
==========  =======  ==========================================================================

One edge is kept per (source, target, input): the heaviest, then the shallowest field. Edges of
weight >= :data:`STRONG` (0.8) are the strong ones (drawn in each app's GRAPH.md).
Paging, sorting and projection inputs (``page``, ``limit``, ``expand``...) are nobody's inputs;
an operation does not feed itself. Everything is sorted: the same document gives the same graph.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Any

STRONG = 0.8
IDENTITY, ID_LIST, REFERENCE, ANY_RECORD = 1.0, 0.9, 0.8, 0.5
METHODS = ("get", "post", "put", "patch", "delete")
# Inputs that page, sort, search or shape an answer: nobody's output feeds them.
PAGING = frozenset({
    "page", "per_page", "page[size]", "page[after]", "page[before]", "limit", "offset", "after",
    "before", "cursor", "starting_after", "ending_before", "startat", "maxresults",
    "nextpagetoken", "sort", "sort_by", "sort_order", "orderby", "include", "expand", "fields",
    "properties", "propertieswithhistory", "associations", "q", "query", "idproperty"})
# Properties whose objects belong to the resource around them (list and search envelopes).
CONTAINERS = frozenset({"data", "results", "items", "values", "records", "result", "body",
                        "inputs"})
GENERIC_RECORDS = frozenset({"object", "record", "resource", "item", "entity"})
MAX_DEPTH = 5
# A property bag's declared properties, by resource: name -> (the resource or table it refers
# to, or None; whether a request may set it).
Bags = Mapping[str, Mapping[str, tuple[str | None, bool]]]
MIN_SAME_NAME = 0.5  # below: a plain name many resources carry (``amount``) feeds nothing
ANY = "*"  # the resource of a free-form record: any


@dataclass(frozen=True, order=True)
class Operation:
    """A node: one operation of the document."""

    operation_id: str
    method: str  # upper case
    path: str
    resource: str  # its own resource (see the module's docstring)


@dataclass(frozen=True, order=True)
class Edge:
    """``source``'s answer field ``field`` can be passed as ``target``'s input ``parameter``
    (``path:ticket_id``, ``query:customer``, ``body:ticket.requester_id``)."""

    source: str  # operationId
    target: str  # operationId
    field: str  # where in the answer: "tickets[].id"
    parameter: str  # "<in>:<name or body path>"
    weight: float
    rule: str  # identity, id list, reference, any record, same name
    record: str  # the resource of the answer's object holding the field

    @property
    def strong(self) -> bool:
        return self.weight >= STRONG


@dataclass(frozen=True)
class Graph:
    """Operations and the edges between them, sorted (edges by source, target, then field)."""

    app: str
    nodes: tuple[Operation, ...]
    edges: tuple[Edge, ...]

    def node(self, operation_id: str) -> Operation:
        return self._by_id[operation_id]

    @cached_property
    def _by_id(self) -> dict[str, Operation]:
        return {node.operation_id: node for node in self.nodes}

    def feeds(self, operation_id: str, min_weight: float = 0.0) -> tuple[Edge, ...]:
        """The edges out of an operation: what its answer can be passed to."""
        self.node(operation_id)  # a KeyError for an unknown operation
        return tuple(e for e in self.edges
                     if e.source == operation_id and e.weight >= min_weight)

    def fed_by(self, operation_id: str, min_weight: float = 0.0) -> tuple[Edge, ...]:
        """The edges into an operation: whose answers give its inputs."""
        self.node(operation_id)
        return tuple(e for e in self.edges
                     if e.target == operation_id and e.weight >= min_weight)

    def strongest(self, min_weight: float = 0.0) -> dict[tuple[str, str], Edge]:
        """One edge per (source, target): the heaviest (the first of its sorted ties)."""
        best: dict[tuple[str, str], Edge] = {}
        for edge in self.edges:
            key = (edge.source, edge.target)
            if edge.weight >= min_weight and (key not in best or edge.weight > best[key].weight):
                best[key] = edge
        return best

    def entries(self) -> tuple[str, ...]:
        """Operations callable cold (no path parameter): lists, searches, creates."""
        return tuple(n.operation_id for n in self.nodes if "{" not in n.path)

    def walks(self, max_len: int, min_weight: float = STRONG,
              start: Iterable[str] | None = None) -> Iterator[tuple[Edge, ...]]:
        """Every simple walk of 1 to ``max_len - 1`` steps (2 to ``max_len`` operations) from
        ``start`` (default: :meth:`entries`) along edges of at least ``min_weight``, each step
        the heaviest edge between its two operations; in a fixed order (depth first, targets
        sorted)."""
        out: dict[str, list[Edge]] = {}
        for edge in self.strongest(min_weight).values():
            out.setdefault(edge.source, []).append(edge)

        def extend(walk: tuple[Edge, ...], seen: frozenset[str]) -> Iterator[tuple[Edge, ...]]:
            for edge in out.get(walk[-1].target, ()):
                if edge.target not in seen and len(walk) + 1 < max_len:
                    longer = (*walk, edge)
                    yield longer
                    yield from extend(longer, seen | {edge.target})

        for first in (self.entries() if start is None else tuple(start)):
            for edge in out.get(first, ()):
                yield (edge,)
                yield from extend((edge,), frozenset({first, edge.target}))

    def counts(self) -> dict[str, int]:
        return {"nodes": len(self.nodes), "edges": len(self.edges),
                "strong": sum(e.strong for e in self.edges)}

    def to_json(self, min_weight: float = 0.0) -> dict[str, Any]:
        return {
            "app": self.app,
            "strong": STRONG,
            "nodes": [{"operation_id": n.operation_id, "method": n.method, "path": n.path,
                       "resource": n.resource} for n in self.nodes],
            "edges": [{"from": e.source, "to": e.target, "field": e.field,
                       "parameter": e.parameter, "weight": e.weight, "rule": e.rule,
                       "record": e.record}
                      for e in self.edges if e.weight >= min_weight],
        }


# --- names -----------------------------------------------------------------------------------

def snake(name: str) -> str:
    """``contactId`` -> ``contact_id``; ``page[size]`` and ``hs_pipeline`` as they are."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if re.search(r"(ss|us|sh|ch|x)es$", word):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us")):
        return word[:-1]
    return word


def refers_to(name: str, resources: frozenset[str]) -> str | None:
    """The known resource a field or input name refers to (see the module's docstring)."""
    stem = re.sub(r"_(ids?|key)$", "", snake(name))
    words = stem.split("_")
    for i in range(len(words)):
        candidate = "_".join(words[i:])
        if candidate in resources:
            return candidate
    return None


# --- the document ----------------------------------------------------------------------------

@dataclass(frozen=True)
class _Field:
    path: str  # "tickets[].requester_id"
    name: str
    type: str | None
    resource: str  # the resource of the object it belongs to
    refers: str | None = None  # the resource it refers to, when a bag's declaration says


@dataclass(frozen=True)
class _Input:
    parameter: str  # "path:ticket_id"
    name: str
    type: str | None
    identifies: str | None  # a path parameter's resource
    refers: str | None = None  # the resource it refers to, when a bag's declaration says


class _Document:
    def __init__(self, document: Mapping[str, Any], bags: Bags) -> None:
        self.bags = bags
        self.schemas: Mapping[str, Any] = document.get("components", {}).get("schemas", {})
        self.operations = sorted(
            (op["operationId"], method, path, op)
            for path, item in document.get("paths", {}).items()
            for method, op in item.items() if method in METHODS and "operationId" in op)
        self.plurals: dict[str, str] = {}  # a collection's last segment -> its resource

    def resource_of(self, key: str) -> str:
        """The resource of the objects under a property: ``people`` -> person."""
        return self.plurals.get(snake(key), singular(snake(key)))

    def resolve(self, schema: Mapping[str, Any], seen: frozenset[str]) -> tuple[
            Mapping[str, Any], frozenset[str]]:
        while "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            if name in seen:
                return {}, seen
            schema, seen = self.schemas.get(name, {}), seen | {name}
        return schema, seen

    def scalar_type(self, schema: Mapping[str, Any]) -> str | None:
        schema, _ = self.resolve(schema, frozenset())
        kinds = {self.scalar_type(alt) for alt in schema.get("anyOf", schema.get("oneOf", ()))}
        kinds.discard(None)
        if len(kinds) == 1:
            return kinds.pop()
        kind = schema.get("type")
        return str(kind) if kind in ("string", "integer", "number", "boolean") else None

    def scalars(self, schema: Mapping[str, Any]) -> bool:
        """Whether ``schema`` takes scalars only (one type, or a union of them and null)."""
        schema, _ = self.resolve(schema, frozenset())
        union = schema.get("anyOf", schema.get("oneOf"))
        if union is not None:
            return all(self.resolve(alt, frozenset())[0].get("type") == "null"
                       or self.scalar_type(alt) is not None for alt in union)
        return self.scalar_type(schema) is not None

    def fields(self, schema: Mapping[str, Any], where: str, resource: str,
               seen: frozenset[str] = frozenset(), depth: int = 0) -> Iterator[_Field]:
        """Every scalar field of an answer, with the resource of the object holding it."""
        schema, seen = self.resolve(schema, seen)
        if depth > MAX_DEPTH or not schema:
            return
        for part in (*schema.get("anyOf", ()), *schema.get("oneOf", ()), *schema.get("allOf", ())):
            yield from self.fields(part, where, resource, seen, depth + 1)
        if "items" in schema:
            if where.rsplit(".", 1)[-1] in CONTAINERS and self.free_form(schema["items"]):
                yield _Field(f"{where}[].id", "id", None, ANY)
            yield from self.fields(schema["items"], f"{where}[]", resource, seen, depth + 1)
        for name, prop in sorted(schema.get("properties", {}).items()):
            path = f"{where}.{name}" if where else name
            kind = self.scalar_type(prop)
            if kind is not None:
                yield _Field(path, name, kind, resource)
            for key, (refers, _) in self.bagged(prop, resource):
                yield _Field(f"{path}.{key}", key, "string", resource, refers)
            inner = resource if name in CONTAINERS else self.resource_of(name)
            yield from self.fields(prop, path, inner, seen, depth + 1)

    def free_form(self, schema: Mapping[str, Any]) -> bool:
        """Whether ``schema`` is an object the document says nothing of (any keys)."""
        schema, _ = self.resolve(schema, frozenset())
        return schema.get("type") == "object" and not schema.get("properties") \
            and schema.get("additionalProperties", True) is True

    def body_inputs(self, schema: Mapping[str, Any], where: str, resource: str,
                    seen: frozenset[str] = frozenset(), depth: int = 0) -> Iterator[_Input]:
        schema, seen = self.resolve(schema, seen)
        if depth > 2 or not schema:
            return
        for part in (*schema.get("anyOf", ()), *schema.get("allOf", ())):
            yield from self.body_inputs(part, where, resource, seen, depth + 1)
        if "items" in schema:
            yield from self.body_inputs(schema["items"], f"{where}[]", resource, seen, depth)
        for name, prop in sorted(schema.get("properties", {}).items()):
            path = f"{where}.{name}" if where else name
            yield _Input(f"body:{path}", name, self.scalar_type(prop) or _list_of(prop), None)
            for key, (refers, writable) in self.bagged(prop, resource):
                if writable:
                    yield _Input(f"body:{path}.{key}", key, "string", None, refers)
            yield from self.body_inputs(prop, path, resource, seen, depth + 1)

    def bagged(self, schema: Mapping[str, Any], resource: str) -> list[
            tuple[str, tuple[str | None, bool]]]:
        """The declared properties (name, (the resource it refers to, writable)) of a property
        bag (an object of scalar values only: HubSpot's ``properties``, served as strings,
        numbers, booleans or null) of ``resource``'s records."""
        schema, _ = self.resolve(schema, frozenset())
        values = schema.get("additionalProperties")
        if schema.get("properties") or not isinstance(values, Mapping) \
                or not self.scalars(values):
            return []
        return sorted(self.bags.get(resource, {}).items())


def _list_of(schema: Mapping[str, Any]) -> str | None:
    return "array" if schema.get("type") == "array" else None


def _answer(op: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The 2xx answer's JSON schema ({} when untyped), None when it has no body."""
    for status, response in sorted(op.get("responses", {}).items()):
        if status.startswith("2"):
            content = response.get("content", {})
            if "application/json" in content:
                schema: Mapping[str, Any] = content["application/json"].get("schema", {})
                return schema
    return None


def _identified(path: str, name: str, schema: Mapping[str, Any]) -> str | None:
    """The resource a path parameter identifies (None for a choice)."""
    if "enum" in schema:
        return None
    stem = re.sub(r"_(id|key|id_or_key)$", "", snake(name))
    words = stem.split("_")
    if words[-1] in GENERIC_RECORDS:  # objectId, toObjectId: a record of any type
        return words[-1]
    if words[-1] == "type" and len(words) > 1 and words[-2] in GENERIC_RECORDS:
        return None  # objectType, toObjectType: which type, a choice
    if stem not in ("id", "key"):
        return singular(stem)
    before = path.split("{" + name + "}")[0].rstrip("/").rsplit("/", 1)[-1]
    return singular(snake(before)) if before and "{" not in before else None


def _named(table: str | None, resources: frozenset[str]) -> str | None:
    """The resource a table name is: ``owners`` -> owner; ``pipeline_stages`` -> stage
    unless ``pipeline_stage`` is a known resource (its records sit under ``stages``)."""
    if table is None:
        return None
    found = singular(snake(table))
    return found if found in resources else found.rsplit("_", 1)[-1]


def _own_resource(operation_id: str, path: str, collections: Mapping[str, str],
                  plurals: Mapping[str, str]) -> str:
    """The resource of the longest collection path the operation's path starts with, else the
    last word of its operationId naming a collection (``search_issues``), else its path's last
    literal segment's."""
    parts = path.rstrip("/").split("/")
    for end in range(len(parts), 0, -1):
        if (found := collections.get("/".join(parts[:end]))) is not None:
            return found
    known = frozenset(collections.values())
    for word in reversed(snake(operation_id).split("_")):
        if word in plurals or singular(word) in known:
            return plurals.get(word, singular(word))
    literal = [s for s in parts if s and "{" not in s]
    return singular(snake(literal[-1])) if literal else ""


def _collections(doc: _Document) -> dict[str, str]:
    """Collection path (the literal part before an identifying path parameter) -> resource."""
    found: dict[str, str] = {}
    for _, _, path, op in doc.operations:
        for param in op.get("parameters", ()):
            if param.get("in") != "path":
                continue
            resource = _identified(path, param["name"], param.get("schema", {}))
            if resource is not None:
                found.setdefault(path.split("/{" + param["name"] + "}")[0], resource)
    return found


def derive(document: Mapping[str, Any], app: str = "", bags: Bags | None = None) -> Graph:
    """The graph of an OpenAPI document (a dict, as ``FastAPI.openapi()`` or a YAML file
    gives it). ``bags``: what the document leaves a bag of strings (HubSpot's ``properties``),
    as the app's rules declare it (:data:`Bags`)."""
    doc = _Document(document, {})
    collections = _collections(doc)
    doc.plurals = {snake(path.rsplit("/", 1)[-1]): resource
                   for path, resource in sorted(collections.items()) if "{" not in path[-1:]}
    resources = frozenset(collections.values()) - GENERIC_RECORDS
    doc.bags = {resource: {name: (_named(refers, resources), writable)
                           for name, (refers, writable) in declared.items()}
                for resource, declared in (bags or {}).items()}
    nodes = [Operation(op_id, method.upper(), path,
                       _own_resource(op_id, path, collections, doc.plurals))
             for op_id, method, path, _ in doc.operations]
    outputs = {node.operation_id: _outputs(doc, node, op)
               for node, (_, _, _, op) in zip(nodes, doc.operations, strict=True)}
    by_key: dict[str, list[tuple[Operation, _Input]]] = {}  # by name, and "@R": refers to R
    for node, (_, _, path, op) in zip(nodes, doc.operations, strict=True):
        for given in _inputs(doc, path, op, node.resource):
            for key in sorted(_input_keys(given, node, resources)):
                by_key.setdefault(key, []).append((node, given))
    specific = _specific_names(outputs)
    best: dict[tuple[str, str, str], Edge] = {}
    for source in nodes:
        for out in outputs[source.operation_id]:
            for key in _output_keys(out, resources):
                for target, given in by_key.get(key, ()):
                    rated = None if target is source else _rate(out, given, target, resources,
                                                                 specific)
                    if rated is None:
                        continue
                    edge = Edge(source.operation_id, target.operation_id, out.path,
                                given.parameter, *rated, out.resource)
                    slot = (edge.source, edge.target, edge.parameter)
                    if slot not in best or _better(edge, best[slot]):
                        best[slot] = edge
    return Graph(app, tuple(sorted(nodes)), tuple(best[k] for k in sorted(best)))


def _outputs(doc: _Document, node: Operation, op: Mapping[str, Any]) -> list[_Field]:
    answer = _answer(op)
    if answer is not None and not doc.resolve(answer, frozenset())[0]:
        return [_Field("id", "id", None, node.resource)]  # untyped: its own resource's ids
    return list(doc.fields(answer or {}, "", node.resource))


def _inputs(doc: _Document, path: str, op: Mapping[str, Any], resource: str) -> list[_Input]:
    """Its path and query parameters and body fields, but paging's."""
    found = [_Input(f"{p['in']}:{p['name']}", p["name"], doc.scalar_type(p.get("schema", {})),
                    _identified(path, p["name"], p.get("schema", {}))
                    if p["in"] == "path" else None)
             for p in op.get("parameters", ()) if p.get("in") in ("path", "query")]
    body = op.get("requestBody", {}).get("content", {})
    for content in sorted(body):
        found += doc.body_inputs(body[content].get("schema", {}), "", resource)
    return [replace(given, identifies=resource) if _takes_own_ids(given, doc, resource)
            else given for given in found if snake(given.name) not in PAGING]


def _takes_own_ids(given: _Input, doc: _Document, resource: str) -> bool:
    """Whether an ``id``/``ids`` query or body input takes the operation's own resource's ids:
    at the top, in a container (``inputs[].id``) or under a key naming the resource
    (``user.id``); not under another key (``associations[].to.id``)."""
    if given.identifies is not None or snake(given.name) not in ("id", "ids"):
        return False
    where = given.parameter.split(":", 1)[1].replace("[]", "").split(".")[:-1]
    return not where or where[-1] in CONTAINERS or doc.resource_of(where[-1]) == resource


def _input_keys(given: _Input, node: Operation, resources: frozenset[str]) -> set[str]:
    """What an output must be to be rated against this input: its name, "@R" for the
    resource R it takes, "@*" for any record."""
    keys = {snake(given.name)}
    if (wanted := given.identifies or given.refers or refers_to(given.name, resources)) \
            is not None:
        keys.add(f"@{wanted}")
    if given.identifies in GENERIC_RECORDS:
        keys.add("@*")
    return keys


def _output_keys(out: _Field, resources: frozenset[str]) -> list[str]:
    if out.resource == ANY:
        return sorted(f"@{r}" for r in resources)
    if out.name == "id":
        return [f"@{out.resource}", "@*"]
    referred = out.refers or refers_to(out.name, resources)
    return [snake(out.name)] + ([f"@{referred}"] if referred else [])


def _better(edge: Edge, than: Edge) -> bool:
    """The edge kept for one (source, target, input): the heaviest, then the shallowest
    field, then the first by name."""
    return ((-edge.weight, edge.field.count(".") + edge.field.count("[]"), edge.field)
            < (-than.weight, than.field.count(".") + than.field.count("[]"), than.field))


def _specific_names(outputs: Mapping[str, list[_Field]]) -> frozenset[str]:
    """Field names carried by the objects of one resource only (``email`` of a person; not
    ``currency``, which a charge, an invoice and a price all have)."""
    holders: dict[str, set[str]] = {}
    for fields in outputs.values():
        for out in fields:
            holders.setdefault(snake(out.name), set()).add(out.resource)
    return frozenset(name for name, found in holders.items() if len(found) == 1)


def _rate(out: _Field, given: _Input, target: Operation, resources: frozenset[str],
          specific: frozenset[str]) -> tuple[float, str] | None:
    """(weight, rule) of passing ``out`` as ``given``, or None (the table of the docstring)."""
    wanted = given.identifies or given.refers or refers_to(given.name, resources)
    if out.resource == ANY:
        return (ANY_RECORD, "any record") if given.identifies is not None \
            and given.parameter.startswith("path:") else None
    if out.name == "id":
        if given.identifies == out.resource:
            return (IDENTITY, "identity") if given.parameter.startswith("path:") \
                else (ID_LIST, "id list")
        if wanted == out.resource and out.resource:
            return REFERENCE, "reference"
        if given.identifies in GENERIC_RECORDS and out.resource in resources:
            return ANY_RECORD, "any record"
        return None
    referred = out.refers or refers_to(out.name, resources)
    if referred is not None and referred == wanted:
        return REFERENCE, "reference"
    name = snake(out.name)
    if name != snake(given.name):
        return None
    tenths = 3  # in tenths: exact sums
    tenths += 2 if referred or re.search(r"_(ids?|key)$", name) else 0
    tenths += 2 if "_" in name or name in specific else 0
    if out.type and given.type:
        tenths += 1 if out.type == given.type else -2
    return (tenths / 10, "same name") if tenths / 10 >= MIN_SAME_NAME else None


@cache
def graph(app: str) -> Graph:
    """The graph of a catalogued app, from its served OpenAPI document (and, for a compiled
    app, its object types' properties: :func:`declared_bags`)."""
    import replicas
    from replicas import catalog
    from replicas.runtime.app import create_replica_app
    from workgym_core.settings import Settings

    document = create_replica_app(catalog.spec(app), Settings()).openapi()
    return derive(document, app, declared_bags(Path(replicas.__file__).parent / app / "source"))


def declared_bags(source: Path) -> dict[str, dict[str, tuple[str | None, bool]]]:
    """A compiled app's object types' properties, as its rules file declares them (what its
    OpenAPI document leaves a bag): :data:`Bags`. Nothing for a hand-written app (no
    ``source/openapi.yaml``)."""
    from .source import OPENAPI, Source

    if not (source / OPENAPI).is_file():
        return {}
    objects = Source.load(source).rules.objects
    return {singular(snake(name)): {prop: (spec.references, not spec.read_only)
                                    for prop, spec in obj.properties.items()}
            for name, obj in sorted(objects.items())}


def dumps(found: Graph, min_weight: float = 0.0) -> str:
    return json.dumps(found.to_json(min_weight), indent=1, sort_keys=True) + "\n"
