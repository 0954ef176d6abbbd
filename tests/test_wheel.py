"""A built wheel is a complete install: in a fresh virtualenv outside the checkout, with only
its own dependencies (the `embedded` extra, at the versions of .ci/lock/core.txt), the CLI
lists every task of tasks/ and runs an episode to its reward."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from workgym.scaffold import templates

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# What a build does not read: the tree's caches, virtualenvs and local data.
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", ".workgym", "build", "*.egg-info", "results",
                                     "__pycache__", ".*_cache")


def _run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=900)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_a_wheel_in_a_clean_virtualenv_serves_every_task(tmp_path: Path) -> None:
    # Built from a copy, so that the build's files stay out of the checkout.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=NOT_SOURCES)
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir",
         tmp_path / "dist", source, cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("workgym-*.whl")

    # Nothing of the checkout or this process reaches the install: no PYTHONPATH (pip would
    # take the checkout for an installed WorkGym), no WorkGym setting; its data (.workgym/ of
    # the working directory) and credentials go to a folder of its own.
    home = tmp_path / "user"
    home.mkdir()
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHONPATH", "REDIS_URL", "VIRTUAL_ENV")
           and not name.startswith("WORKGYM_")}
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    venv.create(tmp_path / "venv", with_pip=True)
    bin_dir = tmp_path / "venv" / "bin"
    _run(bin_dir / "pip", "install", "--quiet", "-c", ROOT / ".ci" / "lock" / "core.txt",
         f"{wheel}[embedded]", cwd=tmp_path, env=env)

    where = _run(bin_dir / "python", "-c", "import workgym, workgym_tasks; "
                 "print(workgym.__file__, *workgym_tasks.__path__)", cwd=home, env=env)
    assert all(Path(path).is_relative_to(tmp_path / "venv") for path in where.split()), where

    # the factory's template files (new-replica's among them) are package data
    carried = _run(bin_dir / "python", "-c", "from workgym import scaffold; "
                   "print(*scaffold.templates(), sep='\\n')", cwd=home, env=env)
    assert carried.splitlines() == templates()

    listed = json.loads(_run(bin_dir / "workgym", "tasks", "--json", cwd=home, env=env))
    assert sorted(task["id"] for task in listed) == sorted(
        path.relative_to(ROOT / "tasks").with_suffix("").as_posix()
        for path in (ROOT / "tasks").glob("*/*.yaml"))

    report = json.loads(_run(bin_dir / "workgym", "run", "--task", "helpdesk/refund-standard",
                             "--seed", "7", "--agent", "reference", "--json", cwd=home, env=env))
    assert report["reward"] == 1.0, report
