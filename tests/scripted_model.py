"""A scripted OpenAI-compatible chat-completions endpoint on loopback, for every test of a
model's part (the agent ``openai:MODEL``, calibration, the LLM customer): the request's
``model`` names the script, a function of the conversation that returns the assistant's
message. Served by uvicorn (:func:`tests.serving.serving_app`), so OpenAI's own client talks
to it over HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from .serving import serving_app

Script = Callable[[list[dict[str, Any]]], dict[str, Any]]  # messages -> assistant message


def usage(turn: int) -> dict[str, int]:
    """The scripted usage of the model's turn ``turn`` (0-based)."""
    return {"prompt_tokens": 1000 + 10 * turn, "completion_tokens": 20 + turn,
            "total_tokens": 1020 + 11 * turn}


@dataclass
class FakeModel:
    """A scripted OpenAI-compatible chat-completions endpoint: the model's name picks the
    script; ``failures`` are statuses answered (and retried) before the next completions;
    after ``dies_after`` completions, every request is answered 503 (a server going down)."""

    url: str
    scripts: dict[str, Script] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)
    dies_after: int | None = None

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        async def models() -> dict[str, Any]:
            return {"object": "list", "data": [{"id": name, "object": "model", "created": 0,
                                                "owned_by": "test"} for name in self.scripts]}

        @app.post("/v1/chat/completions")
        async def complete(request: Request) -> JSONResponse:
            body = await request.json()
            self.requests.append(body)
            self.keys.append(request.headers.get("authorization", ""))
            if self.dies_after is not None and len(self.requests) > self.dies_after:
                self.failures.append(503)
            if self.failures:
                status = self.failures.pop(0)
                return JSONResponse({"error": {"message": "overloaded", "type": "server_error"}},
                                    status_code=status, headers={"retry-after-ms": "10"})
            if request.headers.get("authorization") == "Bearer wrong":
                return JSONResponse({"error": {"message": "Incorrect API key provided",
                                               "type": "invalid_request_error"}}, 401)
            script = self.scripts.get(body["model"])
            if script is None:
                return JSONResponse({"error": {
                    "message": f"The model `{body['model']}` does not exist.",
                    "type": "NotFoundError"}}, 404)
            message = script(body["messages"])
            turn = sum(m["role"] == "assistant" for m in body["messages"])
            return JSONResponse({
                "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion",
                "created": 0, "model": body["model"],
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if message.get("tool_calls")
                             else "stop"}],
                "usage": usage(turn)})

        return app


@contextmanager
def scripted_model(scripts: Mapping[str, Script]) -> Iterator[FakeModel]:
    """A :class:`FakeModel` serving ``scripts`` (model name -> script) for the block; its
    ``url`` is the base URL a client takes (``.../v1``)."""
    model = FakeModel(url="", scripts=dict(scripts))

    def app(url: str) -> Any:
        model.url = f"{url}/v1"
        return model.app()

    with serving_app(app, lifespan="off"):
        yield model
