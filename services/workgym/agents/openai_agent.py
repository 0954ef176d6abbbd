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
import os
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import orjson

from workgym_core.errors import ConfigError, UpstreamError

from ..sdk import Env
from ..session import Session
from ..tasks import Task
from ..tools import FINISH, FINISH_TOOL, MALFORMED

if TYPE_CHECKING:
    import openai

log = logging.getLogger(__name__)

INSTALL = "pip install 'workgym[openai]'"
# The key sent to an endpoint of OPENAI_BASE_URL when none is set: local servers (vLLM,
# llama.cpp, Ollama) take any, and the client refuses to start without one.
PLACEHOLDER_KEY = "EMPTY"
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "requests", "turns")


class ModelEndpointError(UpstreamError):
    """The model's endpoint failed in a way retrying does not mend (or retries ran out).
    ``infra``: what failed, when it is the endpoint's doing and not the model's (unreachable,
    timed out, 5xx, the key or the model refused, rate limited); None when the endpoint
    refused the request the agent made (e.g. a conversation too long for the model)."""

    code = "model_endpoint_error"

    def __init__(self, message: str, *, infra: str | None = None) -> None:
        super().__init__(message)
        self.infra = infra


def _infra(status: int) -> str | None:
    """What failed, for an endpoint's HTTP error ``status`` that is not the agent's doing."""
    if status in (401, 403):
        return "model endpoint refused the key"
    if status == 404:
        return "model endpoint has no such model"
    if status in (408, 409, 429) or status >= 500:
        return f"model endpoint HTTP {status}"
    return None


def _openai() -> Any:
    try:
        import openai
    except ImportError as exc:
        raise ConfigError(f"the openai:MODEL agent needs OpenAI's client: {INSTALL}",
                          code="missing_extra") from exc
    return openai


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
        self._openai = client_module = _openai()
        self.model = model
        self.max_steps = max_steps
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self.base_url is None:
                raise ConfigError("no API key for the model's endpoint: set OPENAI_API_KEY "
                                  "(or OPENAI_BASE_URL for a local server that needs none)",
                                  code="missing_api_key")
            key = PLACEHOLDER_KEY
        self._client: openai.OpenAI = client_module.OpenAI(
            base_url=self.base_url, api_key=key, max_retries=max_retries, timeout=timeout)
        self._endpoint = str(self._client.base_url).rstrip("/")
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
        client = self._client.with_options(max_retries=1, timeout=10.0)
        with self._answering("GET /models", retries=1):
            served = [m.id for m in client.models.list()]
        if self.model not in served:
            raise ModelEndpointError(
                f"the model endpoint {self._endpoint} does not serve model {self.model!r} (it "
                f"serves {', '.join(sorted(served)[:10]) or 'none'}): check the model's name in "
                "--agent openai:MODEL", infra="model endpoint has no such model")

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

    @contextmanager
    def _answering(self, request: str, retries: int) -> Iterator[None]:
        """The client's errors on ``request`` as ModelEndpointError: what failed, what to
        check, and ``infra`` when it is the endpoint's doing."""
        openai = self._openai
        where = f"the model endpoint {self._endpoint}"
        try:
            yield
        except openai.APIStatusError as exc:
            hint = _hint(exc.status_code) or " (check OPENAI_BASE_URL)"
            raise ModelEndpointError(
                f"{where} refused {request}: HTTP {exc.status_code}: {_reason(exc)}{hint}",
                infra=_infra(exc.status_code)) from exc
        except openai.APIConnectionError as exc:  # a timeout too; retries are spent
            what = "timed out" if isinstance(exc, openai.APITimeoutError) else "unreachable"
            raise ModelEndpointError(
                f"{where} did not answer {request} (after {retries} retries: {exc}): check "
                "OPENAI_BASE_URL and that the server is up",
                infra=f"model endpoint {what}") from exc
        except openai.OpenAIError as exc:  # a body the client cannot read
            raise ModelEndpointError(f"{where} failed on {request}: {exc}") from exc

    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                  usage: dict[str, int]) -> Any:
        """The model's next message (its usage added to ``usage``)."""
        with self._answering(f"model {self.model!r}", retries=self._client.max_retries):
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


def _reason(exc: Any) -> str:
    """The endpoint's own message (the client keeps a JSON error's ``error`` object)."""
    body = exc.body
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])
    return str(exc.message)


def _hint(status: int) -> str:
    if status in (401, 403):
        return " (check OPENAI_API_KEY)"
    if status == 404:
        return " (check the model's name and OPENAI_BASE_URL, which ends in /v1)"
    return ""
