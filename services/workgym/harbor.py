"""Tasks as Harbor tasks (https://harborframework.com): a directory per task at a seed, which
Harbor's agents run in a container of the WorkGym image that serves that one episode.

    <out>/<suite>.<name>.seed<N>/
      task.toml         Harbor's config: our task, seed, faults, suite, tags, difficulty in
                        [metadata], the environment version in [metadata.env_version]; the
                        agent's and the verifier's timeouts
      instruction.md    the episode's instruction and brief, and how to reach the apps
      environment/      Dockerfile FROM the WorkGym image (`make images`' gym target) and
                        start.sh: `workgym serve`, then `workgym episode open` of this task at
                        this seed, saved to /workgym/episode.json; docker-compose.yaml: the
                        Redis the server keeps episodes in, and main healthy once the episode
                        is open (Harbor's `up --wait` waits for it)
      solution/solve.sh the reference solution played on the open episode (`workgym episode
                        play`: the reference reads the apps to decide, so it is played, not
                        rendered to fixed requests)
      tests/test.sh     `workgym episode finish` with the agent's answer: the reward to
                        /logs/verifier/reward.txt, the full report to /logs/verifier/report.json

The instruction of a task at a seed is rendered from its seeded world: each is read from an
episode served in this process. Same selection, same bytes.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .tasks import Catalogue, Task

IMAGE = "workgym-gym:latest"  # what `make harbor` tags this checkout's gym image as
EPISODE = "/workgym/episode.json"
ANSWER = "/workgym/answer.txt"
AGENT_TIMEOUT_S = 1800.0
VERIFIER_TIMEOUT_S = 300.0
START_S = 300.0  # the server's start and the episode's first seeding, on a slow machine


@dataclass(frozen=True)
class Instance:
    """One Harbor task: a task at a seed, under a fault plan."""

    task: Task
    seed: int
    faults: str

    @property
    def directory(self) -> str:
        return f"{self.task.id.replace('/', '.')}.seed{self.seed}"


def instances(catalogue: Catalogue, rows: Iterable[dict[str, object]]) -> list[Instance]:
    """The distinct instances of ``rows`` (``{"task", "seed", "faults"}``), in their order;
    an unknown task is the catalogue's error."""
    found: dict[tuple[str, int, str], Instance] = {}
    for row in rows:
        task = catalogue.get(str(row["task"]))
        seed, faults = int(str(row["seed"])), str(row.get("faults", "task"))
        found.setdefault((task.id, seed, faults), Instance(task, seed, faults))
    return list(found.values())


def write(selected: list[Instance], out: Path, *, image: str = IMAGE, force: bool = False,
          progress: Callable[[str], None] = lambda line: None) -> list[Path]:
    """Write a Harbor task directory per instance under ``out`` (refused when ``out`` holds
    anything, unless ``force``: then it is emptied first). Returns the directories."""
    import workgym

    from .errors import WorkGymClientError

    if out.exists() and any(out.iterdir()):
        if not force:
            raise WorkGymClientError(f"--out {out} is not empty (--force replaces what it "
                                     "holds)")
        shutil.rmtree(out)
    written = []
    for number, instance in enumerate(selected, 1):
        progress(f"harbor: {number}/{len(selected)} {instance.directory}")
        with workgym.make(instance.task.id, seed=instance.seed, faults=instance.faults) as env:
            observation = env.reset()
        files = {
            "task.toml": task_toml(instance),
            "instruction.md": instruction(observation.instruction, observation.brief,
                                          observation.max_steps),
            "environment/Dockerfile": dockerfile(instance, image),
            "environment/start.sh": START,
            "environment/docker-compose.yaml": COMPOSE,
            "solution/solve.sh": SOLVE,
            "tests/test.sh": TEST,
        }
        root = out / instance.directory
        for name, text in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            if name.endswith(".sh"):
                path.chmod(0o755)
        written.append(root)
    return written


def _toml(value: object) -> str:
    """A TOML value: a string (JSON's escapes are TOML's), a number, or a list of them."""
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return json.dumps(value)


