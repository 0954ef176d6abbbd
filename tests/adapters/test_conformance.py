"""One scripted policy (tests/adapters/scripted.py: start progress on a bug and assign it,
reading ids from the answers) through every way WorkGym plugs into an agent or a trainer:
the session protocol in-process and over HTTP against a real `workgym serve`, that server's
MCP endpoint through the `mcp` client library, SkyRL, OpenEnv
(its server and WebSocket client), TRL's environment_factory interface, verifiers' tool server
and the verl loop's core. Every driver must end the same episode in the same state with the
same reward: 1.0, the same final_state_hash.

A driver is one function ``(task, seed) -> (reward, final_state_hash)`` in DRIVERS."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import pytest

from workgym.processes import serving
from workgym.session import Session

from ..serving import serving_app
from .scripted import (
    SEED,
    TASK,
    CharTokenizer,
    ScriptedModel,
    StateChannel,
    drive,
    scripted_generate,
)

Outcome = tuple[float, str]
Driver = Callable[[str, int], Outcome]


def via_session(session: Session, task: str, seed: int) -> Outcome:
    started = session.start(task, seed, faults="none")
    drive(started["instruction"], lambda name, args: session.call_tool(name, args)["text"])
    report = session.finish()
    session.close()
    return report["reward"], report["final_state_hash"]


def session_inprocess(task: str, seed: int) -> Outcome:
    return via_session(Session.inprocess(), task, seed)


@pytest.fixture(scope="module")
def gym_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `workgym serve` on loopback, its API key given to it and to this module's
    clients (WORKGYM_API_KEY): none of them reads one from the run's shared config dir."""
    key = "wgk_" + secrets.token_urlsafe(32)
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("served")),
           "WORKGYM_API_KEY": key}
    with pytest.MonkeyPatch.context() as patch, serving(env=env) as url:
        patch.setenv("WORKGYM_API_KEY", key)
        yield url


