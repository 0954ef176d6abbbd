"""The notes world's static material (world.yaml), loaded once."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from replicas.runtime.world import load_yaml


@cache
def data() -> dict[str, Any]:
    found: dict[str, Any] = load_yaml(Path(__file__).with_name("world.yaml"))
    return found
