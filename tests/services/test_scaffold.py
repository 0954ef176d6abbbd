"""``workgym new-replica`` writes into a source checkout, and only there; what it writes
has the contract's shape and passes the contract test."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workgym.scaffold import ScaffoldError, scaffold


def test_outside_a_checkout_it_writes_nothing_and_says_where_to_run_it(tmp_path: Path) -> None:
    # An installed wheel's package folder is not a checkout: no docker-compose.yml beside it.
    with pytest.raises(ScaffoldError, match="source checkout") as raised:
        scaffold("shop", root=tmp_path)
    assert "\n" not in str(raised.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_scaffolded_app_has_the_shape_and_passes_the_contract(tmp_path: Path) -> None:
    """In a copy of this checkout: the new app passes the contract test (its shape
    included) and its own tests, as generated."""
    root = Path(__file__).resolve().parents[2]
    copy = tmp_path / "checkout"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*.sqlite", "node_modules"))
    written = scaffold("shop", root=copy)
    assert copy / "replicas" / "shop" / "spec.py" in written
    paths = [copy, *(copy / d for d in ("services", "fault-proxy", "reward-engine", "telemetry"))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, paths))}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "shop",
         "-rA", "tests/replicas/test_contract.py", "tests/replicas/shop"],
        cwd=copy, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    passed = re.search(r"\b(\d+) passed", run.stdout)
    # every contract test of an app (the shape's among them), and the app's own
    assert passed is not None and int(passed.group(1)) >= 15, run.stdout[-2000:]
    assert "PASSED tests/replicas/test_contract.py::test_the_app_has_the_documented_shape[shop]" \
        in run.stdout
