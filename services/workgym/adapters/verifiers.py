"""verifiers 0.4 (its v1 API: Taskset, Task, Toolset; the v0 ``StatefulToolEnv`` is gone):
WorkGym as a taskset whose tool server is stateful, one episode per rollout.

- :class:`WorkGymTaskset` loads tasks (the catalogue, or ``tasks``) x ``seeds``, or a task
  set's ``instances``; each task's
  prompt is its episode's instruction and its system prompt the episode's brief (both
  determined by task and seed: ``load`` reads them from an episode it then drops).
- :class:`WorkGymToolset` is the per-rollout MCP tool server: ``setup_task`` starts the
  rollout's episode, ``register`` adds one tool per episode tool (bound from its JSON schema,
  :func:`workgym.adapters.common.bind_tool`), and ``finish`` scores the episode into the
  rollout's :class:`WorkGymState` (``reward``, ``final_state_hash``).
- :class:`WorkGymTask` launches that toolset and its ``@vf.reward`` is the report's reward (0
  when the model never called ``finish``).

``load_environment(**taskset_config)`` builds the ``vf.Env`` (verifiers' single-agent env over
this taskset)::

    from workgym.adapters.verifiers import load_environment
    env = load_environment(tasks=["tracker/start-work-on-bug"], seeds=[0, 1, 2],
                           task={"tools": {"gym_url": "http://gym:8000", "api_key": "..."}})

verifiers loads tasksets by top-level package name (``vf eval <id>``); this module registers
itself as ``workgym_verifiers`` for ``load_environment``; for the ``vf`` CLI, install a
package of that name re-exporting this module's ``__all__``. Without ``gym_url`` each
toolset process serves its episode in-process."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

# verifiers ships no types: its classes are Any (each subclass below ignores misc, the error
# subclassing Any is) and its decorators untyped.
import verifiers.v1 as vf

from ..session import Session
from ..tools import FINISH
from .common import bind_tool, open_session

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

TASKSET_ID = "workgym_verifiers"


class WorkGymTaskData(vf.TaskData):  # type: ignore[misc]
    task: str
    seed: int = 0
    faults: str | list[dict[str, Any]] | None = None


class WorkGymState(vf.State):  # type: ignore[misc]
    """The rollout's episode, shared by its tool server and the scorer."""

    episode_id: str | None = None
    finished: bool = False
    reward: float | None = None
    final_state_hash: str | None = None


class WorkGymToolsetConfig(vf.ToolsetConfig):  # type: ignore[misc]
    gym_url: str | None = None
    """A WorkGym server; None: the tool server's process serves its episode itself."""
    api_key: str | None = None


class WorkGymToolset(vf.Toolset[WorkGymToolsetConfig, WorkGymState]):  # type: ignore[misc]
    TOOL_PREFIX = None  # the episode's tool names as they are (they name their app)

    def __init__(self, config: WorkGymToolsetConfig) -> None:
        super().__init__(config)
        self.session: Session | None = None
        self.started: dict[str, Any] = {}

    async def setup_task(self, task: WorkGymTask) -> None:
        """Start the rollout's episode."""
        data = task.data
        self.session = open_session(self.config.gym_url, self.config.api_key)
        options = {"faults": data.faults} if data.faults is not None else {}
        self.started = await asyncio.to_thread(self.session.start, data.task, data.seed,
                                               **options)

    def tools(self) -> list[Any]:
        """The episode's tools as functions (async: the session's calls run in a thread)."""
        def forward(name: str, arguments: dict[str, Any]) -> Any:
            return asyncio.to_thread(self.call, name, arguments)

        return [bind_tool(schema, forward) for schema in self.started.get("tools", [])]

    def register(self, mcp: MCPServer) -> None:
        for fn in self.tools():
            mcp.add_tool(self._with_state(fn), name=fn.__name__,
                         description=(fn.__doc__ or "").split("\n\nArgs:")[0])

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """One tool call of the episode; ``finish`` scores it into the rollout's state."""
        if self.session is None:
            return "No task has started."
        said = self.session.call_tool(name, arguments)
        state = self.state
        state.episode_id = self.started.get("episode_id")
        if name == FINISH and said["finished"] and not state.finished:
            report = self.session.finish()
            state.finished, state.reward = True, float(report["reward"])
            state.final_state_hash = report.get("final_state_hash")
        return str(said["text"])


