"""OpenEnv (openenv-core >= 0.3): an ``MCPEnvironment`` whose MCP tools are the episode's.

Each instance holds one episode at a time (``SUPPORTS_CONCURRENT_SESSIONS``: OpenEnv's
server gives every WebSocket session its own instance). ``reset(task=..., seed=...,
faults=...)`` starts an episode and returns a :class:`WorkGymObservation` (``instruction``,
``brief``, ``tools``: what the agent is told, never the task or seed, which ``state``
keeps); its in-process FastMCP server then lists the episode's tools, each forwarding to
the session with its JSON schema as is; a call answers ``{"text", "error", "finished"}``
(MCP ``isError`` stays false: an app's refusal is text the model reads).
Calling ``finish`` scores the episode: the observation is ``done`` with the report's
``reward``, and the tool's answer carries ``reward`` and ``final_state_hash``.

    from workgym.adapters.openenv import create_workgym_app       # serve it (uvicorn)
    app = create_workgym_app(max_concurrent_envs=64)              # url=, api_key= for a server

    async with WorkGymEnvClient(base_url="http://localhost:8000") as env:   # the client
        start = await env.reset(task="tracker/start-work-on-bug", seed=3)
        start.observation.instruction, await env.list_tools()
        await env.call_tool("tracker_get_myself")
        result = await env.step(CallToolAction(tool_name="finish", arguments={}))
        result.done, result.reward
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from fastapi import FastAPI
from fastmcp import FastMCP
from fastmcp.tools.base import Tool, ToolResult
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation
from openenv.core.env_server.types import Action, Observation, State
from openenv.core.mcp_client import MCPToolClient
from pydantic import PrivateAttr

from ..session import Session
from ..tools import FINISH
from .common import open_session


class WorkGymObservation(Observation):
    """What ``reset`` answers: the episode and what the agent is told; never which task or
    seed it is (those stay in the environment's ``state``, the harness's)."""

    episode_id: str = ""
    brief: str = ""
    instruction: str = ""
    tools: list[dict[str, Any]] = []


class _SessionTool(Tool):
    """An episode's tool: its JSON schema as is, its calls forwarded to the environment."""

    _env: WorkGymMCPEnv = PrivateAttr()

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        said = await asyncio.to_thread(self._env._forward, self.name, arguments)
        return ToolResult(content=said["text"], structured_content=said)


class WorkGymMCPEnv(MCPEnvironment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, url: str | None = None, api_key: str | None = None) -> None:
        super().__init__(FastMCP("workgym"))
        self._url, self._api_key = url, api_key
        self._session: Session | None = None
        self._report: dict[str, Any] | None = None
        self._tool_names: list[str] = []
        self._state = State(step_count=0)

    def reset(self, seed: int | None = None, episode_id: str | None = None,
              task: str | None = None, faults: Any = None, **kwargs: Any
              ) -> WorkGymObservation:
        if not task:
            raise ValueError("reset needs task= (and may take seed=, faults=)")
        if self._session is None:
            self._session = open_session(self._url, self._api_key)
        options = {"faults": faults} if faults is not None else {}
        started = self._session.start(task, int(seed or 0), **options)
        self._report = None
        server = self.mcp_server
        for name in self._tool_names:
            server.local_provider.remove_tool(name)
        self._tool_names = []
        for schema in started["tools"]:
            function = schema["function"]
            tool = _SessionTool(name=function["name"], description=function["description"],
                                parameters=function["parameters"])
            tool._env = self
            server.add_tool(tool)
            self._tool_names.append(tool.name)
        self._state = State(episode_id=started["episode_id"], step_count=0, task=task,
                            seed=int(seed or 0))
        return WorkGymObservation(
            episode_id=started["episode_id"], brief=started["brief"],
            instruction=started["instruction"],
            tools=started["tools"])

    def _forward(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """One tool call of the episode (in a worker thread: the session blocks)."""
        if self._session is None:
            return {"text": "No task has started.", "error": True, "finished": False}
        said = self._session.call_tool(name, arguments)
        if name == FINISH and said["finished"] and self._report is None:
            self._report = self._session.finish()
            said = {**said, "reward": self._report["reward"],
                    "final_state_hash": self._report.get("final_state_hash")}
            self._state = State(**{**self._state.model_dump(), "reward": said["reward"],
                                   "final_state_hash": said["final_state_hash"]})
        return said

    def _scored(self, action: Action, obs: Observation) -> Observation:
        self._state.step_count += 1
        if isinstance(action, CallToolAction) and action.tool_name == FINISH \
                and self._report is not None:
            obs.done, obs.reward = True, float(self._report["reward"])
        return obs

    async def step_async(self, action: Action, timeout_s: float | None = None,
                         **kwargs: Any) -> Observation:
        obs = await super().step_async(action, timeout_s=timeout_s, **kwargs)
        return self._scored(action, obs)

    def step(self, action: Action, timeout_s: float | None = None,
             **kwargs: Any) -> Observation:
        return self._scored(action, super().step(action, timeout_s=timeout_s, **kwargs))

    def _step_impl(self, action: Action, timeout_s: float | None = None,
                   **kwargs: Any) -> Observation:
        return Observation(done=False, metadata={
            "error": f"unsupported action {type(action).__name__}: list or call tools"})

    @property
    def state(self) -> State:
        return self._state

    @property
    def report(self) -> dict[str, Any] | None:
        """The episode's reward report, once ``finish`` was called."""
        return self._report

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None
        super().close()


def create_workgym_app(*, url: str | None = None, api_key: str | None = None,
                       max_concurrent_envs: int = 64) -> FastAPI:
    """OpenEnv's server app over :class:`WorkGymMCPEnv` (``/ws``, ``/reset``, ``/step``,
    ``/mcp``...), one environment per WebSocket session."""
    return create_app(functools.partial(WorkGymMCPEnv, url=url, api_key=api_key),
                      CallToolAction, CallToolObservation, env_name="workgym",
                      max_concurrent_envs=max_concurrent_envs)


class WorkGymEnvClient(MCPToolClient):
    """OpenEnv's MCP tool client, whose ``reset`` keeps the episode's fields (the stock
    client keeps only done/reward/metadata of a reset)."""

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[Observation]:
        data = payload.get("observation", {})
        if "instruction" in data:
            obs = WorkGymObservation(**data, done=payload.get("done", False),
                                     reward=payload.get("reward"))
            return StepResult(observation=obs, reward=payload.get("reward"),
                              done=payload.get("done", False))
        return super()._parse_result(payload)
