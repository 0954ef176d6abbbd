"""Task instances as Harbor tasks (https://harborframework.com): a directory per instance (a
task at a seed, under a fault plan: :class:`workgym.tasksets.Instance`), which Harbor's agents
run in a container that holds neither the task's files nor the gym's API key.

    <out>/<suite>.<name>.seed<N>[.<faults>]/   (the fault plan named when not the task's own)
      task.toml         Harbor's config: our task, seed, faults, suite, tags, difficulty in
                        [metadata], the environment version in [metadata.env_version]; the
                        agent's and the verifier's timeouts
      instruction.md    the episode's instruction and brief, and how to reach the apps
      environment/      two containers and a Redis (docker-compose.yaml, merged over Harbor's
                        own): `gym`, the WorkGym image as it is, serves the gym API and the
                        apps at http://gym:8000, generates its API key (kept in its own
                        filesystem), opens this instance's episode and writes it (the apps'
                        URLs, the episode's token, its tools: no key) to a volume; then
                        publishes the episode's report there once it is finished (`workgym
                        episode report`). `main`, the agent's, is the Dockerfile: the WorkGym
                        image without its task files (the `workgym episode` commands still
                        run), the volume mounted read-only, healthy once the episode is there
                        (Harbor's `up --wait` waits for it). Redis is on a network of the
                        gym's alone: the agent reaches the apps and the gym API, with its token
      solution/         solve.sh: the reference played on the episode with its token alone
                        (`workgym episode play`); tasks/<suite>/<name>.yaml, the task's file it
                        reads the reference from: Harbor copies solution/ in for its oracle only
      tests/test.sh     `workgym episode finish --published` with the agent's answer: the
                        episode finished with its token, its report as the gym published it;
                        the reward to /logs/verifier/reward.txt, the report beside it

The instruction of a task at a seed is rendered from its seeded world: each is read from an
episode served in this process. Same selection, same bytes.
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

from .tasks import Task, catalogue, task_roots
from .tasksets import Instance

IMAGE = "workgym-gym:latest"  # what `make harbor` tags this checkout's gym image as
GYM_URL = "http://gym:8000"  # the gym service, as main reaches it (and the gym itself)
SHARED = "/workgym/episode"  # the volume: the gym writes, main reads
EPISODE = f"{SHARED}/episode.json"
REPORT = f"{SHARED}/report.json"
ANSWER = "/workgym/answer.txt"
AGENT_TIMEOUT_S = 1800.0
VERIFIER_TIMEOUT_S = 300.0
START_S = 300.0  # the server's start and the episode's first seeding, on a slow machine


def directory(instance: Instance) -> str:
    plan = "" if instance.faults == "task" else f".{instance.faults}"
    return f"{instance.task.replace('/', '.')}.seed{instance.seed}{plan}"


def write(selected: list[Instance], out: Path, *, image: str = IMAGE, force: bool = False,
          progress: Callable[[str], None] = lambda line: None) -> list[Path]:
    """Write a Harbor task directory per distinct instance of ``selected`` (a weight is a
    trainer's: one directory each) under ``out`` (refused when ``out`` holds anything, unless
    ``force``: then it is emptied first). Returns the directories."""
    import workgym

    from .errors import WorkGymClientError

    if out.exists() and any(out.iterdir()):
        if not force:
            raise WorkGymClientError(f"--out {out} is not empty (--force replaces what it "
                                     "holds)")
        shutil.rmtree(out)
    distinct = list({instance.key: instance for instance in selected}.values())
    tasks = catalogue()
    written = []
    for number, instance in enumerate(distinct, 1):
        name = directory(instance)
        progress(f"harbor: {number}/{len(distinct)} {name}")
        task = tasks.get(instance.task)
        with workgym.make(task.id, seed=instance.seed, faults=instance.faults) as env:
            observation = env.reset()
        files = {
            "task.toml": task_toml(instance, task),
            "instruction.md": instruction(observation.instruction, observation.brief,
                                          observation.max_steps),
            "environment/Dockerfile": dockerfile(instance, image),
            "environment/docker-compose.yaml": compose(instance, image),
            "solution/solve.sh": SOLVE,
            f"solution/tasks/{task.id}.yaml": _task_file(task).read_text(),
            "tests/test.sh": TEST,
        }
        root = out / name
        for file, text in files.items():
            path = root / file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            if file.endswith(".sh"):
                path.chmod(0o755)
        written.append(root)
    return written


def _task_file(task: Task) -> Path:
    """The file ``task`` was read from (a catalogue defines each task once)."""
    return next(path for root in task_roots() if (path := root / f"{task.id}.yaml").is_file())


def _toml(value: object) -> str:
    """A TOML value: a string (JSON's escapes are TOML's), a number, or a list of them."""
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return json.dumps(value)


def task_toml(instance: Instance, task: Task) -> str:
    from .envversion import current

    version = current()
    sections: dict[str, dict[str, object]] = {
        "task": {"name": f"workgym/{directory(instance)}", "description": task.title,
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

A WorkGym server (`{GYM_URL}`) holds your episode of this task, open. Its details are in
`{EPISODE}` (JSON):

- `apps`: each app's base URL; call its HTTP API there (e.g. `GET <apps.helpdesk>/api/v2/tickets`);
- `token`: send `Authorization: Bearer <token>` with every request;
- `tools`: the apps' operations as function schemas (method, path, parameters);
- `refresh_token`: after a `401 token_expired`, `POST /v1/episodes/<episode_id>/token` on the
  server (`url`) with `{{"refresh_token": "<refresh_token>"}}` gives a new token.

The apps answer like the products they stand for, faults included: some requests fail,
time out or are rate limited, as in production. At most {max_steps} requests count.

When you are done, write your final answer (what you would reply to the requester) to
`{ANSWER}`. The apps' final state and that answer are scored.
"""


