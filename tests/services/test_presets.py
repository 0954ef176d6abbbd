"""Fault presets: the proxy's are app-agnostic; an app's own come from the catalogue and are
offered wherever a preset is named (the gym API, the CLI)."""

from __future__ import annotations

import re

import pytest

from workgym import presets
from workgym.cli import parser
from workgym.gym.models import EpisodeCreate
from workgym_core.errors import ConfigError
from workgym_proxy.faults import PRESETS


def test_the_proxys_presets_name_no_app() -> None:
    assert not [fault for plan in PRESETS.values() for fault in plan
                if "app" in fault.get("target", {})]


def test_an_apps_preset_is_offered_beside_the_proxys() -> None:
    assert set(presets.fault_presets()) == {"none", "hard", "jira-write-limit"}
    assert EpisodeCreate(task="t", faults="jira-write-limit").faults == "jira-write-limit"
    args = parser().parse_args(["run", "--task", "t", "--faults", "jira-write-limit"])
    assert args.faults == "jira-write-limit"


@pytest.mark.parametrize(("found", "says"), [
    ({"hard": []}, "takes the name of the proxy's"),
    ({"slow": [{"kind": "latency", "delay_ms": -1}]},
     "'slow' (an app's app.yaml) is not a fault plan: Input should be greater than or equal "
     "to 0 at 0.latency.delay_ms"),
])
def test_an_apps_bad_preset_is_a_config_error_naming_it(
        monkeypatch: pytest.MonkeyPatch, found: dict[str, list[dict[str, object]]],
        says: str) -> None:
    monkeypatch.setattr(presets, "apps_presets", lambda: found)
    presets.fault_presets.cache_clear()
    try:
        with pytest.raises(ConfigError, match=re.escape(says)):
            presets.fault_presets()
    finally:
        presets.fault_presets.cache_clear()
