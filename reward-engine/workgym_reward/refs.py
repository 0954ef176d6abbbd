"""Variable references in verifier configs: ``"$name.field"`` is ``vars["name"]["field"]``.

Only a whole string value is a reference; ``"$$..."`` stands for a literal string starting
with ``$``. References resolve anywhere in a config, recursively through mappings and lists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import ConfigError

Vars = Mapping[str, Mapping[str, Any]]

_REFERENCE = re.compile(r"\$([A-Za-z_]\w*)\.([A-Za-z_]\w*)")


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
        raise ConfigError(
            f"malformed reference {text!r}: write $name.field, or $$ for a literal '$'"
        )
    name, field = match.groups()
    if name not in vars:
        known = ", ".join(sorted(vars)) or "none"
        raise ConfigError(f"unknown reference {text!r}: no variable {name!r} (vars: {known})")
    row = vars[name]
    if field not in row:
        known = ", ".join(sorted(row)) or "none"
        raise ConfigError(f"unknown reference {text!r}: {name!r} has no field {field!r} ({known})")
    return row[field]