def dockerfile(instance: Instance, image: str) -> str:
    return f"""# The agent's container for {instance.task} at seed {instance.seed}: the WorkGym
# image (`make images`, its gym target) without the task files (references, verifiers, near
# misses: the gym service's alone), so `workgym episode` runs here but reads no answer. The
# episode, from the gym service, is in {SHARED}/ (a volume, read-only here).
FROM {image}
USER root
RUN rm -rf /app/tasks && mkdir -p /app/tasks /workgym
"""


def _gym_script(instance: Instance) -> str:
    """The gym service's command: the server, then the episode opened and saved, then its
    report published once it is finished (the server runs on behind them)."""
    workgym = "python -m workgym"
    return "\n".join([
        "set -e",
        f"{workgym} serve --host 0.0.0.0 --port 8000 &",
        f"{workgym} episode open --task {shlex.quote(instance.task)} --seed {instance.seed} "
        f"--faults {shlex.quote(instance.faults)} --url {GYM_URL} --wait {START_S:.0f} "
        f"--out {EPISODE}",
        f"{workgym} episode report {EPISODE} --out {REPORT}",
        "wait",
    ])


def compose(instance: Instance, image: str) -> str:
    """Over Harbor's own compose files (its `main` built from the Dockerfile, on the
    project's default network)."""
    return f"""services:
  main:  # the agent's: no task file, no API key; healthy once its episode is open
    depends_on:
      gym: {{condition: service_started}}
    volumes: ["episode:{SHARED}:ro"]
    healthcheck:
      test: ["CMD", "test", "-s", "{EPISODE}"]
      interval: 1s
      timeout: 5s
      retries: {START_S:.0f}
      start_period: {START_S:.0f}s
  gym:  # the gym API and the apps; its API key is generated here and stays here
    image: {json.dumps(image)}
    user: root  # writes the volume, which Docker creates root's
    environment:
      REDIS_URL: redis://redis:6379/0
      WORKGYM_PUBLIC_URL: {GYM_URL}
      WORKGYM_WORKERS: "1"
    command: ["sh", "-c", {json.dumps(_gym_script(instance))}]
    volumes: ["episode:{SHARED}"]
    networks: [default, store]
    depends_on:
      redis: {{condition: service_started}}
  redis:  # the episodes' store, the trial's alone (nothing persisted), the gym's alone
    image: redis:7
    command: ["redis-server", "--save", "", "--appendonly", "no", "--protected-mode", "no"]
    networks: [store]
volumes:
  episode: {{}}
networks:
  store: {{internal: true}}
"""


SOLVE = f"""#!/bin/sh
# The task's reference solution (its file is beside this script: solution/ is the oracle's
# alone), played on the open episode with the episode's token; its answer to {ANSWER}.
set -e
WORKGYM_TASKS="$(dirname "$0")/tasks" python -m workgym episode play {EPISODE} \\
  --agent reference --answer {ANSWER}
"""

TEST = f"""#!/bin/sh
# The episode finished with the agent's answer ({ANSWER}, if written) and its token; the
# gym service publishes its report ({REPORT}): the reward to reward.txt, the report
# (assertions, signals, faults) beside it.
set -e
python -m workgym episode finish {EPISODE} --answer {ANSWER} --published {REPORT} \\
  --report /logs/verifier/report.json > /logs/verifier/reward.txt
"""
