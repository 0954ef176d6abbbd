"""The README runs as typed: every ```bash, ```sh and ```python block of README.md is run.

How a block is run, as a newcomer in a fresh clone would after the Quickstart:
- in a fresh working directory holding `.venv` (this interpreter's virtualenv) and the
  repository's `Makefile`, with this interpreter's bin directory first on PATH, a fresh data
  directory (`WORKGYM_DATA_DIR`) and a config directory of the test's own (never ~/.config);
- shell blocks by `bash` under `set -euo pipefail`; `make` is given `-o setup`: the test's
  interpreter is the installed virtualenv, so the test never installs anything;
- Python blocks by this interpreter, as a script;
- a block that names `127.0.0.1:8000` (the README's `workgym serve --port 8000`) runs against
  a `workgym serve` the test starts on a free port, with `:8000` replaced by that port (the one
  substitution made to a block's text).

A comment `# -> TEXT` on a line of a block says what it prints: the block's output must have a
line TEXT, in the order of the comments.

A block is skipped only when marked, just before its fence, by `<!-- readme-test: REASON -->`
with a REASON of `SKIPS`, each naming where that block's behaviour runs instead.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from workgym.processes import serving

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RUN = {"bash": "shell", "sh": "shell", "python": "python"}  # the fence languages run
MARKER = re.compile(r"<!--\s*readme-test:\s*(.*?)\s*-->")
EXPECT = re.compile(r"#\s*->\s*(.+?)\s*$")
SERVER = "127.0.0.1:8000"

# The fixed set of reasons a block is not run here, and where its behaviour is run instead.
SKIPS = {
    "needs compose": "tests/compose/test_stack.py (WORKGYM_COMPOSE_TESTS=1)",
    "needs ray": "tests/ray/test_ray_cluster.py",
    "needs harbor": "tests/compose/test_harbor.py (WORKGYM_COMPOSE_TESTS=1)",
    "needs model endpoint": "tests/services/test_openai_agent.py",
    "needs model endpoint (calibration)": "tests/services/test_calibrate.py",
    "needs a model endpoint for the customer": "tests/services/test_user_model.py",
    "is the test suite": "`make test` itself (running it here would recurse)",
    "long, run by make gate in CI": "`make gate` in .ci/run (tests/services/test_quality.py)",
    "synopsis": "tests/services/test_cli.py (a usage listing, not a script)",
    "installs a wheel": "tests/test_wheel.py (a wheel in a clean virtualenv, outside the checkout)",
}


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    section: str
    lang: str
    text: str
    marker: str | None  # the readme-test reason just before the fence, if any

    @property
    def name(self) -> str:
        return f"README.md:{self.line} ({self.section}, {self.lang})"


def blocks(text: str) -> Iterator[Block]:
    """Every fenced block of a Markdown text, with its section and its marker."""
    lines = text.splitlines()
    section, i = "top", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#") and not line.startswith("#!"):
            section = line.lstrip("#").strip()
        if not line.startswith("```"):
            i += 1
            continue
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.fullmatch(before.strip())
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        yield Block(line=i + 1, section=section, lang=line[3:].strip(),
                    text="\n".join(lines[i + 1:end]) + "\n",
                    marker=marker.group(1) if marker else None)
        i = end + 1


def expected(text: str) -> list[str]:
    """What a block says it prints: its `# -> TEXT` comments, in order."""
    return [found.group(1) for line in text.splitlines() if (found := EXPECT.search(line))]


def missing(output: str, wanted: list[str]) -> list[str]:
    """The expected lines `output` does not print in that order."""
    printed = iter(line.strip() for line in output.splitlines())
    return [line for line in wanted if line not in printed]


README_BLOCKS = list(blocks(README.read_text(encoding="utf-8")))
RUNNABLE = [block for block in README_BLOCKS if block.lang in RUN]


def test_the_parser_reads_fences_sections_and_markers() -> None:
    text = ("# A\n\n<!-- readme-test: needs ray -->\n```bash\nray start\n```\n\n## B\n"
            "```python\nprint(1)  # -> 1\nprint(2)  # -> 2\n```\n```yaml\nk: v\n```\n")
    found = list(blocks(text))
    assert [(b.line, b.section, b.lang, b.marker) for b in found] == [
        (4, "A", "bash", "needs ray"), (9, "B", "python", None), (13, "B", "yaml", None)]
    assert found[1].text == "print(1)  # -> 1\nprint(2)  # -> 2\n"
    assert expected(found[1].text) == ["1", "2"]
    assert missing("1\n2\n", ["1", "2"]) == []
    assert missing("2\n1\n", ["1", "2"]) == ["2"]  # in order


def test_every_marker_is_a_known_reason_on_a_runnable_block() -> None:
    text = README.read_text(encoding="utf-8")
    marked = [block for block in README_BLOCKS if block.marker is not None]
    assert len(marked) == len(MARKER.findall(text)), "a marker not just before a fence"
    for block in marked:
        assert block.marker in SKIPS, f"{block.name}: unknown reason {block.marker!r}: " \
                                      f"one of {sorted(SKIPS)}"
        assert block.lang in RUN, f"{block.name}: a marker on a {block.lang!r} block"


def test_every_skip_names_tests_that_exist() -> None:
    named = [path for where in SKIPS.values() for path in re.findall(r"tests/\S+\.py", where)]
    assert len(named) == 9 and all((ROOT / path).is_file() for path in named), named


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment every block runs in: this interpreter's bin first on PATH, fresh data
    and config directories (the config directory shared with the server the test starts)."""
    base = tmp_path_factory.mktemp("readme")
    return {**os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "WORKGYM_DATA_DIR": str(base / "data"), "WORKGYM_CONFIG_DIR": str(base / "config")}


@pytest.fixture(scope="module")
def server(workspace: dict[str, str], tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[str]:
    """`workgym serve` on a free port, with the blocks' credentials; its host:port."""
    env = {**workspace, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("served"))}
    with serving(env=env, log=tmp_path_factory.mktemp("log") / "serve.log") as url:
        yield url.removeprefix("http://")


def run(block: Block, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    (cwd / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    (cwd / "Makefile").symlink_to(ROOT / "Makefile")
    if RUN[block.lang] == "python":
        script = cwd / "block.py"
        script.write_text(block.text, encoding="utf-8")
        command = [sys.executable, str(script)]
    else:
        prelude = "set -euo pipefail\nmake() { command make -o setup \"$@\"; }\n"
        command = ["bash", "-c", prelude + block.text]
    # A guard against a hang, not a timed assertion: the longest block (bench) takes minutes.
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=1200, check=False)


@pytest.mark.slow
@pytest.mark.parametrize("block", RUNNABLE, ids=[b.name for b in RUNNABLE])
def test_block_runs_as_typed(block: Block, workspace: dict[str, str], tmp_path: Path,
                             request: pytest.FixtureRequest) -> None:
    if block.marker is not None:
        pytest.skip(f"{block.marker}: run by {SKIPS[block.marker]}")
    if SERVER in block.text:
        block = Block(block.line, block.section, block.lang,
                      block.text.replace(SERVER, request.getfixturevalue("server")), None)
    done = run(block, tmp_path, workspace)
    said = f"\n--- stdout ---\n{done.stdout[-3000:]}\n--- stderr ---\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"{block.name} exited {done.returncode}:{said}"
    assert not missing(done.stdout, expected(block.text)), \
        f"{block.name} did not print {missing(done.stdout, expected(block.text))}:{said}"
