"""What the replica templates render from: a :class:`~.source.Source` as plain values (the
tables in foreign-key order with each column's Python declaration, the pipelines' rows, the
API's operations), so the templates loop and print and decide nothing."""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass
from typing import Any

import yaml

from . import pages
from .source import OBJECT_ID_PROPERTY, Column, Draw, Property, Rules, Source

# The Python type each declared type is stored as (datetimes and dates: ISO text; JSON: text).
PYTHON = {"integer": "int", "string": "str", "number": "float", "datetime": "str",
          "date": "str", "enumeration": "str", "bool": "bool", "json": "str"}
LINE = 100


@dataclass(frozen=True)
class ColumnView:
    name: str
    python: str  # the annotation's type, without None
    nullable: bool
    references: str | None
    unique: bool
    sensitive: bool
    declaration: str  # the model's line(s) for it, indented by 4

    @property
    def annotation(self) -> str:
        return f"{self.python} | None" if self.nullable else self.python


@dataclass(frozen=True)
class TableView:
    name: str
    class_name: str
    description: str
    is_object: bool
    id_python: str  # int or str
    columns: tuple[ColumnView, ...]  # without id

    @property
    def references(self) -> list[str]:
        return sorted({c.references for c in self.columns if c.references})


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[_\s-]+", name))


def _singular(rules: Rules, table: str) -> str:
    if table in rules.objects:
        return rules.objects[table].singular
    return rules.tables[table].singular or table.removesuffix("s")


def _id_python(rules: Rules, table: str) -> str:
    return "str" if table in rules.tables and rules.tables[table].id == "string" else "int"


def _declaration(name: str, python: str, nullable: bool, *, unique: bool,
                 references: str | None, default: str | None, index: bool = False) -> str:
    """The model line of a column (``name: type = Field(...)``), wrapped under 100."""
    args = []
    if default is not None:
        args.append(f"default={default}")
    elif nullable:
        args.append("default=None")
    if references:
        args.append(f'foreign_key="{references}.id"')
    if references or index:
        args.append("index=True")
    if unique:
        args.append("unique=True")
    if python == "bool":
        args.append('sa_column_kwargs={"server_default": "%s"}' % ("1" if default == "True"
                                                                   else "0"))
    annotation = f"{python} | None" if nullable else python
    if args == ["default=None"]:
        return f"    {name}: {annotation} = None"
    if not args:
        return f"    {name}: {annotation}"
    line = f"    {name}: {annotation} = Field({', '.join(args)})"
    if len(line) <= LINE:
        return line
    return f"    {name}: {annotation} = Field(\n        {', '.join(args)}\n    )"


def _object_column(rules: Rules, name: str, prop: Property) -> ColumnView:
    python = _id_python(rules, prop.references) if prop.references else PYTHON[prop.type]
    return ColumnView(name, python, True, prop.references, prop.unique, prop.sensitive,
                      _declaration(name, python, True, unique=prop.unique,
                                   references=prop.references, default=None))


def _plain_column(name: str, rules: Rules, column: Column) -> ColumnView:
    python = _id_python(rules, column.references) if column.references else PYTHON[column.type]
    default = "False" if python == "bool" and not column.nullable else None
    return ColumnView(name, python, column.nullable, column.references, column.unique,
                      column.sensitive,
                      _declaration(name, python, column.nullable, unique=column.unique,
                                   references=column.references, default=default,
                                   index=column.index))


def tables(rules: Rules) -> list[TableView]:
    """Every table of ``rules`` in foreign-key order (a table after those it references;
    otherwise plain tables, then object types, each in declared order)."""
    views: dict[str, TableView] = {}
    for name, plain in rules.tables.items():
        views[name] = TableView(
            name, _pascal(_singular(rules, name)), plain.description, False,
            _id_python(rules, name),
            tuple(_plain_column(col, rules, spec) for col, spec in plain.columns.items()))
    for name, obj in rules.objects.items():
        columns = [_object_column(rules, prop, spec) for prop, spec in obj.properties.items()]
        columns.append(ColumnView("archived", "bool", False, None, False, False,
                                  _declaration("archived", "bool", False, unique=False,
                                               references=None, default="False")))
        columns.append(ColumnView("archived_at", "str", True, None, False, False,
                                  "    archived_at: str | None = None"))
        views[name] = TableView(name, _pascal(obj.singular), obj.description, True, "int",
                                tuple(columns))
    ordered: list[TableView] = []
    pending = list(views)
    while pending:
        ready = next((t for t in pending
                      if all(r == t or r in {v.name for v in ordered}
                             for r in views[t].references)), None)
        if ready is None:
            raise ValueError(f"tables reference each other in a circle: {', '.join(pending)}")
        ordered.append(views[ready])
        pending.remove(ready)
    return ordered


