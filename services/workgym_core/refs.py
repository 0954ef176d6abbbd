"""References to bound rows inside task data: ``"$ticket.id"`` -> vars["ticket"]["id"].

Used by task setup and the scripted customer (replicas) and by verifiers (reward
engine). Only a whole string value is a reference; ``"$$..."`` stands for a
literal string starting with ``$``. Resolution recurses through mappings and lists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import InvalidRequest

Vars = Mapping[str, Mapping[str, Any]]

_REFERENCE = re.compile(r"\$([A-Za-z_]\w*)\.([A-Za-z_]\w*)")


class BadReference(InvalidRequest, ValueError):
    """A reference that is malformed or names no bound row or field.

    A ValueError too, so pydantic reports it as a validation error when it is
    raised while a config is parsed.
    """

    code = "bad_reference"


def resolve(value: Any, vars: Vars) -> Any:
    """``value`` with every reference replaced by the value it names in ``vars``."""
    if isinstance(value, str):
        return _lookup(value, vars) if value.startswith("$") else value
    if isinstance(value, Mapping):
        return {key: resolve(item, vars) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, vars) for item in value]
    return value


def _lookup(text: str, vars: Vars) -> Any:
    if text.startswith("$$"):
        return text[1:]
    match = _REFERENCE.fullmatch(text)
    if match is None:
        raise BadReference(
            f"malformed reference {text!r}: write $name.field, or $$ for a literal '$'"
        )
    name, field = match.groups()
    if name not in vars:
        known = ", ".join(sorted(vars)) or "none"
        raise BadReference(f"unknown reference {text!r}: no variable {name!r} (vars: {known})")
    row = vars[name]
    if field not in row:
        known = ", ".join(sorted(row)) or "none"
        raise BadReference(
            f"unknown reference {text!r}: {name!r} has no field {field!r} ({known})"
        )
    return row[field]
