"""SkyRL (skyrl-gym 0.4): a ``BaseTextEnv`` registered as ``"workgym"``.

Importing this module registers it. In a SkyRL run: ``environment.env_class=workgym``, the
dataset's ``env_extras`` carry ``{"task": ..., "seed": ..., "faults"?: ..., "max_turns"?: ...}``,
and ``environment.skyrl_gym.workgym`` (the ``env_config``) may carry ``url`` and ``api_key``
(else the in-process server)::

    import workgym.adapters.skyrl  # registers "workgym"
    env = skyrl_gym.make("workgym", env_config={}, extras={"task": "tracker/start-work-on-bug",
                                                           "seed": 3})
    prompt, info = env.init([])                    # system (brief + tools) + instruction
    out = env.step('<tool_call>{"name": "tracker_get_myself", "arguments": {}}</tool_call>')

``init(prompt)`` starts the episode; the prompt's own messages, if any, follow the episode's
(so a dataset may add instructions). ``step(text)`` runs the reply's tool calls (see
:mod:`workgym.adapters.textloop` for when it ends); the reward is the report's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skyrl_gym import register, registry
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput, ConversationType

from .common import open_session
from .textloop import TextEpisode

ENV_ID = "workgym"


def _get(config: Any, key: str) -> Any:
    if config is None:
        return None
    if isinstance(config, Mapping):
        return config.get(key)
    return getattr(config, key, None)  # a DictConfig or a dataclass


# skyrl-gym ships no types: its classes are Any, and subclassing Any is an error.
class WorkGymTextEnv(BaseTextEnv):  # type: ignore[misc]
    """One WorkGym episode per instance, as SkyRL makes one env per trajectory."""

    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None) -> None:
        super().__init__()
        extras = dict(extras or {})
        if "task" not in extras:
            raise ValueError("env_extras needs 'task' (and may give 'seed', 'faults', "
                             "'max_turns')")
        self.task: str = extras["task"]
        self.seed = int(extras.get("seed") or 0)
        # SkyRL adds its own keys to the extras: only the session's options go on.
        self.row = {"faults": extras["faults"]} if extras.get("faults") is not None else {}
        url = extras.get("url") or _get(env_config, "url")
        api_key = extras.get("api_key") or _get(env_config, "api_key")
        max_turns = extras.get("max_turns") or _get(env_config, "max_turns")
        self.episode = TextEpisode(open_session(url, api_key),
                                   max_turns=int(max_turns) if max_turns else None)

    def init(self, prompt: ConversationType) -> tuple[ConversationType, dict[str, Any]]:
        opening = self.episode.start(self.task, self.seed, **self.row)
        self.max_turns = self.episode.max_turns
        return [*opening, *(prompt or [])], {"episode_id": self.episode.episode_id,
                                             "tools": self.episode.tools}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        turn = self.episode.step(action)
        self.turns = self.episode.turns
        metadata: dict[str, Any] = {"episode_id": self.episode.episode_id,
                                    "tool_calls": turn.calls}
        if turn.report is not None:
            metadata["report"] = turn.report
        return BaseTextEnvStepOutput(observations=turn.observations, reward=turn.reward,
                                     done=turn.done, metadata=metadata,
                                     postprocessed_action=None)

    def get_metrics(self) -> dict[str, Any]:
        report = self.episode.report or {}
        return {"turns": self.episode.turns, "reward": report.get("reward", 0.0)}

    def close(self) -> None:
        self.episode.close()


def register_env(env_id: str = ENV_ID) -> None:
    """Register :class:`WorkGymTextEnv` as ``env_id`` (once: importing this module did)."""
    if env_id not in registry:
        register(id=env_id, entry_point=f"{__name__}:WorkGymTextEnv")


register_env()
