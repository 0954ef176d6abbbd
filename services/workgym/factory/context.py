"""What the replica templates render from: a :class:`~.source.Source` as plain values (the
tables in foreign-key order with each column's Python declaration, the pipelines' rows, the
API's operations), so the templates loop and print and decide nothing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from . import pages
from .source import OBJECT_ID_PROPERTY, Column, Property, Rules, Source

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
                 references: str | None, default: str | None) -> str:
    """The model line of a column (``name: type = Field(...)``), wrapped under 100."""
    args = []
    if default is not None:
        args.append(f"default={default}")
    elif nullable:
        args.append("default=None")
    if references:
        args += [f'foreign_key="{references}.id"', "index=True"]
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
                                   references=column.references, default=default))


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
                               "metadata": json.dumps(stage.metadata, sort_keys=True)})
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
        "object_id_property": OBJECT_ID_PROPERTY,
        "pages": {view.name: view for view in pages.views(source)},
    }


def _pyrepr(value: Any) -> str:
    """A Python literal of ``value`` (sorted keys: stable bytes)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_pyrepr(k)}: {_pyrepr(v)}"
                               for k, v in sorted(value.items())) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_pyrepr(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def _to_yaml(value: Any) -> str:
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=LINE)


FILTERS = {"pyrepr": _pyrepr, "yaml": _to_yaml, "pascal": _pascal}
