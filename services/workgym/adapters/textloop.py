"""An episode driven by a model's text, for the frameworks that hand the environment the
model's reply and want messages (SkyRL) or tokens (verl) back. Pure: no framework imported,
so the loop is tested without them.

A reply's tool calls (Hermes ``<tool_call>`` tags or a bare JSON call, read by
:mod:`workgym.adapters.toolcalls`) run in order and each answers with one ``tool`` message.
The episode ends, and is scored, when the model calls ``finish``, when a reply makes no tool
call at all (that reply is the final answer), or at ``max_turns`` replies."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..session import Session
from .common import tool_prompt
from .toolcalls import parse

Message = dict[str, str]


@dataclass(frozen=True)
class Turn:
    """What the environment answers to one reply."""

    observations: list[Message]
    done: bool
    reward: float  # the report's when done, else 0.0
    report: dict[str, Any] | None = None
    calls: int = 0


class TextEpisode:
    """One episode at a time on ``session``, read from and answered in text."""

    def __init__(self, session: Session, *, max_turns: int | None = None) -> None:
        self.session = session
        self.max_turns = max_turns
        self.turns = 0
        self.started: dict[str, Any] = {}
        self.report: dict[str, Any] | None = None

    def start(self, task: str, seed: int = 0, **row: Any) -> list[Message]:
        """Start an episode; its opening messages (system: brief and tools; user: the
        instruction). ``max_turns`` defaults to the episode's step budget."""
        self.started = self.session.start(task, seed, **row)
        self.turns, self.report = 0, None
        if self.max_turns is None:
            self.max_turns = int(self.started["max_steps"])
        return [{"role": "system", "content": tool_prompt(self.started["brief"], self.tools)},
                {"role": "user", "content": self.started["instruction"]}]

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list(self.started.get("tools", []))

    @property
    def episode_id(self) -> str | None:
        return self.started.get("episode_id")

    def step(self, text: str) -> Turn:
        """Run the tool calls of one reply; ends the episode when it should (module doc)."""
        if self.report is not None:
            return Turn([], True, float(self.report["reward"]), self.report)
        self.turns += 1
        parsed = parse(text)
        observations: list[Message] = []
        if not parsed.calls and not parsed.problems:  # an answer, not an action
            return self._done(observations, answer=text.strip() or None)
        if parsed.problems:
            observations.append({"role": "user", "content": "Could not read a tool call: "
                                 + "; ".join(parsed.problems)})
        for i, (name, arguments) in enumerate(parsed.calls):
            said = self.session.call_tool(name, arguments)
            observations.append({"role": "tool", "content": said["text"]})
            if said["finished"]:
                if i + 1 < len(parsed.calls):
                    observations.append({"role": "user", "content": "The calls after "
                                         "finish were not run."})
                return self._done(observations, calls=i + 1)
        if self.max_turns is not None and self.turns >= self.max_turns:
            return self._done(observations, calls=len(parsed.calls))
        return Turn(observations, False, 0.0, calls=len(parsed.calls))

    def _done(self, observations: list[Message], *, answer: str | None = None,
              calls: int = 0) -> Turn:
        report = self.end(answer)
        return Turn(observations, True, float(report["reward"]), report, calls)

    def end(self, answer: str | None = None) -> dict[str, Any]:
        """Score the episode (once) and return its report."""
        if self.report is None:
            self.report = self.session.finish(answer)
        return self.report

    def close(self) -> None:
        self.session.close()


@dataclass
class TokenRollout:
    """A whole episode as a trainer's token sequences: the model's tokens (mask 1) and the
    tool answers between them (mask 0)."""

    prompt_ids: list[int]
    response_ids: list[int] = field(default_factory=list)
    response_mask: list[int] = field(default_factory=list)
    response_logprobs: list[float] | None = None
    messages: list[Message] = field(default_factory=list)
    assistant_turns: int = 0
    tool_calls: int = 0
    report: dict[str, Any] = field(default_factory=dict)

    @property
    def num_turns(self) -> int:
        """Chat turns: the user's, the model's and the tools' answers."""
        return sum(1 for m in self.messages if m["role"] != "system")


# (context token ids) -> (new token ids, their log-probabilities or None)
Generate = Callable[[list[int]], Awaitable[tuple[list[int], list[float] | None]]]


async def run_token_episode(episode: TextEpisode, messages: list[Message], *,
                            prompt_ids: list[int], generate: Generate,
                            decode: Callable[[list[int]], str],
                            encode_observations: Callable[[list[Message]], list[int]],
                            response_length: int | None = None) -> TokenRollout:
    """Drive a started ``episode`` to its end: generate, decode, run the calls, append the
    tool answers' tokens (masked), until the episode ends or the response would pass
    ``response_length`` tokens (then it is scored as it stands). Session calls block, so
    they run in a worker thread."""
    out = TokenRollout(prompt_ids=list(prompt_ids), messages=list(messages),
                       response_logprobs=[])
    logprobs: list[float] = []
    has_logprobs = True
    while True:
        new_ids, new_logprobs = await generate(out.prompt_ids + out.response_ids)
        out.response_ids += new_ids
        out.response_mask += [1] * len(new_ids)
        has_logprobs = has_logprobs and new_logprobs is not None
        logprobs += list(new_logprobs or [0.0] * len(new_ids))
        out.assistant_turns += 1
        text = decode(new_ids)
        out.messages.append({"role": "assistant", "content": text})
        turn = await asyncio.to_thread(episode.step, text)
        out.tool_calls += turn.calls
        out.messages += turn.observations
        if turn.done:
            break
        tool_ids = encode_observations(turn.observations)
        if response_length is not None and \
                len(out.response_ids) + len(tool_ids) >= response_length:
            break
        out.response_ids += tool_ids
        out.response_mask += [0] * len(tool_ids)
        logprobs += [0.0] * len(tool_ids)
    out.report = await asyncio.to_thread(episode.end)
    if response_length is not None:
        del out.response_ids[response_length:], out.response_mask[response_length:]
        del logprobs[response_length:]
    out.response_logprobs = logprobs if has_logprobs else None
    return out
