"""The results file of a bench run: one JSON document, rewritten atomically (a temporary
file, then ``os.replace``) each time episodes finish, so that an interrupted run loses at
most the episodes still running, and ``--resume`` runs only the ones it has not recorded.

    {"format": "workgym-bench/1",
     "header": {"agent", "user", "temperature"?, "suite", "split"?, "selection", "tasks", "seeds",
                "trials", "faults", "set"?, "url", "started", "finished", "workgym_version",
                "command", "env_version"},
     "episodes": [{"task", "seed", "trial", "reward", "success", "harm", "signals", "steps",
                   "faults": {"injected", "recovered", "met": [{"kind", "step",
                              "recovered"}]},
                   "duration_s", "episode_id", "episode_page", "tokens", "error",
                   "infra_error", "final_state_hash", "step_s",
                   "tool_calls": {"made", "reached_app", "malformed", "unknown_tool",
                                  "after_end", "gym_refused", "page_loads",
                                  "refused": {"4xx", "5xx"},
                                  "statuses": {"<status>": n},
                                  "refusals": [{"step", "app", "method", "path", "status",
                                                "code", "fault"}]},
                   "failures": [{"skill", "source", ...}], "trajectory"?}, ...]}

Episodes are listed in the order they finished; one is keyed by (task, seed, trial). The
header's ``finished`` is null until every planned episode is recorded. An episode recorded
with an ``infra_error`` (the infrastructure failed it, not the agent) is kept, and run again
by ``--resume``, its new record replacing it. ``trajectory`` (with ``--trajectories``): the
episode as ``{"messages", "tools"}``, a ``workgym export --format jsonl`` record without its
metadata. ``step_s``: a browser agent's seconds per browser step, in order (null for
others). ``tool_calls``: the agent's tool calls, those that reached an app (the gym's recorded
steps but a browser's page loads, their statuses and the first 20 refusals) and those it
counted as never sent (:mod:`workgym.bench.health`); null for an episode that did not finish
(an error). ``failures``: what went wrong, each with the skill it shows
(:mod:`workgym.bench.diagnosis`): ``source`` ``check`` (with ``name``, ``check``,
``detail``), ``fault`` (``kind``, ``step``), ``refusal`` (``step``, ``method``, ``path``,
``status``, ``code``) or ``episode`` (gave up early: ``detail``); empty for a success, an
error or an infra failure.

``env_version``: the environment the episodes ran on (:mod:`workgym.envversion`'s
``{"id", "parts": {"code", "data", "tasks", "faults"}}``: this process's, or with ``--url``
the server's; null for a server too old to say, absent in files from before it was
recorded): ``--resume`` and ``workgym compare`` refuse another.

``set`` (a run of ``--set FILE``): ``{"path", "name", "instances": [{"task", "seed",
"faults"}]}``, the problems run (each ``trials`` times; a set's weights are for trainers);
``tasks``, ``seeds`` and ``faults`` then list the distinct ones it names. ``temperature``: the
model's sampling temperature when the run set one (``workgym tasks calibrate``).

``user``: the model that played the customer (``--user openai:MODEL``), null for
the scripted one (a file without it: null).
"""

from __future__ import annotations

import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from workgym_core.errors import ConfigError

FORMAT = "workgym-bench/1"
RESULTS_DIR = Path("results")
_RUN = re.compile(r"run-(\d+)\.json$")

Key = tuple[str, int, int]  # task, seed, trial


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def key(episode: dict[str, Any]) -> Key:
    return episode["task"], int(episode["seed"]), int(episode["trial"])


def planned(header: dict[str, Any]) -> int:
    """How many episodes the run of ``header`` plans: its problems × trials."""
    problems = len(header["set"]["instances"]) if header.get("set") else \
        len(header["tasks"]) * len(header["seeds"])
    return problems * int(header["trials"])


def claim_next_run(directory: Path = RESULTS_DIR) -> Path:
    """``directory/run-NNNN.json``, the number after the highest there, created empty so that
    two runs started together never pick the same one (the directory is created)."""
    directory.mkdir(parents=True, exist_ok=True)
    number = max((int(m.group(1)) for p in directory.iterdir() if (m := _RUN.match(p.name))),
                 default=0)
    while True:
        number += 1
        path = directory / f"run-{number:04d}.json"
        try:
            path.open("x").close()
        except FileExistsError:
            continue
        return path


class ResultsError(ConfigError):
    """A results file that cannot be read or resumed."""


class Results:
    """The results document at ``path``: its header and the episodes recorded so far."""

    def __init__(self, path: Path, header: dict[str, Any],
                 episodes: list[dict[str, Any]] | None = None) -> None:
        self.path = path
        self.header = header
        self.episodes = episodes or []

    @classmethod
    def create(cls, path: Path, header: dict[str, Any]) -> Results:
        results = cls(path, {**header, "finished": None})
        results.save()
        return results

    @classmethod
    def load(cls, path: Path) -> Results:
        try:
            document = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError) as exc:
            raise ResultsError(f"cannot read results {path}: {exc}") from None
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ResultsError(f"{path} is not a bench results file ({FORMAT})")
        return cls(path, document["header"], document["episodes"])

    def done(self) -> set[Key]:
        """The episodes recorded (the agent's errors included: they are results), but those
        the infrastructure failed (``infra_error``): they are to run again."""
        return {key(e) for e in self.episodes if not e.get("infra_error")}

    def drop_errors(self) -> int:
        """Forget the episodes recorded with an error, the agent's or the gym's (infra_error),
        to run them again; how many."""
        kept = [e for e in self.episodes if e.get("error") is None and not e.get("infra_error")]
        dropped, self.episodes = len(self.episodes) - len(kept), kept
        return dropped

    def add(self, episodes: list[dict[str, Any]]) -> None:
        """Record finished episodes (replacing an earlier record of the same one: an infra
        failure run again), and write the file."""
        new = {key(e) for e in episodes}
        self.episodes = [e for e in self.episodes if key(e) not in new] + episodes
        self.save()

    def finish(self) -> None:
        self.header["finished"] = now()
        self.save()

    def document(self) -> dict[str, Any]:
        return {"format": FORMAT, "header": self.header, "episodes": self.episodes}

    def save(self) -> None:
        """Write the whole document atomically: readers see the old file or the new one."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            os.fchmod(fd, 0o644)  # as a file written plainly would be, not mkstemp's 0600
            with os.fdopen(fd, "wb") as out:
                out.write(orjson.dumps(self.document(), option=orjson.OPT_INDENT_2))
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
