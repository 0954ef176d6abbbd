"""Zendesk's response shapes, as zenpy (PyPI ``zenpy==2.0.57``) describes its objects.

zenpy's API objects (``zenpy/lib/api_objects/__init__.py``, ``help_centre_objects.py``) are
generated from Zendesk's reference: each class's ``__init__`` names the object's attributes,
each commented with its ``Type``. They are read where the sdist is unpacked (never copied
here). A shape is named by zenpy's class, and wrapped as Zendesk wraps it:

- ``"Ticket"``: ``{"ticket": {...}}``, the key zenpy maps to the class (snake case);
- ``"Ticket[]"``: a list page ``{"tickets": [...]}`` paged by offset (``count``,
  ``next_page``, ``previous_page``), by cursor (``meta: {has_more, after_cursor,
  before_cursor}``, ``links: {next, prev}``) or as an incremental export, time-based
  (``count``, ``next_page``, ``end_time``, ``end_of_stream``) or cursor-based
  (``after_cursor``, ``after_url``, ``before_cursor``, ``before_url``, ``end_of_stream``);
  ``"Article[results]"``: the same under ``results``;
  ``"Identity[*]"``: the whole list, unpaged (``make_primary``, ``show_many``);
- ``"Search[]"``: search results, each checked against the class its ``result_type`` names;
- ``"Tags"`` ``{"tags": [str]}``; ``"Count"`` ``{"count": int}``;
- ``"Error"``: ``{"error": name, "description"}``, and for RecordInvalid ``details: {field:
  [{description, error}]}`` (ZD/api-reference/introduction/response-format/#errors...).

An object must carry every attribute its class defines (``null`` allowed, as Zendesk sends
for unset ones), each of its class's type when not ``null``; more are allowed."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path
from typing import Any

from tests.conformance.registry import pypi_sdist

PACKAGE = ("zenpy", "2.0.57")
FILES = ("zenpy/lib/api_objects/__init__.py", "zenpy/lib/api_objects/help_centre_objects.py")
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "boolean": (bool,), "array": (list,),
    "object": (dict,), "date": (str,), "timestamp": (str,)}
_TYPE = re.compile(r"# Type: (\w+)\n\s+self\.(\w+) = ")
# Attributes Zendesk documents as present only on some objects of a class.
CONDITIONAL = {
    # Ticket metric event types reference: only apply_sla events carry ``sla``, only
    # update_status events ``status``, only breach events ``deleted``
    # (developer.zendesk.com/documentation/ticketing/reference-guides/
    # ticket-metric-event-types-reference).
    "TicketMetricEvent": frozenset({"sla", "status", "deleted"}),
}
# Where zenpy's comment is wrong: Zendesk documents ``label_names`` as an array of strings
# (ZD/help_center/help-center-api/articles/#json-format).
TYPE_FIXES = {("Article", "label_names"): (list,)}
# Objects zenpy has no class for, described here from Zendesk's reference.
OURS: dict[str, dict[str, tuple[type, ...]]] = {
    # ZD/ticketing/ticket-management/schedules/#json-format (holidays)
    "Holiday": {"id": (int,), "name": (str,), "start_date": (str,), "end_date": (str,)},
}
ERRORS = frozenset({"RecordNotFound", "RecordInvalid", "InvalidValue", "UpdateConflict",
                    "Forbidden", "InvalidEndpoint", "InvalidPaginationParameter",
                    "Unauthorized"})

Members = dict[str, tuple[type, ...]]


@cache
def classes() -> dict[str, Members]:
    """zenpy's classes: name -> {attribute: the types its comment allows (() = any)}."""
    root: Path = pypi_sdist(*PACKAGE)
    found: dict[str, Members] = {}
    for name in FILES:
        source = (root / name).read_text()
        for node in ast.parse(source).body:
            if not isinstance(node, ast.ClassDef) or node.name in found:
                continue  # the Support API's class wins over the help center's namesake
            init = next((f for f in node.body
                         if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            if init is None:
                continue
            typed = dict((attr, kind) for kind, attr in
                         _TYPE.findall(ast.get_source_segment(source, init) or ""))
            found[node.name] = {
                arg.arg: TYPE_FIXES.get((node.name, arg.arg)) or _TYPES.get(
                    typed.get(arg.arg, ""), ())
                for arg in init.args.args if arg.arg not in ("self", "api")}
    return {**found, **OURS}


KEYS = {"MacroResult": "result"}  # Zendesk's key where it is not the class's name


def key_of(name: str) -> str:
    """The key zenpy maps to its class: ``SlaPolicy`` -> ``sla_policy``."""
    return KEYS.get(name) or re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def plural(key: str) -> str:
    if key.endswith("y") and key[-2:-1] not in "aeiou":
        return key[:-1] + "ies"
    return key + ("es" if key.endswith("s") else "s")


def check_object(name: str, obj: Any, where: str) -> list[str]:
    members = classes().get(name)
    if members is None:
        return [f"{where}: zenpy has no class {name}"]
    if not isinstance(obj, dict):
        return [f"{where}: a {name} is an object, not {type(obj).__name__}"]
    problems = []
    optional = CONDITIONAL.get(name, frozenset())
    for attr, types in sorted(members.items()):
        if attr not in obj:
            if attr not in optional:
                problems.append(f"{where}: {name} lacks {attr!r}")
        elif obj[attr] is not None and types and (
                not isinstance(obj[attr], types) or (bool in types) != isinstance(obj[attr], bool)):
            problems.append(f"{where}.{attr}: {type(obj[attr]).__name__}, zenpy's {name} "
                            f"says {types[0].__name__}")
    return problems


def _paged(body: dict[str, Any]) -> list[str]:
    if "meta" in body or "links" in body:
        meta, links = body.get("meta") or {}, body.get("links") or {}
        missing = [f"meta.{k}" for k in ("has_more", "after_cursor", "before_cursor")
                   if k not in meta] + [f"links.{k}" for k in ("next", "prev") if k not in links]
        if meta.get("has_more") is False and links.get("next") is not None:
            missing.append("links.next null on the last page")
        return [f"cursor page lacks {m}" for m in missing]
    if "end_time" in body:
        return [f"incremental page lacks {k}" for k in ("count", "next_page", "end_of_stream")
                if k not in body]
    if "after_cursor" in body:  # a cursor-based incremental export
        return [f"incremental cursor page lacks {k}" for k in (
            "after_url", "before_cursor", "before_url", "end_of_stream") if k not in body]
    return [f"offset page lacks {k}" for k in ("count", "next_page", "previous_page")
            if k not in body]


def check_error(body: Any) -> list[str]:
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        return [f"an error is {{'error': name, 'description'}}, not {str(body)[:120]}"]
    problems = [] if body["error"] in ERRORS else [f"unknown error name {body['error']!r}"]
    if not isinstance(body.get("description"), str):
        problems.append("an error lacks its description")
    if body["error"] == "RecordInvalid":
        details = body.get("details")
        if not isinstance(details, dict) or not details or not all(
                isinstance(entries, list) and entries and all(
                    isinstance(e, dict) and {"description", "error"} <= e.keys()
                    for e in entries) for entries in details.values()):
            problems.append(f"RecordInvalid details are {{field: [{{description, error}}]}}: "
                            f"{str(details)[:120]}")
    return problems


def validate(shape: str, body: Any) -> list[str]:
    """What ``body`` lacks to be Zendesk's ``shape`` (module docstring); [] when it is one."""
    if shape == "Error":
        return check_error(body)
    if not isinstance(body, dict):
        return [f"{shape}: the body is not an object: {str(body)[:120]}"]
    if shape == "Tags":
        tags = body.get("tags")
        return [] if isinstance(tags, list) and all(isinstance(t, str) for t in tags) else [
            "Tags: {'tags': [str]}"]
    if shape == "Count":
        return [] if isinstance(body.get("count"), int) else ["Count: {'count': int}"]
    listed = re.fullmatch(r"(\w+)\[(\w*|\*)\]", shape)
    if listed is None:
        key = key_of(shape)
        return check_object(shape, body.get(key), key) if key in body else [
            f"{shape}: no {key!r} in {sorted(body)}"]
    name, key = listed.group(1), listed.group(2).strip("*") or plural(key_of(listed.group(1)))
    key = "results" if name == "Search" else key
    items = body.get(key)
    if not isinstance(items, list):
        return [f"{shape}: no list {key!r} in {sorted(body)}"]
    problems = [] if listed.group(2) == "*" else _paged(body)
    for item in items:
        kind = name
        if name == "Search" and isinstance(item, dict):
            kind = "".join(p.title() for p in str(item.get("result_type", "")).split("_"))
        problems += [p for p in check_object(kind, item, f"{key}[]") if p not in problems]
    return problems
