"""A replica's OpenAPI document, built ahead of time.

Building the document is the costliest thing a replica does before its first episode (FastAPI
builds a JSON schema for every route's models: ~0.6 CPU-s for checkout), and the gym asks for
it to create that episode (the tools). ``workgym prebuild APP`` builds it once (the replica
image's build does) into ``<data_dir>/openapi/<app>.<digest>.json``, keyed by a digest over
everything it is built from: the app's files, the runtime's and ``workgym_core``'s, the
catalogue's, and the versions of Python and of the libraries that generate it. A changed
file or library gives another digest, so a stale document is never served: the app builds its
own instead. The document holds data only (JSON); a file that does not parse is ignored.
"""

from __future__ import annotations

import hashlib
import logging
import platform
from pathlib import Path
from typing import Any

import fastapi
import orjson
import pydantic
import pydantic_core
import starlette

import replicas
import workgym_core

from .snapshots import write_atomically

log = logging.getLogger("workgym.openapi")

_REPLICAS = Path(next(iter(replicas.__path__)))
_CORE = Path(next(iter(workgym_core.__path__)))


def sources(app: str) -> list[Path]:
    """Every file the document of ``app`` is built from, sorted: its package's, the runtime's,
    ``workgym_core``'s (cached bytecode aside) and the catalogue's modules."""
    trees = [_REPLICAS / app, _REPLICAS / "runtime", _CORE]
    found = [path for tree in trees for path in tree.rglob("*")
             if path.is_file() and "__pycache__" not in path.parts]
    return sorted([*found, *_REPLICAS.glob("*.py")])


def digest(app: str) -> str:
    """What the document of ``app`` depends on, as one SHA-256: the library versions, then
    each source file's path (relative) and contents."""
    hasher = hashlib.sha256()
    for version in (platform.python_version(), fastapi.__version__, pydantic.VERSION,
                    pydantic_core.__version__, starlette.__version__):
        hasher.update(f"{version}\0".encode())
    for path in sources(app):
        hasher.update(f"{path.relative_to(_REPLICAS.parent).as_posix()}\0".encode())
        hasher.update(hashlib.sha256(path.read_bytes()).digest())
    return hasher.hexdigest()


def cache_path(data_dir: Path, app: str) -> Path:
    """Where the document of ``app``, as this code builds it, is stored under ``data_dir``."""
    return data_dir / "openapi" / f"{app}.{digest(app)}.json"


def read(data_dir: Path, app: str) -> dict[str, Any] | None:
    """The stored document of ``app`` for this code; None when there is none (or it is not a
    JSON object: then it is logged, and the app builds its own)."""
    path = cache_path(data_dir, app)
    try:
        document = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except orjson.JSONDecodeError:
        log.error("OpenAPI document %s is not JSON: not used; building it", path)
        return None
    if not isinstance(document, dict):
        log.error("OpenAPI document %s is not a JSON object: not used; building it", path)
        return None
    return document


def write(data_dir: Path, app: str, document: dict[str, Any]) -> Path:
    """Store ``document`` as the document of ``app`` for this code (``workgym prebuild``);
    where it was written."""
    path = cache_path(data_dir, app)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, orjson.dumps(document))
    return path
