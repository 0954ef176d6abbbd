"""The machine's credential files: created private, refused (as ssh refuses a private key)
when others may read or write them or when they are symbolic links."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workgym_core import credentials
from workgym_core.credentials import API_KEY_FILE, find_api_key, load_or_create
from workgym_core.errors import ConfigError
from workgym_core.settings import Settings


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o602], ids=oct)
def test_a_credential_others_may_read_or_write_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int,
) -> None:
    path = tmp_path / API_KEY_FILE
    path.write_text("wgk_known\n")
    path.chmod(mode)
    with pytest.raises(ConfigError) as refused:
        load_or_create(path)
    assert f"chmod 600 {path}" in refused.value.message
    assert f"mode {mode:04o}" in refused.value.message
    # The SDK and CLI find the key the same way; the server's settings likewise.
    monkeypatch.delenv("WORKGYM_API_KEY", raising=False)
    monkeypatch.setenv("WORKGYM_CONFIG_DIR", str(tmp_path))
    with pytest.raises(ConfigError):
        find_api_key()
    with pytest.raises(ConfigError):
        Settings(data_dir=tmp_path, config_dir=tmp_path, api_key="", internal_secret="s")
    path.chmod(0o600)
    assert load_or_create(path) == find_api_key() == "wgk_known"


@pytest.mark.parametrize("target", ["a private file", "nothing"])
def test_a_credential_that_is_a_symbolic_link_is_refused(tmp_path: Path, target: str) -> None:
    real = tmp_path / "elsewhere"
    if target == "a private file":
        real.write_text("wgk_known\n")
        real.chmod(0o600)
    path = tmp_path / API_KEY_FILE
    path.symlink_to(real)
    with pytest.raises(ConfigError) as refused:
        load_or_create(path)
    assert "symbolic link" in refused.value.message and str(path) in refused.value.message
    assert not real.exists() or real.read_text() == "wgk_known\n"  # nothing written through


def test_an_empty_credential_file_is_refused_not_used(tmp_path: Path) -> None:
    path = tmp_path / API_KEY_FILE
    path.touch(mode=0o600)
    with pytest.raises(ConfigError, match="is empty"):
        credentials.load_or_create(path)
    assert os.listdir(tmp_path) == [API_KEY_FILE]  # the aside copy is gone
