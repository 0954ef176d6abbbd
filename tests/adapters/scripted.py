"""One scripted policy for every adapter's test, and the stand-ins the frameworks' loops
need without a model: a character tokenizer and a Hermes-text generator (verl), a state
channel (verifiers' tool servers), an OpenEnv server on loopback."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Generator
from typing import Any

from starlette.types import Receive, Scope, Send

TASK = "tracker/start-work-on-bug"
SEED = 3

Call = tuple[str, dict[str, Any]]
Policy = Generator[Call, str, None]


def body(text: str) -> Any:
    """The JSON body of a tool's answer (``HTTP <status>\\n<body>``)."""
    return json.loads(text.split("\n", 1)[1])


def policy(instruction: str) -> Policy:
    """Start progress on the bug the instruction names and assign it to yourself, reading
    ids from the answers (the task's reference solution, as tool calls), then finish."""
    key = re.search(r"Bug ([A-Z]+-\d+)", instruction)
    assert key, instruction
    issue = key.group(1)
    me = body((yield "tracker_get_myself", {}))["accountId"]
    transitions = body((yield "tracker_get_transitions", {"issue": issue}))["transitions"]
    start = next(t["id"] for t in transitions if t["name"] == "Start progress")
    said = yield "tracker_do_transition", {"issue": issue, "body": {"transition": {"id": start}}}
    assert said.startswith("HTTP 204"), said
    said = yield "tracker_assign_issue", {"issue": issue, "body": {"accountId": me}}
    assert said.startswith("HTTP 204"), said
    yield "finish", {"answer": f"{issue} is in progress and assigned to me."}


def drive(instruction: str, call: Callable[[str, dict[str, Any]], str]) -> list[str]:
    """Run :func:`policy` through ``call`` (name, arguments) -> the answer's text; the
    answers."""
    steps = policy(instruction)
    answers: list[str] = []
    with contextlib.suppress(StopIteration):
        name, arguments = next(steps)
        while True:
            answers.append(call(name, arguments))
            name, arguments = steps.send(answers[-1])
    return answers


def hermes(name: str, arguments: dict[str, Any]) -> str:
    return f'<tool_call>\n{json.dumps({"name": name, "arguments": arguments})}\n</tool_call>'


class ScriptedModel:
    """The policy as a text model: each reply is the next call in Hermes form, read off the
    last tool answer of the conversation it is given."""

    def __init__(self) -> None:
        self.steps: Policy | None = None

    def reply(self, instruction: str, last_answer: str | None) -> str:
        if self.steps is None:
            self.steps = policy(instruction)
            return hermes(*next(self.steps))
        assert last_answer is not None
        return hermes(*self.steps.send(last_answer))


class CharTokenizer:
    """A tokenizer with the methods verl's loop calls: one token per character, a chat
    template of ``<|role|>content<|end|>`` turns."""

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return [ord(c) for c in text]

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        return "".join(map(chr, ids))

    def apply_chat_template(self, messages: list[dict[str, str]], *,
                            add_generation_prompt: bool = False, tokenize: bool = True,
                            **kwargs: Any) -> str:
        assert not tokenize
        text = "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages)
        return text + ("<|assistant|>" if add_generation_prompt else "")


def last_turn(context: str, role: str) -> str | None:
    found = re.findall(rf"<\|{role}\|>(.*?)<\|end\|>", context, re.S)
    return found[-1] if found else None


def scripted_generate(tokenizer: CharTokenizer
                      ) -> Callable[[list[int]], Any]:
    """verl's ``generate`` for the scripted model: reads the context's instruction and last
    tool answer, answers the next call's tokens (with log-probabilities)."""
    model = ScriptedModel()

    async def generate(ids: list[int]) -> tuple[list[int], list[float]]:
        context = tokenizer.decode(ids)
        instruction = last_turn(context, "user")
        assert instruction is not None
        reply = tokenizer.encode(model.reply(instruction, last_turn(context, "tool")))
        return reply, [-0.5] * len(reply)

    return generate


class StateChannel:
    """verifiers' rollout state channel (``VF_STATE_URL``: GET and PUT the state's JSON),
    held here as the env worker holds ``trace.state``; an ASGI app."""

    def __init__(self, state: Any) -> None:
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        if scope["method"] == "PUT":
            chunks = []
            while True:
                message = await receive()
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    break
            self.state = type(self.state).model_validate_json(b"".join(chunks))
            payload = b"{}"
        else:
            payload = self.state.model_dump_json().encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": payload})
