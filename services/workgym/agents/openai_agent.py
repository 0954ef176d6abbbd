"""A model's agent, ``openai:MODEL``: any OpenAI-compatible chat-completions endpoint
(OpenAI, a local vLLM or llama.cpp server, a proxy), through OpenAI's own ``openai`` client,
the extra ``pip install 'workgym[openai]'``.

    agent = ChatAgent("gpt-4.1-mini")          # OPENAI_BASE_URL / OPENAI_API_KEY, else OpenAI
    env = workgym.make("tracker/start-work-on-bug", seed=3)
    env.reset()
    task = catalogue().get(env.task)           # from workgym.tasks import catalogue
    report = env.finish(answer=agent(env, task))
    agent.usage.pop(report["episode_id"])      # {"prompt_tokens", ..., "requests", "turns"}

The conversation: the episode's brief is the system prompt, its instruction the first user
message, its tools (and the session's ``finish``) the model's tools. Every tool call goes
through the session protocol (:class:`workgym.session.Session`), whose text the model reads
back as the ``tool`` message; nothing the model gets wrong raises (an unknown tool, arguments
that are not JSON or do not fit). The episode ends when the model calls ``finish`` (its
``answer`` is the agent's answer), replies without a tool call (its text is the answer), or
has spent the step budget (the answer is then None).

**Step budget**: tool calls, not model turns, as the gym counts an episode's steps (its app
requests). Every tool call the model makes but ``finish`` spends one, the ones that never
reach an app included (invalid JSON, an unknown tool), so a model that only writes broken
calls still stops. Once the budget is spent, the model's next call ends the episode unless it
is ``finish`` (always honoured), so the model may still say its answer; turns are bounded
by the budget + 1. Default: the episode's own ``max_steps``.

**Retries**: transient endpoint failures (408, 409, 429 with its ``Retry-After``, 5xx,
timeouts, dropped connections) are retried by the client with exponential backoff
(``max_retries``, ``timeout`` per request). What cannot be retried (401, a model the
endpoint does not serve, a request it refuses) or retries exhausted raise
:class:`ModelEndpointError`, a :class:`~workgym_core.errors.WorkGymError` (the CLI prints
``workgym: error: ...``).

**Preflight**: :meth:`ChatAgent.check` asks the endpoint for its models (``GET
{base}/models``, which OpenAI, vLLM, llama.cpp and Ollama serve) and raises
ModelEndpointError naming what to check when it does not answer, refuses the key or does
not serve the model.

**Transcripts**: set ``agent.transcripts = {}`` and each episode's conversation (the
messages as the model got them, its last reply included) is kept there by episode id; a
runner pops the entries it has read (``workgym bench --trajectories``).

**Usage**: per episode, ``agent.usage[episode_id]`` sums the responses' ``usage``
(``prompt_tokens``, ``completion_tokens``, ``total_tokens``), ``turns`` (completions the model
gave) and ``requests`` (HTTP requests they took, retries included). The entry appears when
the episode starts and grows with each turn (also when the agent raises); one agent may run
episodes in many threads, and a runner pops the entries it has read. Nothing is printed or
logged above DEBUG.

**Calls never sent**: per episode, ``agent.not_sent[episode_id]`` counts the tool calls that
never reached an app, by why (:data:`workgym.tools.NOT_SENT`: arguments not JSON or not
fitting, an unknown tool, ...), kept and popped as ``usage`` is; the gym's recorded steps have
the others (``workgym bench``'s ``tool_calls``, :mod:`workgym.bench.health`).

**Determinism**: ``temperature=0`` by default (greedy decoding); ``seed`` is sent when given.
Reasoning models that refuse a temperature take ``temperature=None`` (not sent). Any other
parameter of the request (``max_completion_tokens``, a server's ``extra_body``) goes in
``params``.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from workgym_core import chat
from workgym_core.chat import INSTALL as INSTALL
from workgym_core.chat import ModelEndpointError as ModelEndpointError
from workgym_core.errors import ConfigError

from ..sdk import Env
from ..session import Session
from ..tasks import Task
from ..tools import FINISH, FINISH_TOOL, MALFORMED

if TYPE_CHECKING:
    import openai

log = logging.getLogger(__name__)

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "requests", "turns")
NEEDS = "the openai:MODEL agent"


class ChatAgent:
    """An agent ``(env, task) -> answer | None`` that lets ``model`` act by tool calls (see
    the module docstring for the loop, the step budget, retries and usage).

    ``base_url``/``api_key``: the endpoint (default: ``OPENAI_BASE_URL``/``OPENAI_API_KEY``,
    a placeholder key when only a base URL is set); ``max_steps``: tool calls per episode
    (default: the episode's budget); ``max_retries``/``timeout``: per request;
    ``temperature``/``seed``: sent when not None; ``params``: more arguments of
    ``chat.completions.create``."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 max_steps: int | None = None, max_retries: int = 5, timeout: float = 300.0,
                 temperature: float | None = 0.0, seed: int | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        if not model:
            raise ConfigError("the openai agent needs a model: openai:MODEL")
        if max_steps is not None and max_steps < 1:
            raise ConfigError(f"max_steps must be at least 1, not {max_steps}")
        self.model = model
        self.max_steps = max_steps
        self._client: openai.OpenAI = chat.client(
            NEEDS, base_url=base_url, api_key=api_key, max_retries=max_retries, timeout=timeout)
        self._endpoint = chat.endpoint(self._client)
        self._options: dict[str, Any] = dict(params or {})
        if temperature is not None:
            self._options["temperature"] = temperature
        if seed is not None:
            self._options["seed"] = seed
        self._lock = threading.Lock()
        self.usage: dict[str, dict[str, int]] = {}
        self.not_sent: dict[str, Counter[str]] = {}
        self.transcripts: dict[str, list[dict[str, Any]]] | None = None

    def __repr__(self) -> str:
        return f"ChatAgent({self.model!r}, base_url={self._endpoint!r})"

    def close(self) -> None:
        """Let go of the client's connections."""
        self._client.close()

    def check(self) -> None:
        """Preflight: the endpoint answers ``GET {base}/models``, takes the key and serves the
        model; else ModelEndpointError naming what to check. One retry, 10 s."""
        chat.check(self._client, self.model, "--agent")

    def __call__(self, env: Env, task: Task) -> str | None:
        session = Session.attach(env)
        obs = env.observation
        assert obs is not None  # attach checked it
        budget = self.max_steps if self.max_steps is not None else obs.max_steps
        tools = [*obs.tools, FINISH_TOOL]
        messages: list[dict[str, Any]] = [{"role": "system", "content": obs.brief},
                                          {"role": "user", "content": obs.instruction}]
        usage = dict.fromkeys(USAGE_KEYS, 0)
        unsent: Counter[str] = Counter()
        with self._lock:
            self.usage[obs.episode_id] = usage
            self.not_sent[obs.episode_id] = unsent
            if self.transcripts is not None:
                self.transcripts[obs.episode_id] = messages
        steps = 0
        while True:
            message = self._complete(messages, tools, usage)
            calls = list(message.tool_calls or [])
            if not calls:  # a reply without a tool call: its text is the answer
                log.debug("%s: answered without a tool call", obs.episode_id)
                messages.append({"role": "assistant", "content": message.content})
                return (message.content or "").strip() or None
            messages.append(_assistant(message.content, calls))
            for call in calls:
                name, arguments, said = _parse(call)
                if name == FINISH and arguments is not None:  # honoured past the budget too
                    session.call_tool(FINISH, arguments)
                    return session.answer
                if steps >= budget:
                    log.debug("%s: step budget (%d) spent", obs.episode_id, budget)
                    return None
                steps += 1
                if arguments is None:
                    unsent[MALFORMED] += 1
                else:
                    result = session.call_tool(name, arguments)
                    said = str(result["text"])
                    if result["not_sent"]:
                        unsent[result["not_sent"]] += 1
                messages.append({"role": "tool", "tool_call_id": call.id, "content": said})

    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                  usage: dict[str, int]) -> Any:
        """The model's next message (its usage added to ``usage``)."""
        with chat.answering(self._client, f"model {self.model!r}"):
            # JSON dicts, not the SDK's TypedDicts: what the episode gave and the model said
            create: Any = self._client.chat.completions.with_raw_response.create
            raw = create(model=self.model, messages=messages, tools=tools, **self._options)
            response = raw.parse()
        usage["requests"] += 1 + int(getattr(raw, "retries_taken", 0))
        usage["turns"] += 1
        counted = getattr(response, "usage", None)
        if counted is not None:
            prompt = int(counted.prompt_tokens or 0)
            completion = int(counted.completion_tokens or 0)
            usage["prompt_tokens"] += prompt
            usage["completion_tokens"] += completion
            usage["total_tokens"] += int(counted.total_tokens or prompt + completion)
        choices = getattr(response, "choices", None)
        if not choices:
            raise ModelEndpointError(
                f"the model endpoint {self._endpoint} answered no choices for {self.model!r}")
        return choices[0].message


def _parse(call: Any) -> tuple[str, dict[str, Any] | None, str]:
    """(tool name, arguments, "") of a tool call, or (name, None, what is wrong with it)."""
    function = getattr(call, "function", None)
    if call.type != "function" or function is None:
        return "", None, f"error: unsupported tool call type {call.type!r}: call a function"
    name = str(function.name)
    text = (function.arguments or "").strip()
    try:
        arguments = orjson.loads(text) if text else {}
    except orjson.JSONDecodeError as exc:
        return name, None, (f"error: the arguments of {name} are not valid JSON ({exc}); "
                            "call it again with a JSON object that fits its parameters")
    if not isinstance(arguments, dict):
        return name, None, (f"error: the arguments of {name} must be a JSON object, "
                            f"not {type(arguments).__name__}")
    return name, arguments, ""


def _assistant(content: str | None, calls: list[Any]) -> dict[str, Any]:
    """The model's turn as it goes back into the conversation."""
    return {"role": "assistant", "content": content, "tool_calls": [
        {"id": call.id, "type": call.type,
         "function": {"name": call.function.name, "arguments": call.function.arguments}}
        if getattr(call, "function", None) is not None else call.model_dump(exclude_none=True)
        for call in calls]}
