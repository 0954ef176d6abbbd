"""The previous release, measured in the same run as this checkout (`make bench`, `make load`).

Which release: the commit named in ``workgym_perf/baseline`` (a full sha; the lead moves it on
at each release). It is exported once with ``git archive`` into
``$XDG_CACHE_HOME/workgym/baseline/<sha>/`` (default ``~/.cache``) and run as child processes
of the same interpreter, with that tree first on PYTHONPATH: its own bench sections, its own
``workgym serve``. A clone without the commit (a shallow CI clone) gets
:class:`PreviousMissing`, whose message says why in one line; the figures then print without
ratios.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

COMMIT_FILE = Path(__file__).with_name("baseline")
ROOT = Path(__file__).resolve().parents[2]  # this checkout
# The source folders of a checkout (as the Makefile's PYTHONPATH for the bench and load).
SOURCES = (".", "services", "fault-proxy", "reward-engine", "telemetry")


class PreviousMissing(RuntimeError):
    """The previous release cannot be measured in this clone."""


def commit() -> str:
    """The previous release's commit, as ``workgym_perf/baseline`` names it."""
    return COMMIT_FILE.read_text().strip()


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "workgym/baseline"


def export(sha: str | None = None, *, repo: Path = ROOT, cache: Path | None = None) -> Path:
    """The tree of ``sha`` (default :func:`commit`) of the git repository at ``repo``, exported
    once into ``cache`` (default :func:`cache_dir`) and reused after."""
    sha = sha or commit()
    into = (cache or cache_dir()) / sha
    if into.is_dir():
        return into
    found = subprocess.run(["git", "-C", str(repo), "cat-file", "-e", f"{sha}^{{commit}}"],
                           capture_output=True, check=False)
    if found.returncode != 0:
        raise PreviousMissing(
            f"the previous release {sha[:12]} (workgym_perf/baseline) is not in the clone at "
            f"{repo} (a shallow clone? `git fetch --unshallow`), so no ratios are printed")
    into.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{sha[:12]}-", dir=into.parent))
    try:
        archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", sha],
                                 capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(partial)], input=archive.stdout, check=True)
        partial.rename(into)  # whole or not at all: a run stopped half way leaves no tree
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return into


def environment(root: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default this process's) with the checkout at ``root`` first on the path."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(str((root / s).resolve()) for s in SOURCES)
    # `python -m` would put the working directory (this checkout, as often as not) before
    # PYTHONPATH, and its `replicas` would be imported in place of the release's.
    env["PYTHONSAFEPATH"] = "1"
    return env
