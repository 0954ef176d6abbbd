"""Fault presets by name: the proxy's own, which any app may meet (``none``, ``hard``), and
each app's (its ``app.yaml``: the tracker's Jira write limit), found in the replica catalogue
here, in the composition root: the proxy imports no replica and is handed them."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import ValidationError

from replicas.catalog import fault_presets as apps_presets
from workgym_core.errors import ConfigError
from workgym_proxy.faults import PRESETS, parse_plan


@cache
def fault_presets() -> dict[str, list[dict[str, Any]]]:
    """Every preset by name, each a valid fault plan; a ConfigError naming the preset when
    an app's is not one, or takes the name of the proxy's."""
    try:
        found = apps_presets()
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    for name, plan in found.items():
        if name in PRESETS:
            raise ConfigError(f"an app's fault preset {name!r} takes the name of the proxy's "
                              f"({', '.join(PRESETS)}): rename it in its app.yaml")
        try:
            parse_plan(plan)
        except ValidationError as exc:
            raise ConfigError(f"fault preset {name!r} (an app's app.yaml) is not a fault "
                              f"plan: {exc.errors()[0]['msg']} at "
                              f"{'.'.join(map(str, exc.errors()[0]['loc']))}") from exc
    return {**PRESETS, **found}
