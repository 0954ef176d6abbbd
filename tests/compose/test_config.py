"""The compose file's least privilege, read from the file itself (no Docker needed): only the
gym and the proxy hold the secret that signs episode tokens; Redis asks for a password that
every service reaching it has; `make compose-env` writes every secret the file requires."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SERVICES: dict[str, dict[str, Any]] = yaml.safe_load(
    (ROOT / "docker-compose.yml").read_text())["services"]
REQUIRED = re.compile(r"\$\{(\w+):\?")  # ${NAME:?message}: compose refuses to start without it


def _env(service: str) -> dict[str, str]:
    return dict(SERVICES[service].get("environment") or {})


def test_only_the_gym_and_the_proxy_hold_the_token_secret() -> None:
    replicas = [n for n, s in SERVICES.items() if (s.get("build") or {}).get("target") == "replica"]
    holders = sorted(n for n in SERVICES if "WORKGYM_TOKEN_SECRET" in _env(n))

    assert holders == ["gym", "proxy"]
    assert {"helpdesk", "checkout", "tracker"} <= set(replicas)
    for name in replicas:  # what they do need: /_env calls and Redis
        assert {"WORKGYM_INTERNAL_SECRET", "REDIS_URL"} <= set(_env(name)), name


def test_redis_asks_for_a_password_every_client_has() -> None:
    redis = SERVICES["redis"]
    command = " ".join(redis["command"])
    password = "${WORKGYM_REDIS_PASSWORD:?"

    assert _env("redis")["REDIS_PASSWORD"].startswith(password)
    assert "requirepass $$REDIS_PASSWORD" in command and "--requirepass" not in command
    assert "REDISCLI_AUTH" in " ".join(redis["healthcheck"]["test"])
    clients = [n for n in SERVICES if "REDIS_URL" in _env(n)]
    assert {"gym", "proxy", "helpdesk"} <= set(clients)
    for name in clients:
        assert _env(name)["REDIS_URL"].startswith(f"redis://:{password}"), name


def test_compose_env_writes_every_secret_the_file_requires(tmp_path: Path) -> None:
    (tmp_path / ".ci").mkdir()
    script = tmp_path / ".ci" / "compose-env.sh"
    script.write_text((ROOT / ".ci" / "compose-env.sh").read_text())
    required = set(REQUIRED.findall((ROOT / "docker-compose.yml").read_text()))

    subprocess.run(["bash", str(script)], check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "WORKGYM_CONFIG_DIR": str(tmp_path / "cfg")})

    written = dict(line.split("=", 1) for line in (tmp_path / ".env").read_text().splitlines())
    assert {"WORKGYM_TOKEN_SECRET", "WORKGYM_REDIS_PASSWORD"} <= required
    assert required <= set(written)
    assert len({written[name] for name in required}) == len(required)  # each its own
    assert all(re.fullmatch(r"[\w-]{20,}", v) for v in written.values())  # safe in a URL
