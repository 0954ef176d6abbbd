"""How much memory this process holds, and the ceiling past which it takes no new episode."""

from __future__ import annotations

import os
from pathlib import Path

_PAGE = os.sysconf("SC_PAGE_SIZE")
SHARE = 0.75  # of the machine's (or the container's) memory, by default


def resident_mb() -> float:
    """This process's resident set size (Linux: /proc/self/statm)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * _PAGE / 2**20


def _cgroup_limit() -> int | None:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:
            return int(text)
    return None


def default_limit_mb() -> float:
    """``SHARE`` of the memory this process may use: its cgroup's limit or the machine's."""
    total = os.sysconf("SC_PHYS_PAGES") * _PAGE
    cgroup = _cgroup_limit()
    return SHARE * min(total, cgroup or total) / 2**20
