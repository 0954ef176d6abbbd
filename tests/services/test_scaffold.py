"""``workgym new-replica`` writes into a source checkout, and only there; what it writes
has the contract's shape and passes the contract test."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import workgym.scaffold as scaffold_module
from tests.replicas.test_contract import SHAPE, off_shape
from workgym.scaffold import TEMPLATES, ScaffoldError, scaffold, templates


def test_outside_a_checkout_it_writes_nothing_and_says_where_to_run_it(tmp_path: Path) -> None:
    # An installed wheel's package folder is not a checkout: no docker-compose.yml beside it.
    with pytest.raises(ScaffoldError, match="source checkout") as raised:
        scaffold("shop", root=tmp_path)
    assert "\n" not in str(raised.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_scaffolded_app_has_the_shape_and_passes_the_contract(tmp_path: Path) -> None:
    """In a copy of this checkout: the new app passes the contract test (its shape
    included), its own tests and mypy --strict, as generated."""
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
    typed = subprocess.run([sys.executable, "-m", "mypy", "--strict", "replicas/shop",
                            "tests/replicas/shop"], cwd=copy, env=env, capture_output=True,
                           text=True, timeout=600)
    assert typed.returncode == 0, typed.stdout[-2000:]


def _checkout(root: Path) -> Path:
    """The least of a checkout new-replica writes into: its compose file."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "docker-compose.yml").write_text("services:\n  helpdesk:\n    x: 1\n  gym:\n    x: 1\n")
    return root


def test_every_file_it_writes_is_rendered_from_a_template_file(tmp_path: Path) -> None:
    written = scaffold("shop", root=_checkout(tmp_path))
    rendered = {tmp_path / name.removeprefix("files/").removesuffix(".j2").replace("{name}", "shop")
                for name in templates()}
    assert set(written) == rendered | {tmp_path / "docker-compose.yml"}
    assert all((TEMPLATES / name).is_file() for name in templates())
    compose = (tmp_path / "docker-compose.yml").read_text()
    assert compose.index("  shop:\n    <<: *replica\n") < compose.index("  gym:\n")
    assert "{{" not in "".join(path.read_text() for path in written)


def test_no_file_body_is_left_in_python_strings() -> None:
    """scaffold.py's strings are its docstrings and one-line messages: no file's body."""
    tree = ast.parse(Path(scaffold_module.__file__).read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    bodies = [node.value[:40] for node in ast.walk(tree)
              if isinstance(node, ast.Constant) and isinstance(node.value, str)
              and "\n" in node.value.rstrip("\n") and id(node) not in docstrings]
    assert bodies == []


def test_what_it_writes_has_the_contract_s_shape_and_is_lint_clean(tmp_path: Path) -> None:
    scaffold("shop", root=_checkout(tmp_path))
    app = tmp_path / "replicas" / "shop"
    assert off_shape(app, SHAPE) == []
    assert all(required is False or (app / name).exists() for name, required in SHAPE.items())
    assert (app / "seed" / "common.py").is_file()  # the generator's shape, as every app's
    root = Path(__file__).resolve().parents[2]
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--config",
                           str(root / "pyproject.toml"), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stdout[-2000:]
