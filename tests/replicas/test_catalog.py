"""What the catalogue knows of an app without importing it comes from the app's own files:
whether it is a framework app, and its own fault presets (``app.yaml``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from replicas import catalog
from replicas.runtime import spec
from replicas.runtime.spec import AppManifest, read_manifest


def test_framework_apps_are_those_whose_manifest_says_so() -> None:
    assert catalog.framework_apps() == {"notes"} == {
        name for name in catalog.app_names() if read_manifest(name).framework}
    assert catalog.served_apps(False) == catalog.app_names() - {"notes"}
    assert catalog.served_apps(True) == catalog.app_names()


def test_an_apps_fault_presets_are_in_its_manifest() -> None:
    presets = catalog.fault_presets()
    assert presets["jira-write-limit"] == read_manifest("tracker").fault_presets[
        "jira-write-limit"]
    assert {fault["target"]["app"] for fault in presets["jira-write-limit"]} == {"tracker"}


def test_two_apps_with_one_preset_name_are_refused_naming_both(
        monkeypatch: pytest.MonkeyPatch) -> None:
    same = AppManifest(fault_presets={"slow": []})
    monkeypatch.setattr(catalog, "read_manifest", lambda name: same)
    with pytest.raises(ValueError, match=r"'slow' is both checkout's and crm's"):
        catalog.fault_presets()


def test_a_manifest_that_is_not_one_is_refused_naming_file_and_field(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "app.yaml").write_text("framework: true\nfault_preset: {}\n")
    monkeypatch.setattr(spec, "_REPLICAS", tmp_path)
    with pytest.raises(ValueError, match=r"odd/app.yaml: fault_preset: Extra inputs"):
        read_manifest("odd")
    assert read_manifest("absent") == AppManifest()  # no file: the defaults
