"""verl (>= 0.9): an agent loop registered as ``"workgym"`` that owns its episode. verl
imports torch and ray, so this module is importable only where verl is installed; the
episode loop itself is :func:`workgym.adapters.textloop.run_token_episode`, tested alone.

In a verl run, import this module in the rollout workers through an agent-loop config file
(``actor_rollout_ref.rollout.agent.agent_loop_config_path``)::

    - name: workgym
      _target_: workgym.adapters.verl.WorkGymAgentLoop
      url: null            # a WorkGym server (api_key: ...), null: in-process in each worker
      max_turns: null      # default: the task's step budget

and give each dataset row ``agent_name: workgym`` and ``extra_info: {task, seed, faults?}``.
The loop starts the episode, puts its brief, tools (Hermes format) and instruction in the
prompt, alternates generation and tool calls (tool tokens masked 0), finishes the episode and
returns its reward as ``reward_score`` (verl then skips its reward function)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from verl.experimental.agent_loop.agent_loop import (
    AgentLoopBase,
    AgentLoopMetrics,
    AgentLoopOutput,
    register,
)

from .common import open_session
from .textloop import Message, TextEpisode, run_token_episode

AGENT_NAME = "workgym"


# verl is not installed by `dev` (a GPU stack): its classes are Any to mypy.
@register(AGENT_NAME)
class WorkGymAgentLoop(AgentLoopBase):  # type: ignore[misc]
    def __init__(self, *args: Any, url: str | None = None, api_key: str | None = None,
                 max_turns: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.url, self.api_key, self.max_turns = url, api_key, max_turns

    def _render(self, messages: list[Message], *, generation: bool) -> list[int]:
        text = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=generation, tokenize=False,
            **(getattr(self, "apply_chat_template_kwargs", None) or {}))
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def _observation_ids(self, observations: list[Message]) -> list[int]:
        """The tokens of tool answers that follow an assistant turn, up to the next
        assistant turn's start: the rendering of [stub, *observations] past the stub's."""
        stub: list[Message] = [{"role": "system", "content": "x"}]
        before = self._render(stub, generation=False)
        after = self._render([*stub, *observations], generation=True)
        return after[len(before):]

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        info = dict(kwargs.get("extra_info") or {})
        if "task" not in info:
            raise ValueError("a workgym row needs extra_info.task (and may give seed, faults)")
        episode = TextEpisode(open_session(info.get("url") or self.url,
                                           info.get("api_key") or self.api_key),
                              max_turns=info.get("max_turns") or self.max_turns)
        options = {"faults": info["faults"]} if info.get("faults") is not None else {}
        try:
            messages = await asyncio.to_thread(
                episode.start, info["task"], int(info.get("seed") or 0), **options)
            request_id = uuid.uuid4().hex
            metrics = {"generate": 0}

            async def generate(ids: list[int]) -> tuple[list[int], list[float] | None]:
                metrics["generate"] += 1
                out = await self.server_manager.generate(
                    request_id, prompt_ids=ids, sampling_params=sampling_params)
                return list(out.token_ids), out.log_probs

            rollout = await run_token_episode(
                episode, messages, prompt_ids=self._render(messages, generation=True),
                generate=generate,
                decode=lambda ids: self.tokenizer.decode(ids, skip_special_tokens=True),
                encode_observations=self._observation_ids,
                response_length=self.rollout_config.response_length)
        finally:
            episode.close()
        report = rollout.report
        return AgentLoopOutput(
            prompt_ids=rollout.prompt_ids, response_ids=rollout.response_ids,
            response_mask=rollout.response_mask, response_logprobs=rollout.response_logprobs,
            reward_score=float(report["reward"]), num_turns=rollout.num_turns,
            metrics=AgentLoopMetrics(),
            extra_fields={"episode_id": episode.episode_id, "task": info["task"],
                          "seed": int(info.get("seed") or 0),
                          "final_state_hash": report.get("final_state_hash"),
                          "tool_calls": rollout.tool_calls})
