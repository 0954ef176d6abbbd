"""Train and test splits of the catalogue, by template (a task's ``template``, else its id).

Tasks of a framework app (``replicas/<app>/app.yaml``: not to be trained on) are in neither.
A template's split is drawn from a stable hash of its name alone, so a task's split never
changes when tasks are added or others change; variants of one task name one template and
fall in one split. ``tasks/splits.yaml`` records the packaged tasks' templates by split
(``workgym tasks splits`` writes it; a test checks it is current), so a change of split shows
in review.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Literal

from replicas.catalog import framework_apps

from .tasks import TASKS_DIR, Task

SPLITS = ("train", "test")
Split = Literal["train", "test"]
TEST_SHARE = 5  # one template in this many is the test split's
SPLITS_FILE = TASKS_DIR / "splits.yaml"


def split_of(template: str) -> Split:
    """The split of a template: ``test`` when the first 8 bytes of its name's SHA-256, as an
    integer, are a multiple of TEST_SHARE."""
    digest = hashlib.sha256(template.encode()).digest()
    return "test" if int.from_bytes(digest[:8], "big") % TEST_SHARE == 0 else "train"


def _split(tasks: Iterable[Task]) -> list[Task]:
    """The tasks a split may hold: those of no framework app."""
    framework = framework_apps()
    return [task for task in tasks if not framework.intersection(task.apps)]


def in_split(tasks: Iterable[Task], split: Split) -> list[Task]:
    """The tasks of ``split``, in their order."""
    return [task for task in _split(tasks) if split_of(task.template) == split]


def render(tasks: Iterable[Task]) -> str:
    """tasks/splits.yaml for ``tasks``: each split's templates, sorted."""
    templates = sorted({task.template for task in _split(tasks)})
    lines = [
        "# Train/test splits of the packaged tasks, by template (a task's `template`, else its",
        f"# id): a template is test's when sha256(template)[:8] % {TEST_SHARE} == 0, so a task's",
        "# split never changes as tasks are added. Generated (`workgym tasks splits`); a test",
        "# checks it is current. `workgym bench --split test` runs a split.",
    ]
    for split in SPLITS:
        chosen = [t for t in templates if split_of(t) == split]
        lines.append(f"{split}:" + ("" if chosen else " []"))
        lines += [f"  - {template}" for template in chosen]
    return "\n".join(lines) + "\n"
