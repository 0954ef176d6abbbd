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


def _compose_env(checkout: Path, config: Path) -> dict[str, str]:
    """What `make compose-env` writes to .env in a checkout at ``checkout``."""
    (checkout / ".ci").mkdir(parents=True)
    script = checkout / ".ci" / "compose-env.sh"
    script.write_text((ROOT / ".ci" / "compose-env.sh").read_text())
    subprocess.run(["bash", str(script)], check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "WORKGYM_CONFIG_DIR": str(config)})
    return dict(line.split("=", 1) for line in (checkout / ".env").read_text().splitlines())


def test_compose_env_writes_every_secret_the_file_requires(tmp_path: Path) -> None:
    required = set(REQUIRED.findall((ROOT / "docker-compose.yml").read_text()))

    written = _compose_env(tmp_path, tmp_path / "cfg")
    written.pop("COMPOSE_PROJECT_NAME")
    assert {"WORKGYM_TOKEN_SECRET", "WORKGYM_REDIS_PASSWORD"} <= required
    assert required <= set(written)
    assert len({written[name] for name in required}) == len(required)  # each its own
    assert all(re.fullmatch(r"[\w-]{20,}", v) for v in written.values())  # safe in a URL


def test_compose_env_keeps_a_key_another_process_made_first(tmp_path: Path) -> None:
    """A server started beside `make compose-env` (the tests do: compose's and the others at
    once) may create this machine's API key between the script's look and its write: the
    script keeps that key, as the server holds it, and writes it to .env. Here the other
    process is a stand-in python3 that makes the key as the script asks for a token."""
    fake = tmp_path / "bin"
    fake.mkdir()
    config = tmp_path / "cfg"
    (fake / "python3").write_text(
        "#!/bin/sh\n"
        f"[ -e {config}/api-key ] || {{ mkdir -p {config}; echo wgk_made_first > "
        f"{config}/api-key; chmod 600 {config}/api-key; }}\n"
        'exec /usr/bin/python3 "$@"\n')
    (fake / "python3").chmod(0o755)
    checkout = tmp_path / "checkout"
    (checkout / ".ci").mkdir(parents=True)
    script = checkout / ".ci" / "compose-env.sh"
    script.write_text((ROOT / ".ci" / "compose-env.sh").read_text())
    subprocess.run(["bash", str(script)], check=True, capture_output=True,
                   env={"PATH": f"{fake}:/usr/bin:/bin", "WORKGYM_CONFIG_DIR": str(config)})
    assert (config / "api-key").read_text() == "wgk_made_first\n"
    assert "WORKGYM_API_KEY=wgk_made_first\n" in (checkout / ".env").read_text()
    assert [p.name for p in config.iterdir()] == ["api-key"]  # nothing left aside


def test_each_checkout_is_its_own_compose_project(tmp_path: Path) -> None:
    """Two checkouts of one name on one engine: two projects (compose reads .env's
    COMPOSE_PROJECT_NAME; one set in the environment wins), so neither's `make down` or
    `make compose-boot` touches the other's stack. The file names no project of its own."""
    names = [_compose_env(tmp_path / parent / "WorkGym Main", tmp_path / "cfg")
             ["COMPOSE_PROJECT_NAME"] for parent in ("alice", "bob")]

    assert names[0] != names[1]
    for name in names:  # lower case, as Docker wants project names
        assert re.fullmatch(r"workgym-workgym-main-[0-9a-f]{8}", name), name
    assert "name" not in yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_every_service_exporting_spans_stops_before_the_store() -> None:
    """`docker compose down` stops dependents first: the services' last spans reach a store
    still up (a store gone costs each service its exit's export wait)."""
    exporters = [n for n in SERVICES if "OTEL_EXPORTER_OTLP_ENDPOINT" in _env(n)]

    assert {"gym", "proxy", "helpdesk", "checkout", "tracker"} <= set(exporters)
    for name in exporters:
        assert "telemetry" in (SERVICES[name].get("depends_on") or {}), name


def test_the_host_addresses_the_gym_hands_out_follow_the_published_ports() -> None:
    """A second stack on other ports (WORKGYM_PROXY_PORT=18080) hands out its own proxy's
    URLs, not the first stack's :8080."""
    for url, port in (("WORKGYM_PUBLIC_URL", "PROXY"), ("WORKGYM_TELEMETRY_URL", "TELEMETRY")):
        published = f"${{WORKGYM_{port}_PORT:-"
        assert published in " ".join(SERVICES[port.lower()]["ports"])
        assert _env("gym")[url].startswith(f"${{{url}:-http://127.0.0.1:{published}"), url
