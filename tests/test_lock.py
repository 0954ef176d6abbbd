"""The locks (.ci/lock/, written by `make lock`) pin every dependency pyproject.toml names,
at a version it accepts: `make setup` installs core.txt, `make test` and CI dev.txt too."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _pins(lock: str) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (ROOT / ".ci" / "lock" / lock).read_text().splitlines():
        if line.strip() and not line.startswith((" ", "#")):
            requirement = Requirement(line)
            (version,) = (spec.version for spec in requirement.specifier)
            pins[canonicalize_name(requirement.name)] = version
    return pins


def _requirements(extra: str) -> list[Requirement]:
    """What installing WorkGym with ``extra`` requires (an extra may name others of WorkGym's)."""
    found = []
    for line in PROJECT["optional-dependencies"][extra]:
        requirement = Requirement(line)
        if requirement.name == PROJECT["name"]:
            found += [named for other in requirement.extras for named in _requirements(other)]
        else:
            found.append(requirement)
    return found


@pytest.mark.parametrize(("lock", "extra"), [("core.txt", "embedded"), ("dev.txt", "dev")])
def test_the_lock_pins_every_dependency_of_its_install(lock: str, extra: str) -> None:
    pins = _pins(lock)
    unpinned = []
    for wanted in [*map(Requirement, PROJECT["dependencies"]), *_requirements(extra)]:
        pinned = pins.get(canonicalize_name(wanted.name))
        if pinned is None or not wanted.specifier.contains(pinned, prereleases=True):
            unpinned.append(f"{wanted} (locked: {pinned})")
    assert not unpinned, f".ci/lock/{lock} is stale, run `make lock`: {unpinned}"


def test_the_core_lock_is_the_dev_lock_s_versions() -> None:
    # `make test` installs dev.txt over core.txt: it must change no version the demo ran with.
    dev = _pins("dev.txt")
    assert {name: (pin, dev.get(name)) for name, pin in _pins("core.txt").items()
            if dev.get(name) != pin} == {}
