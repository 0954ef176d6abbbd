"""verifiers 0.4 (v1 API). What runs here: ``load_environment`` building verifiers' own
``SingleAgentEnv`` over the taskset (its loader, config narrowing and Env constructor),
``Taskset`` iteration (``load`` with verifiers' views), the per-rollout ``Toolset`` hooks
(``setup_task``, ``register`` on mcp's MCPServer, calls through its state sync with a
state channel) and ``Task.score``. What cannot: a rollout through ``Env.run_episode``, whose
harness program is a uv script that needs uv and PyPI (the conformance test drives the same
toolset with the scripted policy). verifiers is imported by the tests, not at collection
(~10 s)."""

from __future__ import annotations

import asyncio

from .scripted import SEED, TASK


def test_load_environment_builds_verifiers_env_over_the_taskset() -> None:
    import verifiers.v1 as vf

    from workgym.adapters.verifiers import WorkGymTask, WorkGymTaskset, load_environment

    env = load_environment(tasks=[TASK], seeds=[SEED, SEED + 1], faults="none")
    assert isinstance(env, vf.SingleAgentEnv) and isinstance(env.taskset, WorkGymTaskset)
    tasks = list(env.taskset.take(2))
    assert [t.key for t in tasks] == [f"{TASK}@{SEED}", f"{TASK}@{SEED + 1}"]
    assert all(isinstance(t, WorkGymTask) and t.data.prompt.startswith("Bug ") for t in tasks)
    assert "Jira" in (tasks[0].data.system_prompt or "")
    assert tasks[0].data.prompt != tasks[1].data.prompt  # each seed its instruction


async def _score(finished: bool = False, reward: float | None = None) -> float:
    import verifiers.v1 as vf

    from workgym.adapters.verifiers import WorkGymState, WorkGymTaskset, WorkGymTasksetConfig

    state = WorkGymState(finished=finished, reward=reward)
    [task] = WorkGymTaskset(WorkGymTasksetConfig(tasks=[TASK], seeds=[SEED]))
    trace = vf.Trace.model_construct(state=state, rewards={}, metrics={})
    await task.score(trace)
    assert trace.metrics["finished"] == (1.0 if finished else 0.0)
    return float(trace.rewards["reward"].value)


def test_the_reward_reads_the_rollouts_report() -> None:
    assert asyncio.run(_score()) == 0.0  # never finished
    assert asyncio.run(_score(finished=True, reward=1.0)) == 1.0