def via_mcp(gym_url: str, task: str, seed: int) -> Outcome:
    """The episode's tools over MCP (the `mcp` client, its bearer token); the report as the
    operator reads it over REST."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import TextContent

    from workgym.sdk import connect

    async def run(token: str, instruction: str) -> None:
        async with httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}) as http, \
                streamable_http_client(f"{gym_url}/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as mcp:
            await mcp.initialize()
            loop = asyncio.get_running_loop()

            async def call(name: str, args: dict[str, Any]) -> str:
                said = (await mcp.call_tool(name, args)).content[0]
                assert isinstance(said, TextContent), said
                return said.text

            await asyncio.to_thread(drive, instruction, lambda n, a:
                                    asyncio.run_coroutine_threadsafe(call(n, a), loop).result())

    with connect(gym_url, task, seed, faults="none") as env:
        obs = env.reset()
        asyncio.run(run(obs.token, obs.instruction))
        report = env.state()["report"]
    return report["reward"], report["final_state_hash"]


def skyrl(task: str, seed: int) -> Outcome:
    import skyrl_gym

    import workgym.adapters.skyrl  # noqa: F401 - registers "workgym"

    env = skyrl_gym.make("workgym", env_config={},
                         extras={"task": task, "seed": seed, "faults": "none"})
    messages, _ = env.init([])
    model, out = ScriptedModel(), None
    while out is None or not out["done"]:
        last = out["observations"][-1]["content"] if out else None
        out = env.step(model.reply(messages[-1]["content"], last))
    report = out["metadata"]["report"]
    env.close()
    assert out["reward"] == report["reward"]
    return out["reward"], report["final_state_hash"]


def openenv(task: str, seed: int) -> Outcome:
    from openenv.core.env_server.mcp_types import CallToolAction

    from workgym.adapters.openenv import WorkGymEnvClient, create_workgym_app

    async def run(url: str) -> Outcome:
        async with WorkGymEnvClient(base_url=url) as env:
            started = await env.reset(task=task, seed=seed, faults="none")
            results: list[Any] = []

            async def call(name: str, args: dict[str, Any]) -> str:
                results.append(await env.step(CallToolAction(tool_name=name, arguments=args)))
                return str(results[-1].observation.result["data"]["text"])

            loop = asyncio.get_running_loop()
            await asyncio.to_thread(drive, started.observation.instruction,
                                    lambda n, a: asyncio.run_coroutine_threadsafe(
                                        call(n, a), loop).result())
            last = results[-1]
            assert last.done is True
            return last.reward, last.observation.result["data"]["final_state_hash"]

    with serving_app(lambda _: create_workgym_app(max_concurrent_envs=4)) as url:
        return asyncio.run(run(url))


def trl(task: str, seed: int) -> Outcome:
    from workgym.adapters.trl import environment_factory

    cls = environment_factory([task])
    assert isinstance(cls, type)
    env = cls()
    text = env.reset(task=task, seed=seed, faults="none", prompt=[])
    drive(text, lambda name, args: getattr(env, name)(**args))
    reward = env.get_reward()
    assert env.report is not None
    return reward, env.report["final_state_hash"]


def verifiers(task: str, seed: int) -> Outcome:
    import verifiers.v1 as vf
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult, TextContent

    from workgym.adapters.verifiers import (
        WorkGymState,
        WorkGymTaskset,
        WorkGymTasksetConfig,
    )

    [task_] = WorkGymTaskset(WorkGymTasksetConfig(tasks=[task], seeds=[seed], faults="none"))
    [toolset] = type(task_).toolsets(task_.config)
    channel = StateChannel(WorkGymState())

    async def run() -> Outcome:
        toolset._state_client = httpx.AsyncClient(transport=httpx.ASGITransport(channel))
        await toolset.setup_task(task_)
        mcp = MCPServer("workgym")
        toolset.register(mcp)
        loop = asyncio.get_running_loop()

        async def call(name: str, args: dict[str, Any]) -> str:
            result = await mcp.call_tool(name, args)
            assert isinstance(result, CallToolResult), result
            said = result.content[0]
            assert isinstance(said, TextContent), said
            return said.text

        await asyncio.to_thread(drive, str(task_.data.prompt), lambda n, a:
                                asyncio.run_coroutine_threadsafe(call(n, a), loop).result())
        await toolset._state_client.aclose()
        trace = vf.Trace.model_construct(state=channel.state, rewards={}, metrics={})
        await task_.score(trace)
        return trace.rewards["reward"].value, channel.state.final_state_hash

    with mock.patch.dict(os.environ, {"VF_STATE_URL": "http://rollout/state",
                                      "VF_STATE_SECRET": "s"}):
        return asyncio.run(run())


def verl_core(task: str, seed: int) -> Outcome:
    from workgym.adapters.common import open_session
    from workgym.adapters.textloop import TextEpisode, run_token_episode

    tokenizer = CharTokenizer()

    def render(messages: list[dict[str, str]], generation: bool) -> list[int]:
        return tokenizer.encode(tokenizer.apply_chat_template(
            messages, add_generation_prompt=generation, tokenize=False))

    episode = TextEpisode(open_session())
    messages = episode.start(task, seed, faults="none")
    rollout = asyncio.run(run_token_episode(
        episode, messages, prompt_ids=render(messages, True),
        generate=scripted_generate(tokenizer), decode=tokenizer.decode,
        encode_observations=lambda obs: render(obs, True)))
    episode.close()
    return rollout.report["reward"], rollout.report["final_state_hash"]


DRIVERS: dict[str, Driver] = {
    "session-inprocess": session_inprocess,
    "skyrl": skyrl,
    "openenv": openenv,
    "trl": trl,
    "verifiers": verifiers,
    "verl-core": verl_core,
}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Accessing `Tool.inputSchema` is deprecated")  # openenv's
@pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated")  # verifiers' tenacity
def test_every_adapter_ends_the_same_episode_the_same_way(gym_url: str) -> None:
    outcomes = {name: driver(TASK, SEED) for name, driver in DRIVERS.items()}
    outcomes["session-http"] = via_session(Session.connect(gym_url), TASK, SEED)
    outcomes["mcp"] = via_mcp(gym_url, TASK, SEED)
    rewards = {name: reward for name, (reward, _) in outcomes.items()}
    assert rewards == dict.fromkeys(outcomes, 1.0)
    hashes = {state for _, state in outcomes.values()}
    assert len(hashes) == 1 and re.fullmatch(r"[0-9a-f]{64}", hashes.pop()), outcomes


def test_the_conformance_drivers_are_every_adapter() -> None:
    adapters = Path(__file__).parents[2] / "services" / "workgym" / "adapters"
    frameworks = {p.stem for p in adapters.glob("*.py")} - {
        "__init__", "common", "toolcalls", "textloop", "verl", "datasets"}
    assert frameworks <= set(DRIVERS), frameworks - set(DRIVERS)