def stage_rows(rules: Rules) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The seeded rows of ``pipelines`` and ``pipeline_stages`` (without timestamps)."""
    pipelines, stages = [], []
    for object_type, declared in rules.pipelines.items():
        for pipeline in declared:
            pipelines.append({"id": pipeline.id, "object_type": object_type,
                              "label": pipeline.label, "display_order": pipeline.display_order})
            for stage in pipeline.stages:
                stages.append({"id": stage.id, "pipeline_id": pipeline.id, "label": stage.label,
                               "display_order": stage.display_order,
                               "stage_metadata": stage.metadata})
    return pipelines, stages


def build(source: Source) -> dict[str, Any]:
    """The templates' context."""
    rules = source.rules
    if rules.product is None:
        raise ValueError(f"{source.path}: rules.yaml has no product: not a compiled app")
    pipelines, stages = stage_rows(rules)
    return {
        "source": source,
        "rules": rules,
        "product": rules.product,
        "objects": rules.objects,
        "tables": tables(rules),
        "pipelines": pipelines,
        "stages": stages,
        "operations": source.operations(),
        "records": records(rules),
        "links": links(rules),
        "world": rules.world,
        "probe": rules.product.probe,
        "api_guards": [guard for machine in rules.state_machines.values()
                       for guard in machine.guards if guard.enforced == "api"],
        "sensitive": [{"table": table, "owner": "email", "kind": prop, "column": prop}
                      for table, obj in rules.objects.items() if "email" in obj.properties
                      for prop, spec in obj.properties.items() if spec.sensitive],
        "machine_index": {table: [i for i, m in enumerate(rules.state_machines.values())
                                  if m.table == table] for table in rules.objects},
        "all_guards": sum(len(machine.guards) for machine in rules.state_machines.values()),
        "closed_stages": sorted(stage.id for pipelines in rules.pipelines.values()
                                for pipeline in pipelines for stage in pipeline.stages
                                if stage.metadata.get("isClosed") == "true"
                                or stage.metadata.get("ticketState") == "CLOSED"),
        "object_id_property": OBJECT_ID_PROPERTY,
        "pages": {view.name: view for view in pages.views(source)},
    }


def _pyrepr(value: Any) -> str:
    """A Python literal of ``value`` (sorted keys: stable bytes)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_pyrepr(k)}: {_pyrepr(v)}"
                               for k, v in sorted(value.items())) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_pyrepr(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_pyrepr(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def _string_lines(text: str, width: int = 84) -> list[str]:
    """``text`` as Python string literals of at most ``width`` characters' worth, to be
    written one per line (implicit concatenation)."""
    chunks = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return [_pyrepr(chunk + ("" if i == len(chunks) - 1 else " "))
            for i, chunk in enumerate(chunks)]


class _Dumper(yaml.SafeDumper):
    """YAML as people write it: multi-line strings as ``|`` blocks."""


def _block(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", text,
                                   style="|" if "\n" in text else None)


_Dumper.add_representer(str, _block)


def _to_yaml(value: Any) -> str:
    return yaml.dump(value, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=LINE)





@dataclass(frozen=True)
class RecordView:
    """How the world generator draws an object type's rows (``world.draws``)."""

    table: str
    singular: str
    size: int
    created: tuple[float, float]
    created_property: str | None
    modified_property: str
    pipeline: str | None  # the first pipeline of a pipeline object
    constants: tuple[str, ...]  # module-level constant lines the expressions use
    values: tuple[tuple[str, str], ...]  # (column, Python expression)

    @property
    def uses_material(self) -> bool:
        return any('w["' in expression for _, expression in self.values)


def _literal_lines(name: str, items: list[str]) -> str:
    """``NAME = (item, item, ...)`` wrapped under the line length."""
    one = f"{name} = ({', '.join(items)}{',' if len(items) == 1 else ''})"
    if len(one) <= LINE:
        return one
    lines, current = [f"{name} = ("], "   "
    for item in items:
        if len(current) + len(item) + 2 > LINE:
            lines.append(current.rstrip())
            current = "   "
        current += f" {item},"
    lines.append(current.rstrip())
    return "\n".join([*lines, ")"])


