"""Which replica apps exist: every package under replicas/ (but runtime) is one, its spec
``SPEC`` in its ``spec.py``; its name is its folder's. Names are known without importing any
app.

Framework apps exist to keep the runtime honest (tested on every run, deployable like any
other) and are served only when ``WORKGYM_FRAMEWORK_APPS`` is on; tasks that use one are
left out of the catalogue of a deployment that does not serve it."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from pathlib import Path

import replicas
from workgym_core.speech import Lexicon, lexicon_of
from workgym_core.speech.realise import Realiser
from workgym_core.speech.realise import load as load_realiser

from .runtime.spec import ReplicaSpec

# Apps that exist to test the framework, not to be trained on.
FRAMEWORK_APPS = frozenset({"notes"})


@cache
def app_names() -> frozenset[str]:
    """Every app, framework apps included."""
    return frozenset(m.name for m in pkgutil.iter_modules(replicas.__path__)
                     if m.ispkg and m.name != "runtime")


def served_apps(framework: bool) -> frozenset[str]:
    """The apps a deployment serves: the public ones, and the framework's if asked."""
    return app_names() if framework else app_names() - FRAMEWORK_APPS


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
    return load_realiser(say_files())


def lexicon() -> Lexicon:
    """Every app's claims, read once per process: the statement reader's vocabulary."""
    return lexicon_of(claim_files())