def task_toml(instance: Instance) -> str:
    from .envversion import current

    task = instance.task
    version = current()
    sections: dict[str, dict[str, object]] = {
        "task": {"name": f"workgym/{instance.directory}", "description": task.title,
                 "keywords": list(task.tags)},
        "metadata": {"workgym_task": task.id, "seed": instance.seed, "faults": instance.faults,
                     "suite": task.suite, "apps": list(task.apps),
                     "difficulty": task.difficulty, "tags": list(task.tags),
                     "max_steps": task.max_steps},
        "metadata.env_version": {"id": version.id, **version.parts},
        "agent": {"timeout_sec": AGENT_TIMEOUT_S},
        "verifier": {"timeout_sec": VERIFIER_TIMEOUT_S},
        "environment": {"build_timeout_sec": 600.0},
    }
    lines = ['schema_version = "1.4"']
    for name, fields in sections.items():
        lines += ["", f"[{name}]", *(f"{key} = {_toml(value)}" for key, value in fields.items())]
    return "\n".join(lines) + "\n"


def instruction(text: str, brief: str, max_steps: int) -> str:
    return f"""{text.strip()}

## Where you work

{brief.strip()}

## Reaching the apps

A WorkGym server in this container holds your episode of this task, open. Its details are in
`{EPISODE}` (JSON):

- `apps`: each app's base URL; call its HTTP API there (e.g. `GET <apps.helpdesk>/api/v2/tickets`);
- `token`: send `Authorization: Bearer <token>` with every request;
- `tools`: the apps' operations as function schemas (method, path, parameters);
- `refresh_token`: after a `401 token_expired`, `POST /v1/episodes/<episode_id>/token` on the
  server (`http://127.0.0.1:8000`) with `{{"refresh_token": "<refresh_token>"}}` gives a new token.

The apps answer like the products they stand for, faults included: some requests fail,
time out or are rate limited, as in production. At most {max_steps} requests count.

When you are done, write your final answer (what you would reply to the requester) to
`{ANSWER}`. The apps' final state and that answer are scored.
"""


def dockerfile(instance: Instance, image: str) -> str:
    return f"""# The WorkGym image (`make images`, its gym target), serving one episode of
# {instance.task.id} at seed {instance.seed}: start.sh opens it before Harbor's command runs.
FROM {image}
USER root
ENV WORKGYM_TASK={json.dumps(instance.task.id)} WORKGYM_SEED={instance.seed} \\
    WORKGYM_FAULTS={json.dumps(instance.faults)} WORKGYM_WORKERS=1
RUN mkdir -p /workgym
COPY start.sh /workgym/start.sh
ENTRYPOINT ["sh", "/workgym/start.sh"]
CMD ["sleep", "infinity"]
"""


START = f"""#!/bin/sh
# The WorkGym server (all in one process: the gym API, the proxy, the apps) and this task's
# episode, opened once it answers and saved to {EPISODE}; then the container's command.
python -m workgym serve >/workgym/serve.log 2>&1 &
python -m workgym episode open --task "$WORKGYM_TASK" --seed "$WORKGYM_SEED" \\
  --faults "$WORKGYM_FAULTS" --wait {START_S:.0f} --out {EPISODE} >/workgym/open.log 2>&1 &
exec "$@"
"""

# Over Harbor's own compose files: a container healthy (what `up --wait` waits for) once its
# episode is open. (A readiness check of Harbor's [environment.healthcheck] would do as well
# where `docker compose exec` reports exit codes, which the local engine here does not.)
COMPOSE = f"""services:
  main:
    environment:
      REDIS_URL: redis://redis:6379/0
    depends_on:
      redis: {{condition: service_started}}
    healthcheck:
      test: ["CMD", "test", "-s", "{EPISODE}"]
      interval: 1s
      timeout: 5s
      retries: {START_S:.0f}
      start_period: {START_S:.0f}s
  redis:  # the episodes' store, the trial's alone: nothing persisted
    image: redis:7
    command: ["redis-server", "--save", "", "--appendonly", "no", "--protected-mode", "no"]
"""

SOLVE = f"""#!/bin/sh
# The task's reference solution, played on the open episode; its answer to {ANSWER}.
set -e
python -m workgym episode play {EPISODE} --agent reference --answer {ANSWER}
"""

TEST = f"""#!/bin/sh
# The episode finished with the agent's answer ({ANSWER}, if written): the reward to
# reward.txt, the full report (assertions, signals, faults) beside it.
set -e
python -m workgym episode finish {EPISODE} --answer {ANSWER} \\
  --report /logs/verifier/report.json > /logs/verifier/reward.txt
"""
