"""OpenEnv for real: ``create_workgym_app`` under uvicorn, OpenEnv's MCP tool client over its
WebSocket, several sessions at once, each its own environment and episode. OpenEnv is
imported by the tests, not at collection (~10 s: it brings gradio)."""

from __future__ import annotations

import asyncio

import pytest

from ..serving import serving_app
from .scripted import TASK


@pytest.mark.filterwarnings("ignore:Accessing `Tool.inputSchema` is deprecated")
def test_concurrent_sessions_each_hold_their_episode() -> None:
    from openenv.core.env_server.mcp_types import CallToolAction

    from workgym.adapters.openenv import WorkGymEnvClient, WorkGymObservation, create_workgym_app

    async def one(url: str, seed: int) -> tuple[str, str, bool, float | None]:
        env = WorkGymEnvClient(base_url=url)
        async with env:
            started = await env.reset(task=TASK, seed=seed, faults="none")
            obs = started.observation
            assert isinstance(obs, WorkGymObservation) and obs.instruction.startswith("Bug ")
            names = [t.name for t in await env.list_tools()]
            assert "tracker_get_myself" in names and names[-1] == "finish"
            me = await env.call_tool("tracker_get_myself")
            assert me["text"].startswith("HTTP 200") and me["error"] is False
            bad = await env.call_tool("tracker_get_issue", wrong=1)  # text, not an exception
            assert bad["error"] is True and "wrong" in bad["text"]
            done = await env.step(CallToolAction(tool_name="finish", arguments={}))
            return obs.episode_id, obs.instruction, done.done, done.reward

    async def run(url: str) -> list[tuple[str, str, bool, float | None]]:
        return await asyncio.gather(*(one(url, seed) for seed in (1, 2, 3)))

    with serving_app(lambda _: create_workgym_app(max_concurrent_envs=3)) as url:
        results = asyncio.run(run(url))
    assert len({r[0] for r in results}) == 3  # three episodes
    assert len({r[1] for r in results}) > 1  # of different seeds
    assert all(r[2:] == (True, 0.0) for r in results)  # finished, nothing done: 0


def test_the_observation_tells_the_agent_no_task_or_seed() -> None:
    """What reset answers is what the model is given: the instruction and the tools, never
    which task or seed the episode is (the harness reads those from ``state``)."""
    from workgym.adapters.openenv import WorkGymMCPEnv

    env = WorkGymMCPEnv()
    try:
        obs = env.reset(task=TASK, seed=5, faults="none")
        assert obs.instruction and obs.tools
        shown = obs.model_dump()
        assert "task" not in shown and "seed" not in shown and TASK not in str(shown)
        state = env.state.model_dump()  # task and seed: fields the harness adds to State
        assert (state["task"], state["seed"]) == (TASK, 5)
    finally:
        env.close()
