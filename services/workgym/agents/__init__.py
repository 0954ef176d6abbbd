"""Agents: the built-in ones (the task's reference solution, the same without fault
handling (naive), a no-op, a random one, and ``flaky[:P[:SEED]]``, the reference slipping
in a share P of its episodes (:mod:`.flaky`)) and a model's, ``openai:MODEL`` (any
OpenAI-compatible chat-completions endpoint).

An agent is a function ``(env, task) -> answer | None`` that acts on an episode
already reset; the caller finishes it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..sdk import Env
from ..tasks import Task
from . import flaky
from .noop import noop
from .random_agent import random_agent
from .reference import naive, reference

Agent = Callable[[Env, Task], "str | None"]

AGENTS: dict[str, Agent] = {
    "reference": reference, "naive": naive, "noop": noop, "random": random_agent,
}
# Agents named ``KIND:MODEL``: a model behind an API.
MODEL_KINDS = ("openai",)


def check_spec(spec: str) -> str:
    """``spec`` if it names an agent (a built-in one or ``KIND:MODEL``), else ValueError."""
    kind, colon, model = spec.partition(":")
    if spec in AGENTS or (colon and kind in MODEL_KINDS and model):
        return spec
    if kind == flaky.NAME:
        flaky.parse(spec)
        return spec
    raise ValueError(f"invalid agent {spec!r}: choose a built-in one "
                     f"({', '.join(sorted(AGENTS))}, flaky[:P[:SEED]]) or openai:MODEL")


def resolve(spec: str, *, temperature: float | None = None) -> Agent:
    """The agent ``spec`` names (see :func:`check_spec`); ``temperature``: a model's sampling
    temperature (default its agent's, 0: greedy), ignored by the built-in agents."""
    if check_spec(spec) in AGENTS:
        return AGENTS[spec]
    if spec.partition(":")[0] == flaky.NAME:
        return flaky.parse(spec)
    from .openai_agent import ChatAgent

    if temperature is None:
        return ChatAgent(spec.partition(":")[2])
    return ChatAgent(spec.partition(":")[2], temperature=temperature)
