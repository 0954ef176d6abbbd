"""``python -m replicas.prebuild <app> --seeds 0-15``: build pristine snapshots ahead of time.

Writes each seed's pristine database under ``WORKGYM_DATA_DIR/snapshots``, where every
instance of the app looks first; the replica image runs this at build time so that an
instance never seeds at boot or on its first episodes.
"""

from __future__ import annotations

import argparse
import sys
import time


def seeds(text: str) -> list[int]:
    """``0-15`` or ``0,3,7-9``."""
    found: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        found.extend(range(int(first), int(last or first) + 1))
    return found


def main(argv: list[str] | None = None) -> int:
    from workgym_core.settings import Settings

    from .catalog import specs
    from .runtime.snapshots import SnapshotCache

    parser = argparse.ArgumentParser(prog="python -m replicas.prebuild", description=__doc__)
    parser.add_argument("app", choices=sorted(specs()))
    parser.add_argument("--seeds", type=seeds, default=seeds("0-15"),
                        help="seeds to build, e.g. 0-15 or 0,3,7-9 (default 0-15)")
    args = parser.parse_args(argv)
    settings = Settings()
    cache = SnapshotCache(specs()[args.app], settings.data_dir, size=1)
    started, total = time.perf_counter(), 0
    for seed in args.seeds:
        total += len(cache.pristine(seed))
    print(f"prebuild: {args.app}: {len(args.seeds)} pristine snapshots "
          f"({total / 1e6:.1f} MB) in {cache.dir} in {time.perf_counter() - started:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
