"""Task files' contents: parsed from YAML, or read from the cache beside them.

Parsing every task file is most of what a gym costs to start (PyYAML builds its objects in
Python, even with libyaml's parser). ``workgym prebuild --catalogue`` writes what each file
parses to into ``<root>/__pycache__/catalogue.<cache tag>.marshal`` (the image build does, so
no container parses YAML at boot), keyed, like a ``.pyc``, by each file's size and
modification time: a file changed since is parsed again, a new one is parsed, a cache that
is missing or unreadable is ignored. Only data is cached (``marshal``: it rebuilds values,
never runs code), never a validated task, so a task is always checked by this code.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from workgym_core.errors import ConfigError

# libyaml's safe loader when PyYAML has it (~10x faster than the pure-Python one).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
PATTERN = "*/*.yaml"  # <suite>/<name>.yaml under a task root

# A cached file: its size and mtime (ns) when it was parsed, and what it parsed to.
Entry = tuple[int, int, dict[str, Any]]


class TaskFileError(ConfigError, ValueError):
    """A task file that does not parse; names the file (the CLI's one error)."""


def cache_path(root: Path) -> Path:
    """Where the parsed files of task root ``root`` are cached (this Python's own file, as
    marshal's format is)."""
    return root / "__pycache__" / f"catalogue.{sys.implementation.cache_tag}.marshal"


def parse(path: Path) -> dict[str, Any]:
    """A task file's mapping; TaskFileError naming the file if it is not YAML or not one."""
    try:
        raw = yaml.load(path.read_text(), Loader=_YAML_LOADER)
    except yaml.YAMLError as exc:
        raise TaskFileError(f"{path}: not YAML: {' '.join(str(exc).split())}") from exc
    if not isinstance(raw, dict):
        raise TaskFileError(f"{path}: a task file must hold a mapping")
    return raw


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def _cached(root: Path) -> dict[str, Entry]:
    """The cache of ``root`` (relative path -> entry); empty where there is none or it cannot
    be read (another Python's, truncated): the files are then parsed."""
    try:
        found = marshal.loads(cache_path(root).read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return found if isinstance(found, dict) else {}


def contents(root: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Each task file of ``root`` (sorted) and its mapping: the cached one where the file is
    unchanged since the cache was written, else parsed now."""
    cached = _cached(root)
    for path in sorted(root.glob(PATTERN)):
        entry = cached.get(path.relative_to(root).as_posix())
        if entry is not None and tuple(entry[:2]) == _stamp(path):
            yield path, entry[2]
        else:
            yield path, parse(path)


def write_cache(root: Path) -> tuple[Path, int]:
    """Parse every task file of ``root`` and cache what they parse to (``workgym prebuild
    --catalogue``); where it was written and how many files it holds. A file whose
    contents marshal cannot hold (a YAML timestamp) is left out: it is parsed at each start."""
    entries: dict[str, Entry] = {}
    for path in sorted(root.glob(PATTERN)):
        stamp = _stamp(path)  # before parsing: a file changed meanwhile is parsed again
        raw = parse(path)
        try:
            marshal.dumps(raw)
        except ValueError:
            continue
        entries[path.relative_to(root).as_posix()] = (*stamp, raw)
    target = cache_path(root)
    target.parent.mkdir(exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    partial.write_bytes(marshal.dumps(entries))
    partial.replace(target)  # readers see the old cache or the new one, never half of one
    return target, len(entries)
