"""Which replica apps exist: every package under replicas/ (but runtime) is one, exporting
``SPEC``; its name is its folder's. Names are known without importing any app."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import replicas

from .runtime.spec import ReplicaSpec


@cache
def app_names() -> frozenset[str]:
    return frozenset(m.name for m in pkgutil.iter_modules(replicas.__path__)
                     if m.ispkg and m.name != "runtime")


def spec(name: str) -> ReplicaSpec:
    """The app's spec (importing the app: its routes, models and rules)."""
    found = getattr(importlib.import_module(f"replicas.{name}"), "SPEC", None)
    if not isinstance(found, ReplicaSpec) or found.name != name:
        raise TypeError(f"replicas/{name} must export SPEC, a ReplicaSpec named {name!r}")
    return found


def specs() -> dict[str, ReplicaSpec]:
    return {name: spec(name) for name in sorted(app_names())}
