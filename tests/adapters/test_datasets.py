"""A trainer's dataset from a task set (workgym.adapters.datasets): each framework's rows, fed
to its adapter's own entry point, start the episodes of the set's instances (task, seed,
fault plan), each as often as its weight."""

from __future__ import annotations

from typing import Any

import pytest

from workgym.adapters.datasets import rows
from workgym.session import Session
from workgym.tasksets import Instance, TaskSet

from .scripted import SEED, TASK

TASKSET = TaskSet([Instance(TASK, SEED, "none", weight=2, info={"rate": 0.4}),
                   Instance(TASK, 5)], name="mine")
PLAIN: list[dict[str, Any]] = [{"task": TASK, "seed": SEED, "faults": "none"}] * 2 + [
    {"task": TASK, "seed": 5, "faults": "task"}]


@pytest.fixture(scope="module")
def instructions() -> list[str]:
    """The instruction of each row's episode, as the session protocol starts it."""
    session = Session.inprocess()
    try:
        return [session.start(r["task"], r["seed"], faults=r["faults"])["instruction"]
                for r in PLAIN]
    finally:
        session.close()


def test_each_frameworks_rows_carry_the_instances_by_weight() -> None:
    assert rows(TASKSET, "openenv") == rows(TASKSET, "verifiers") == PLAIN
    assert rows(TASKSET, "skyrl") == [{"prompt": [], "env_class": "workgym", "env_extras": r}
                                      for r in PLAIN]
    assert rows(TASKSET, "trl") == [{"prompt": [{"role": "user", "content": ""}], **r}
                                    for r in PLAIN]
    assert rows(TASKSET, "verl") == [{"agent_name": "workgym", "prompt": [], "extra_info": r}
                                     for r in PLAIN]
    with pytest.raises(ValueError, match="no dataset shape for 'ray': choose from openenv, "):
        rows(TASKSET, "ray")


def test_skyrl_starts_each_rows_episode(instructions: list[str]) -> None:
    import skyrl_gym

    import workgym.adapters.skyrl  # noqa: F401 - registers "workgym"

    for row, instruction in zip(rows(TASKSET, "skyrl"), instructions, strict=True):
        env = skyrl_gym.make(row["env_class"], env_config={}, extras=row["env_extras"])
        messages, _ = env.init(row["prompt"])
        assert messages[-1] == {"role": "user", "content": instruction}
        env.close()


def test_trl_resets_to_each_rows_episode(instructions: list[str]) -> None:
    from workgym.adapters.trl import environment_factory

    cls = environment_factory([TASK])
    assert isinstance(cls, type)
    env: Any = cls()
    for row, instruction in zip(rows(TASKSET, "trl"), instructions, strict=True):
        assert env.reset(**row).endswith(instruction)
        assert env.get_reward() == 0.0


def test_verifiers_loads_the_sets_instances(instructions: list[str]) -> None:
    from workgym.adapters.verifiers import WorkGymTaskset, WorkGymTasksetConfig

    loaded = list(WorkGymTaskset(WorkGymTasksetConfig(instances=rows(TASKSET, "verifiers"))))
    assert [t.data.prompt for t in loaded] == instructions
    assert [(t.data.seed, t.data.faults) for t in loaded] == [
        (SEED, "none"), (SEED, "none"), (5, "task")]
    assert len({t.data.id for t in loaded}) == 3  # a weight's repeats are distinct tasks


@pytest.mark.filterwarnings("ignore:Accessing `Tool.inputSchema` is deprecated")  # openenv's
def test_openenv_resets_to_each_rows_episode(instructions: list[str]) -> None:
    from workgym.adapters.openenv import WorkGymMCPEnv

    env = WorkGymMCPEnv()
    for row, instruction in zip(rows(TASKSET, "openenv"), instructions, strict=True):
        assert env.reset(**row).instruction == instruction
    env.close()
