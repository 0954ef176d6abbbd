"""What the page templates (``templates/replica/pages/``) are rendered from: each object
type as its pages show it, derived from the rules and the API description.

* a record's name: its properties named ``*name`` (``firstname lastname``, ``dealname``),
  else its first text property (a ticket's ``subject``);
* the list's columns: the default properties that are not its name nor read-only, then
  its choice properties, at most :data:`COLUMNS`;
* the stage property (its page moves a record through its pipeline's stages): the one
  that references ``pipeline_stages``;
* the API operations its page writes perform: the operationIds of the description's
  ``PATCH``/``DELETE`` of one record and ``POST`` of a new one, and the record's path
  parameter (``contactId``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .source import ObjectType, Rules, Source, SourceError

COLUMNS = 6
# The object types whose records carry the notes and tasks of the others.
ACTIVITY = ("notes", "tasks")


@dataclass(frozen=True)
class Prop:
    name: str
    label: str


@dataclass(frozen=True)
class ObjectView:
    """An object type's pages, as the templates print them."""

    name: str
    label: str
    singular: str
    title: list[str]
    columns: list[str]
    props: list[Prop]
    stage_prop: str | None
    note_type: int | None
    task_type: int | None
    related: list[str]
    id_param: str  # the record's path parameter in the API (contactId)
    update_op: str  # the operationIds of its writes
    archive_op: str
    create_op: str


def _title(obj: ObjectType) -> list[str]:
    text = [n for n, p in obj.properties.items() if p.type == "string"]
    named = [n for n in text if n.endswith("name")]
    return named or text[:1]


def _default_type(rules: Rules, from_type: str, to_type: str) -> int | None:
    """The unlabeled association type from ``from_type`` to ``to_type``, if any."""
    return next((a.type_id for a in rules.association_types
                 if a.from_ == from_type and a.to == to_type and a.label is None), None)


def _referencing(obj: ObjectType, table: str) -> str | None:
    return next((n for n, p in obj.properties.items() if p.references == table), None)


def _operations(source: Source, name: str) -> tuple[str, dict[str, str]]:
    """The record's path parameter and the operationIds of the writes of ``name``'s records."""
    collection = f"/crm/v3/objects/{name}"
    found: dict[str, str] = {}
    param = ""
    for op in source.operations():
        path = op["path"]
        one = path.startswith(collection + "/{") and path.count("/") == collection.count("/") + 1
        if one and op["method"] in ("PATCH", "DELETE"):
            param = path.rsplit("/", 1)[1].strip("{}")
            found["update" if op["method"] == "PATCH" else "archive"] = op["operationId"]
        elif path == collection and op["method"] == "POST":
            found["create"] = op["operationId"]
    if set(found) != {"update", "archive", "create"}:
        raise SourceError(f"openapi.yaml: paths: {collection}: the pages need its create, "
                          f"update and archive operations (found {sorted(found)})")
    return param, found


def views(source: Source) -> list[ObjectView]:
    """Every object type of ``source`` as its pages show it, in the rules' order."""
    rules = source.rules
    linked = {(a.from_, a.to) for a in rules.association_types}
    out = []
    for name, obj in rules.objects.items():
        title = _title(obj)
        columns = [n for n in obj.default_properties
                   if n in obj.properties and n not in title
                   and not obj.properties[n].read_only]
        columns += [n for n, p in obj.properties.items()
                    if p.type == "enumeration" and n not in columns]
        param, operations = _operations(source, name)
        out.append(ObjectView(
            name=name, label=name.capitalize(), singular=obj.singular.capitalize(),
            title=title, columns=columns[:COLUMNS],
            props=[Prop(n, p.label or n) for n, p in obj.properties.items()],
            stage_prop=_referencing(obj, "pipeline_stages"),
            note_type=_default_type(rules, "notes", name),
            task_type=_default_type(rules, "tasks", name),
            related=[other for other in rules.objects
                     if other not in ACTIVITY and other != name and (name, other) in linked],
            id_param=param, update_op=operations["update"],
            archive_op=operations["archive"], create_op=operations["create"]))
    return out
