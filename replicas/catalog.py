"""Which replica apps exist: every package under replicas/ that exports ``SPEC``."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import replicas

from .runtime.spec import ReplicaSpec


@cache
def specs() -> dict[str, ReplicaSpec]:
    found: dict[str, ReplicaSpec] = {}
    for module in pkgutil.iter_modules(replicas.__path__):
        if not module.ispkg or module.name == "runtime":
            continue
        spec = getattr(importlib.import_module(f"replicas.{module.name}"), "SPEC", None)
        if isinstance(spec, ReplicaSpec):
            found[spec.name] = spec
    return found
