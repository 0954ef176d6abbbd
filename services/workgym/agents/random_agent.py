"""Calls random tools with arguments drawn from their schemas: a sanity baseline."""

from __future__ import annotations

import random
from typing import Any

from ..sdk import Env
from ..session import Session
from ..tasks import Task

STEPS = 10


def _value(schema: dict[str, Any], rng: random.Random) -> Any:
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return _value(rng.choice([o for o in options if o.get("type") != "null"] or options), rng)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "integer":
        return rng.randint(schema.get("minimum", 1), min(schema.get("maximum", 600), 600))
    if kind == "number":
        return round(rng.uniform(0, 100), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [_value(schema.get("items", {}), rng) for _ in range(rng.randint(0, 2))]
    if kind == "object":
        return {}
    return rng.choice(["refund", "hello", "urgent", "billing"])


def random_agent(env: Env, task: Task) -> str | None:
    rng = random.Random(env.seed)
    tools = env.observation.tools if env.observation else []
    session = Session.attach(env)  # arguments the schema refuses are a result, as a model's
    for _ in range(STEPS):
        tool = rng.choice(tools)["function"]
        params = tool["parameters"]
        arguments = {
            name: _value(schema, rng) for name, schema in params["properties"].items()
            if name in params["required"] or rng.random() < 0.3
        }
        session.call_tool(tool["name"], arguments)
    return None
