"""Which replica apps exist: every package under replicas/ (but runtime) is one, its spec
``SPEC`` in its ``spec.py``; its name is its folder's. Names are known without importing any
app.

Framework apps (``framework: true`` in their ``app.yaml``) exist to keep the runtime honest
(tested on every run, deployable like any other) and are served only when
``WORKGYM_FRAMEWORK_APPS`` is on; tasks that use one are left out of the catalogue of a
deployment that does not serve it. An app's own fault presets are in its ``app.yaml`` too."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import replicas

from .runtime.spec import ReplicaSpec, read_manifest

if TYPE_CHECKING:  # the speech reader is imported on use: listing apps needs none of it
    from workgym_core.speech import Lexicon
    from workgym_core.speech.realise import Realiser


@cache
def app_names() -> frozenset[str]:
    """Every app, framework apps included."""
    return frozenset(m.name for m in pkgutil.iter_modules(replicas.__path__)
                     if m.ispkg and m.name != "runtime")


def framework_apps() -> frozenset[str]:
    """The apps that exist to test the framework, not to be trained on."""
    return frozenset(name for name in app_names() if read_manifest(name).framework)


def served_apps(framework: bool) -> frozenset[str]:
    """The apps a deployment serves: the public ones, and the framework's if asked."""
    return app_names() if framework else app_names() - framework_apps()


def fault_presets() -> dict[str, list[dict[str, Any]]]:
    """Every app's own fault presets (its ``app.yaml``), by name; a ValueError naming both
    apps when two use one name."""
    found: dict[str, list[dict[str, Any]]] = {}
    owner: dict[str, str] = {}
    for name in sorted(app_names()):
        for preset, plan in read_manifest(name).fault_presets.items():
            if preset in owner:
                raise ValueError(f"fault preset {preset!r} is both {owner[preset]}'s and "
                                 f"{name}'s: rename one in its app.yaml")
            found[preset], owner[preset] = plan, name
    return found


def gateways() -> dict[str, dict[str, Any]]:
    """Every app's ``gateway:`` (its ``app.yaml``): what the proxy does in its place."""
    return {name: read_manifest(name).gateway for name in sorted(app_names())}


def spec(name: str) -> ReplicaSpec:
    """The app's spec (importing the app: its routes, models and rules)."""
    found = getattr(importlib.import_module(f"replicas.{name}.spec"), "SPEC", None)
    if not isinstance(found, ReplicaSpec) or found.name != name:
        raise TypeError(f"replicas/{name}/spec.py must define SPEC, a ReplicaSpec named "
                        f"{name!r}")
    return found


def specs() -> dict[str, ReplicaSpec]:
    return {name: spec(name) for name in sorted(app_names())}


def claim_files() -> list[tuple[str, Path]]:
    """(app, its claims.yaml) of every app that has one: what can be said of its records."""
    root = Path(next(iter(replicas.__path__)))
    return [(name, root / name / "claims.yaml") for name in sorted(app_names())
            if (root / name / "claims.yaml").is_file()]


def say_files() -> list[Path]:
    """Each app's say.yaml: how its claims are said again (paraphrases, the gate's mutants)."""
    root = Path(next(iter(replicas.__path__)))
    return [root / name / "say.yaml" for name in sorted(app_names())
            if (root / name / "say.yaml").is_file()]


@cache
def realiser() -> Realiser:
    """Every app's templates, read once per process."""
    from workgym_core.speech.realise import load

    return load(say_files())


def lexicon() -> Lexicon:
    """Every app's claims, read once per process: the statement reader's vocabulary."""
    from workgym_core.speech import lexicon_of

    return lexicon_of(claim_files())