class WorkGymTaskConfig(vf.TaskConfig):  # type: ignore[misc]
    tools: WorkGymToolsetConfig = WorkGymToolsetConfig()


class WorkGymTask(vf.Task[WorkGymTaskData, WorkGymState, WorkGymTaskConfig]):  # type: ignore[misc]
    @classmethod
    def toolsets(cls, config: WorkGymTaskConfig) -> list[vf.Toolset]:
        return [WorkGymToolset(config.tools)]

    @property
    def key(self) -> str:
        return f"{self.data.task}@{self.data.seed}"

    @vf.reward  # type: ignore[untyped-decorator]  # verifiers ships no types
    async def reward(self, trace: vf.Trace) -> float:
        """The episode's reward; 0 when it was never finished."""
        state = trace.state
        return float(state.reward) if getattr(state, "finished", False) else 0.0

    @vf.metric  # type: ignore[untyped-decorator]  # verifiers ships no types
    async def finished(self, trace: vf.Trace) -> float:
        return 1.0 if getattr(trace.state, "finished", False) else 0.0


class WorkGymTasksetConfig(vf.TasksetConfig):  # type: ignore[misc]
    task: WorkGymTaskConfig = WorkGymTaskConfig()
    tasks: list[str] = []
    """Task ids; empty: the whole catalogue."""
    seeds: list[int] = [0]
    faults: str | None = None
    """A fault preset for every episode; None: each task's own plan."""
    instances: list[dict[str, Any]] = []
    """Rows ``{task, seed, faults?}`` (a task set's: ``workgym.adapters.datasets.rows(set,
    "verifiers")``); given, they replace ``tasks`` x ``seeds``."""


class WorkGymTaskset(vf.Taskset[WorkGymTask, WorkGymTasksetConfig]):  # type: ignore[misc]
    def load(self) -> Iterator[WorkGymTask]:
        tools = self.config.task.tools
        session = open_session(tools.gym_url, tools.api_key)
        try:
            instances = self.config.instances or [
                {"task": name, "seed": seed, "faults": self.config.faults}
                for name in self.config.tasks or _catalogue(tools.gym_url, tools.api_key)
                for seed in self.config.seeds]
            for n, row in enumerate(instances):
                name, seed, faults = row["task"], int(row.get("seed") or 0), row.get("faults")
                options = {"faults": faults} if faults else {}
                started = session.start(name, seed, **options)  # dropped by the next
                yield WorkGymTask(WorkGymTaskData(
                    id=f"{name}@{seed}" if not self.config.instances else f"{n}:{name}@{seed}",
                    name=name, task=name, seed=seed, faults=faults,
                    prompt=started["instruction"], system_prompt=started["brief"]),
                    self.config.task)
        finally:
            session.close()


def _catalogue(url: str | None, api_key: str | None) -> list[str]:
    from .common import _get, _gym_client

    with _gym_client(url, api_key) as client:
        return [t["id"] for t in _get(client, "/v1/tasks")]


def load_environment(**taskset: Any) -> vf.Env:
    """verifiers' single-agent env over :class:`WorkGymTaskset` configured by ``taskset``
    (``tasks``, ``seeds``, ``faults`` or ``instances``, ``task={"tools": {"gym_url",
    "api_key"}}``)."""
    sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])
    config = vf.SingleAgentEnvConfig(taskset={"id": TASKSET_ID, **taskset})
    return vf.load_environment(config)


__all__ = ["WorkGymState", "WorkGymTask", "WorkGymTaskData", "WorkGymTaskset",
           "WorkGymToolset", "load_environment"]
