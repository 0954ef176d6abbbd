"""The credentials of a WorkGym deployment, and what is signed with them.

Two principals reach WorkGym: the *operator*, who holds the API key (creates episodes,
reads full reports, controls faults, reads telemetry), and the *agent*, who holds one
episode's token (reaches that episode's apps through the proxy and may declare it
finished). Services also share an *internal secret* they present to each other (replicas,
telemetry ingest) and from which per-episode secrets are derived. Episode tokens are signed
with a *token secret* that only the gym API and the proxy hold: a replica, which needs the
internal secret, cannot mint one.

Each is read from its variable (``WORKGYM_API_KEY``, ``WORKGYM_INTERNAL_SECRET``,
``WORKGYM_TOKEN_SECRET``) or, when
that is unset, from a file in the machine's WorkGym config directory
(``$WORKGYM_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/workgym``, else ``~/.config/workgym``),
created with a fresh random value by the first process that needs it. So every process of
one user on one machine (``workgym serve``, the SDK, the CLI, the telemetry store) agrees
without configuration, and containers get theirs from the environment.

Such a file is created 0600 in a 0700 directory, and is refused (``ConfigError``, saying what
to run) when it is a symbolic link or group or others may read or write it: ssh refuses a
private key so (a key others could read is no longer a secret, and one they could write or
repoint is theirs), rather than warn where nobody looks, as a server's log is.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import orjson
from pydantic import BaseModel

from .errors import ConfigError

API_KEY_FILE = "api-key"
INTERNAL_SECRET_FILE = "internal-secret"
TOKEN_SECRET_FILE = "token-secret"
API_KEY_PREFIX = "wgk_"


def default_config_dir() -> Path:
    explicit = os.environ.get("WORKGYM_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "workgym"


def read_secret(path: Path) -> str | None:
    """The secret stored at ``path`` (None if there is no file, or it is empty); ConfigError if
    the file is a symbolic link or group or others may read or write it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise ConfigError(
            f"{path} is a symbolic link: a WorkGym credential must be a file of its own, not a "
            "link that could point anywhere or be repointed. Replace the link with a copy: "
            f'cp --remove-destination "$(readlink -f {path})" {path} && chmod 600 {path}'
        ) from exc
    with os.fdopen(fd) as f:
        mode = stat.S_IMODE(os.fstat(f.fileno()).st_mode)
        if mode & 0o077:
            raise ConfigError(
                f"{path} is accessible by other users (mode {mode:04o}): a WorkGym credential "
                f"must be private, as ssh requires of a private key. Run: chmod 600 {path}")
        return f.read().strip() or None


def load_or_create(path: Path, prefix: str = "") -> str:
    """The secret stored at ``path`` (:func:`read_secret`); a new random one (mode 0600) if
    there is none.

    Safe against concurrent first uses: the file is written aside and linked into place,
    which fails if another process got there first (then its value is read)."""
    if value := read_secret(path):
        return value
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    value = prefix + secrets.token_urlsafe(32)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(value + "\n")
        try:
            os.link(tmp, path)
        except FileExistsError:
            if found := read_secret(path):
                return found
            raise ConfigError(f"{path} is empty: remove it (a new one is made) or write the "
                              "credential into it") from None
    finally:
        tmp.unlink(missing_ok=True)
    return value


def matches(presented: str | None, expected: str) -> bool:
    """Constant-time comparison of a presented credential."""
    return presented is not None and hmac.compare_digest(presented.encode(), expected.encode())


def bearer(authorization: str | None) -> str | None:
    """The credential of an ``Authorization: Bearer <credential>`` header, if any."""
    scheme, _, value = (authorization or "").partition(" ")
    value = value.strip()
    return value if scheme.lower() == "bearer" and value else None


def mac(key: str, purpose: str, message: str | bytes) -> str:
    """HMAC-SHA256 of ``message`` under ``key``, separated by ``purpose`` (hex)."""
    data = message.encode() if isinstance(message, str) else message
    derived = hmac.new(key.encode(), purpose.encode(), hashlib.sha256).digest()
    return hmac.new(derived, data, hashlib.sha256).hexdigest()


# Reports: the gym signs every report it produces with the operator's key, so that what
# reaches training data (``workgym export``) is what the gym scored, not forged spans.
SIGNATURE = "signature"


def _report_bytes(report: dict[str, Any]) -> bytes:
    unsigned = {k: v for k, v in report.items() if k != SIGNATURE}
    return orjson.dumps(unsigned, option=orjson.OPT_SORT_KEYS)


def sign_report(api_key: str, report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with its ``signature``."""
    return {**report, SIGNATURE: mac(api_key, "report", _report_bytes(report))}


def report_signed(api_key: str, report: dict[str, Any]) -> bool:
    """Whether ``report`` carries a valid signature of the gym holding ``api_key``."""
    signature = report.get(SIGNATURE)
    return isinstance(signature, str) and hmac.compare_digest(
        signature, mac(api_key, "report", _report_bytes(report)))


# A settings class's credential fields, and the file (and prefix) each defaults to.
_FILES = {"api_key": (API_KEY_FILE, API_KEY_PREFIX), "internal_secret": (INTERNAL_SECRET_FILE, ""),
          "token_secret": (TOKEN_SECRET_FILE, "")}


def complete(settings: BaseModel) -> None:
    """Fill the credentials ``settings`` (a pydantic settings object) has fields for and was
    not given from the files in its ``config_dir``, creating them on first use: the one
    resolution every settings class uses. Set through ``__dict__``, so they stay out of
    ``model_fields_set``, which tells what was configured."""
    fields = vars(settings)
    for name, (file, prefix) in _FILES.items():
        if name in type(settings).model_fields and not fields[name]:
            fields[name] = load_or_create(fields["config_dir"] / file, prefix)


# Episode pages: a link the gym puts in a report opens that episode's page (and its timeline)
# in the telemetry store without the API key, until the expiry it carries (signed with it);
# the store checks ``exp`` and ``sig`` the same way.
def page_signature(api_key: str, episode_id: str, expires: int) -> str:
    return mac(api_key, "page", f"{episode_id}.{expires}")


def page_query(api_key: str, episode_id: str, expires: int) -> dict[str, str]:
    """The query that signs a link to one episode's page until ``expires`` (Unix seconds)."""
    return {"exp": str(expires), "sig": page_signature(api_key, episode_id, expires)}


def page_link(base_url: str, api_key: str, episode_id: str, expires: int) -> str:
    """``<base_url>/episodes/<id>?exp=...&sig=...``: the signed link to one episode's page,
    valid until ``expires``."""
    return (f"{base_url.rstrip('/')}/episodes/{quote(episode_id, safe='')}"
            f"?{urlencode(page_query(api_key, episode_id, expires))}")


def find_api_key() -> str | None:
    """The operator's API key as a client on this machine finds it: ``WORKGYM_API_KEY``, else
    the config directory's ``api-key`` (written by ``workgym serve``); None if neither."""
    if key := os.environ.get("WORKGYM_API_KEY"):
        return key
    try:
        return read_secret(default_config_dir() / API_KEY_FILE)
    except OSError:
        return None
