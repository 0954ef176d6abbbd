"""The verl agent loop against verl's interface as verl 0.9.1's source defines it (verl needs
torch and ray, not installed here): a stand-in ``verl.experimental.agent_loop.agent_loop``
with, from ``verl/experimental/agent_loop/agent_loop.py``:

- ``AgentLoopMetrics`` (L79: generate_sequences, tool_calls, compute_score, num_preempted),
- ``AgentLoopOutput`` (L88: prompt_ids, response_ids, response_mask, response_logprobs,
  reward_score, num_turns, metrics, extra_fields, ...),
- ``DictConfigWrap`` (L195), ``AgentLoopBase.__init__`` (L224: trainer_config,
  server_manager, tokenizer, processor, dataset_cls, data_config, hf_model_type, **kwargs;
  sets config, rollout_config, server_manager, tokenizer, apply_chat_template_kwargs),
  ``async run(sampling_params, **kwargs)`` (L449),
- ``register(agent_name)`` (L470: ``_agent_loop_registry[name] = {"_target_": fqdn}``),

and ``server_manager.generate(request_id, *, prompt_ids, sampling_params, ...) ->
TokenOutput(token_ids, log_probs, ...)`` (``workers/rollout/llm_server.py:99``,
``workers/rollout/replica.py:39``)."""

from __future__ import annotations

import asyncio
import importlib
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from .scripted import SEED, TASK, CharTokenizer, scripted_generate


class AgentLoopMetrics(BaseModel):
    generate_sequences: float = 0.0
    tool_calls: float = 0.0
    compute_score: float = 0.0
    num_preempted: int = -1


class AgentLoopOutput(BaseModel):
    prompt_ids: list[int]
    response_ids: list[int]
    response_mask: list[int]
    response_logprobs: list[float] | None = None
    routed_experts: Any | None = None
    multi_modal_data: dict[str, Any] | None = None
    reward_score: float | None = None
    num_turns: int = 0
    metrics: AgentLoopMetrics
    extra_fields: dict[str, Any] = {}


class DictConfigWrap:
    def __init__(self, config: Any) -> None:
        self.config = config


class AgentLoopBase:
    def __init__(self, trainer_config: DictConfigWrap, server_manager: Any, tokenizer: Any,
                 processor: Any, dataset_cls: type, data_config: DictConfigWrap,
                 hf_model_type: str | None = None, **kwargs: Any) -> None:
        self.config = trainer_config.config
        self.rollout_config = self.config.actor_rollout_ref.rollout
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.processor = processor
        self.dataset_cls = dataset_cls
        self.data_config = data_config.config
        self.apply_chat_template_kwargs = self.data_config.get("apply_chat_template_kwargs", {})

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        raise NotImplementedError


_agent_loop_registry: dict[str, dict[str, str]] = {}


def register(agent_name: str) -> Any:
    def decorator(subclass: type) -> type:
        _agent_loop_registry[agent_name] = {
            "_target_": f"{subclass.__module__}.{subclass.__qualname__}"}
        return subclass
    return decorator


class TokenOutput(BaseModel):
    token_ids: list[int]
    log_probs: list[float] | None = None
    num_preempted: int | None = None


@pytest.fixture
def verl_standin() -> Iterator[types.ModuleType]:
    module = types.ModuleType("verl.experimental.agent_loop.agent_loop")
    for obj in (AgentLoopMetrics, AgentLoopOutput, AgentLoopBase, DictConfigWrap, register):
        setattr(module, obj.__name__, obj)
    module._agent_loop_registry = _agent_loop_registry  # type: ignore[attr-defined]  # a stand-in module's attribute
    names = ["verl", "verl.experimental", "verl.experimental.agent_loop"]
    saved = {n: sys.modules.get(n) for n in [*names, module.__name__, "workgym.adapters.verl"]}
    for name in names:
        sys.modules[name] = types.ModuleType(name)
    sys.modules[module.__name__] = module
    sys.modules.pop("workgym.adapters.verl", None)
    yield module
    for name, found in saved.items():
        if found is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = found