def _expression(rules: Rules, table: str, column: str, draw: Draw,
                constants: list[str]) -> str:
    """The Python expression drawing ``column`` (the locals of ``world.py``'s draw
    functions: ``r``, ``w``, ``person``, ``company``, ``created``, ``owner``; its helpers)."""
    const = f"{rules.objects[table].singular}_{column}".upper()
    kind = draw.kind
    if kind == "person":
        expr = "language(person)" if draw.person == "language" else f"person.{draw.person}"
    elif kind == "company":
        expr = f"None if company is None else company.{draw.company}"
    elif kind == "choice":
        weights = draw.weights or [1.0] * len(draw.choice or [])
        constants.append(_literal_lines(const, [
            f"({_pyrepr(value)}, {weight:g})" for value, weight in
            zip(draw.choice or [], weights, strict=True)]))
        expr = f"weighted(r, {const})"
    elif kind == "material":
        expr = f'fill(r.choice(w["{draw.material}"]), person, company)'
    elif kind == "number":
        low, high = draw.number or (0, 0)
        expr = f"float(r.randrange({low}, {high}, {draw.step}))"
    elif kind == "after_created":
        early, late = draw.after_created or (0.0, 0.0)
        expr = (f"iso(created + timedelta(days=r.uniform({early:g}, {late:g})))" if late
                else "iso(created)")
    elif kind == "owner":
        expr = "owner"
    elif kind == "pipeline":
        expr = _pyrepr(rules.pipelines[table][0].id)
    elif kind == "stage":
        stages = rules.pipelines[table][0].stages
        constants.append(_literal_lines(f"{rules.objects[table].singular}_STAGES".upper(), [
            f"({_pyrepr(stage.id)}, {weight:g})" for stage, weight in
            zip(stages, draw.stage or [], strict=True)]))
        expr = f"weighted(r, {rules.objects[table].singular.upper()}_STAGES)"
    else:  # phone
        expr = 'phone(r, "en-US")'
    return expr if draw.maybe == 1 else f"maybe(r, {draw.maybe:g}, {expr})"


def records(rules: Rules) -> list[RecordView]:
    """The drawn object types, in the rules' order of ``world.draws``."""
    if rules.world is None:
        return []
    views = []
    for table, draws in rules.world.draws.items():
        obj = rules.objects[table]
        constants: list[str] = []
        values = tuple((column, _expression(rules, table, column, draw, constants))
                       for column, draw in draws.properties.items())
        created = next((p for p in ("createdate", "hs_createdate") if p in obj.properties), None)
        views.append(RecordView(
            table, obj.singular, rules.world.sizes.get(table, 0), draws.created, created,
            obj.modified_property,
            rules.pipelines[table][0].id if table in rules.pipelines else None,
            tuple(constants), values))
    return views


def links(rules: Rules) -> dict[tuple[str, str], tuple[tuple[int, str | None], ...]]:
    """(from, to) -> the association types (id, label) a link of a record to another
    writes: every type HubSpot defines for the pair (the unlabelled and the Primary one)."""
    found: dict[tuple[str, str], tuple[tuple[int, str | None], ...]] = {}
    for assoc in rules.association_types:
        pair = (assoc.from_, assoc.to)
        found[pair] = (*found.get(pair, ()), (assoc.type_id, assoc.label))
    return found


def _call(function: str, args: list[str], indent: int) -> str:
    """``function(arg, ...)`` at ``indent`` (and a comma after), its arguments wrapped under
    the line length."""
    pad = " " * indent
    one = f"{pad}{function}({', '.join(args)})"
    if len(one) < LINE:
        return one
    lines, current = [f"{pad}{function}("], pad + "   "
    for arg in args:
        if len(current) + len(arg) + 2 > LINE and current.strip():
            lines.append(current.rstrip())
            current = pad + "   "
        current += f" {arg},"
    lines.append(current.rstrip())
    return "\n".join([*lines, f"{pad})"])


def property_entry(name: str, prop: Property, indent: int = 8) -> str:
    """The catalog's ``"name": Property(...),`` of one property (defaults left out)."""
    args = [_pyrepr(name)]
    if prop.type != "string":
        args.append(_pyrepr(prop.type))
    for flag in ("read_only", "required_on_create", "unique"):
        if getattr(prop, flag):
            args.append(f"{flag}=True")
    if prop.references:
        args.append(f"references={_pyrepr(prop.references)}")
    options = [f"options={_pyrepr(tuple(prop.options))}"] if prop.options else []
    head = f"{_pyrepr(name)}: Property"
    one = _call(head, args + options, indent)
    if "\n" not in one or not options:
        return one + ","
    pad = " " * indent
    return "\n".join([f"{pad}{head}(", f"{pad}    {', '.join(args)},",
                      tuple_entry(prop.options, "options", indent + 4), f"{pad}),"])


def tuple_entry(values: list[str], key: str, indent: int = 4) -> str:
    """``key=("a", "b"),`` wrapped under the line length."""
    items = [_pyrepr(v) for v in values]
    if len(items) == 1:
        items[0] += ","
    return _call(f"{key}=", items, indent) + ","


FILTERS = {"pyrepr": _pyrepr, "yaml": _to_yaml, "pascal": _pascal, "property_entry": property_entry,
           "tuple_entry": tuple_entry, "string_lines": _string_lines}
