"""References to bound rows inside task data: ``"$ticket.id"`` -> vars["ticket"]["id"].

Used by task setup and scripted actors (replicas) and by verifiers (reward engine). Only a
whole string value is a reference; ``"$$..."`` stands for a literal string starting with
``$``. Resolution recurses through mappings and lists.

Two parts name a row of the app's own (``$order.number``: ``vars``); three parts name a row
another app of the episode bound earlier (``$checkout.order.number``: ``others["checkout"]``,
that app's bound rows). The number of parts decides which, so neither shadows the other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import InvalidRequest

Vars = Mapping[str, Mapping[str, Any]]
Others = Mapping[str, Vars]  # app -> its bound rows

_NAME = r"[A-Za-z_]\w*"
_REFERENCE = re.compile(rf"\$({_NAME})\.({_NAME})(?:\.({_NAME}))?")
# A reference inside a longer text (templates, expressions).
REFERENCE = re.compile(rf"\$?{_NAME}\.{_NAME}(?:\.{_NAME})?")


class BadReference(InvalidRequest, ValueError):
    """A reference that is malformed or names no app, bound row or field.

    A ValueError too, so pydantic reports it as a validation error when it is
    raised while a config is parsed.
    """

    code = "bad_reference"


def resolve(value: Any, vars: Vars, others: Others | None = None) -> Any:
    """``value`` with every reference replaced by the value it names in ``vars`` (this
    app's bound rows) or ``others`` (other apps' bound rows, by app)."""
    if isinstance(value, str):
        return _lookup(value, vars, others or {}) if value.startswith("$") else value
    if isinstance(value, Mapping):
        return {key: resolve(item, vars, others) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [resolve(item, vars, others) for item in value]
    return value


def _known(names: Mapping[str, Any]) -> str:
    return ", ".join(sorted(names)) or "none"


def _lookup(text: str, vars: Vars, others: Others) -> Any:
    if text.startswith("$$"):
        return text[1:]
    return lookup(text, vars, others)


def lookup(text: str, vars: Vars, others: Others | None = None) -> Any:
    """The value the reference ``text`` (``$name.field`` or ``$app.name.field``) names."""
    others = others or {}
    match = _REFERENCE.fullmatch(text)
    if match is None:
        raise BadReference(
            f"malformed reference {text!r}: write $name.field (this app's row), "
            "$app.name.field (another app's), or $$ for a literal '$'"
        )
    if match.group(3) is None:
        name, field = match.group(1, 2)
        where = ""
    else:
        app, name, field = match.groups()
        if app not in others:
            raise BadReference(
                f"unknown reference {text!r}: no app {app!r} bound rows before this one "
                f"(apps: {_known(others)})"
            )
        vars, where = others[app], f" of app {app!r}"
    if name not in vars:
        raise BadReference(
            f"unknown reference {text!r}: no variable {name!r}{where} (vars: {_known(vars)})"
        )
    row = vars[name]
    if field not in row:
        raise BadReference(
            f"unknown reference {text!r}: {name!r}{where} has no field {field!r} "
            f"({_known(row)})"
        )
    return row[field]