class ServerManager:
    def __init__(self, tokenizer: CharTokenizer) -> None:
        self.scripted = scripted_generate(tokenizer)
        self.requests: list[str] = []

    async def generate(self, request_id: str, *, prompt_ids: list[int],
                       sampling_params: dict[str, Any], **kwargs: Any) -> TokenOutput:
        self.requests.append(request_id)
        ids, logprobs = await self.scripted(prompt_ids)
        return TokenOutput(token_ids=ids, log_probs=logprobs)


def loop_config(response_length: int) -> Any:
    rollout = types.SimpleNamespace(response_length=response_length, prompt_length=100_000)
    return types.SimpleNamespace(actor_rollout_ref=types.SimpleNamespace(rollout=rollout))


def test_the_agent_loop_owns_its_episode(verl_standin: types.ModuleType) -> None:
    adapter = importlib.import_module("workgym.adapters.verl")
    assert verl_standin._agent_loop_registry["workgym"] == {
        "_target_": "workgym.adapters.verl.WorkGymAgentLoop"}
    tokenizer = CharTokenizer()
    manager = ServerManager(tokenizer)
    loop = adapter.WorkGymAgentLoop(
        DictConfigWrap(loop_config(200_000)), manager, tokenizer, None, object,
        DictConfigWrap({}))  # hydra passes the config file's extra keys too: url=...
    out = asyncio.run(loop.run({"temperature": 1.0}, raw_prompt=[], agent_name="workgym",
                               extra_info={"task": TASK, "seed": SEED, "faults": "none"}))
    assert isinstance(out, AgentLoopOutput)
    assert out.reward_score == 1.0 and out.extra_fields["tool_calls"] == 5
    assert out.extra_fields["episode_id"].startswith("ep_")
    assert len(set(manager.requests)) == 1  # one request id: the server keeps its cache
    text = tokenizer.decode(out.prompt_ids)
    assert text.startswith("<|system|>") and "<tools>" in text and "<|user|>Bug " in text
    assert len(out.response_ids) == len(out.response_mask) == len(out.response_logprobs or [])
    model = "".join(chr(t) for t, m in zip(out.response_ids, out.response_mask, strict=True)
                    if m)
    tools = "".join(chr(t) for t, m in zip(out.response_ids, out.response_mask, strict=True)
                    if not m)
    assert model.count("<tool_call>") == 5 and "<tool_call>" not in tools
    assert tools.count("<|tool|>HTTP 20") == 4  # the finish call's answer ends the episode
    assert out.num_turns == 1 + 5 + 5  # the user's, the model's, the tools'


def test_a_long_episode_is_cut_at_the_response_length(verl_standin: types.ModuleType) -> None:
    adapter = importlib.import_module("workgym.adapters.verl")
    tokenizer = CharTokenizer()
    loop = adapter.WorkGymAgentLoop(DictConfigWrap(loop_config(300)), ServerManager(tokenizer),
                                    tokenizer, None, object, DictConfigWrap({}))
    out = asyncio.run(loop.run({}, extra_info={"task": TASK, "seed": SEED, "faults": "none"}))
    assert len(out.response_ids) <= 300 and out.reward_score == 0.0  # scored as it stood


def test_a_task_sets_rows_run_as_they_are(verl_standin: types.ModuleType) -> None:
    """A row of ``workgym.adapters.datasets.rows(taskset, "verl")`` is the loop's keywords."""
    from workgym.adapters.datasets import rows
    from workgym.tasksets import Instance, TaskSet

    adapter = importlib.import_module("workgym.adapters.verl")
    tokenizer = CharTokenizer()
    loop = adapter.WorkGymAgentLoop(DictConfigWrap(loop_config(200_000)),
                                    ServerManager(tokenizer), tokenizer, None, object,
                                    DictConfigWrap({}))
    [row] = rows(TaskSet([Instance(TASK, SEED, "none")]), "verl")
    out = asyncio.run(loop.run({}, **row))
    assert out.reward_score == 1.0 and out.extra_fields["seed"] == SEED
