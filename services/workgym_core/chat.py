"""An OpenAI-compatible chat-completions endpoint (OpenAI, a local vLLM or llama.cpp server, a
proxy), through OpenAI's own ``openai`` client (the extra ``pip install 'workgym[openai]'``):
what every model WorkGym talks to shares, the agent's (``openai:MODEL``,
``workgym.agents.openai_agent``) and the helpdesk customer's (``--user openai:MODEL``,
``replicas/helpdesk/customer_words.py``).

:func:`client` makes the client from ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` (a placeholder
key for a local server that needs none); :func:`answering` turns the client's errors into
:class:`ModelEndpointError`, naming the endpoint, what failed and what to check.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, ServiceUnavailable, UpstreamError

if TYPE_CHECKING:
    import openai

INSTALL = "pip install 'workgym[openai]'"
# The key sent to an endpoint of OPENAI_BASE_URL when none is set: local servers (vLLM,
# llama.cpp, Ollama) take any, and the client refuses to start without one.
PLACEHOLDER_KEY = "EMPTY"
# A model as options name it (``--agent``, ``--user``): ``openai:MODEL``.
MODEL_PATTERN = r"^openai:[^\s]{1,200}$"


class ModelEndpointError(UpstreamError):
    """The model's endpoint failed in a way retrying does not mend (or retries ran out).
    ``infra``: what failed, when it is the endpoint's doing and not the model's (unreachable,
    timed out, 5xx, the key or the model refused, rate limited); None when the endpoint
    refused the request the caller made (e.g. a conversation too long for the model)."""

    code = "model_endpoint_error"

    def __init__(self, message: str, *, infra: str | None = None) -> None:
        super().__init__(message)
        self.infra = infra


class UserModelUnavailable(ServiceUnavailable):
    """The model that words what an app's people say (an episode's ``user``) failed: the
    agent's write it was to answer is refused (503, naming the endpoint), and the episode is
    an infrastructure failure, never the agent's."""

    code = "user_model_unavailable"


def openai_module(needs: str) -> Any:
    """OpenAI's client package; ConfigError naming the extra when it is not installed
    (``needs``: what needs it, e.g. "the openai:MODEL agent")."""
    try:
        import openai
    except ImportError as exc:
        raise ConfigError(f"{needs} needs OpenAI's client: {INSTALL}",
                          code="missing_extra") from exc
    return openai


def client(needs: str, *, base_url: str | None = None, api_key: str | None = None,
           max_retries: int = 5, timeout: float = 300.0) -> openai.OpenAI:
    """A client of the endpoint ``base_url`` (default ``OPENAI_BASE_URL``, else OpenAI's) with
    ``api_key`` (default ``OPENAI_API_KEY``; a placeholder when only a base URL is set);
    ConfigError when there is no key for OpenAI's own endpoint."""
    module = openai_module(needs)
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        if base_url is None:
            raise ConfigError("no API key for the model's endpoint: set OPENAI_API_KEY "
                              "(or OPENAI_BASE_URL for a local server that needs none)",
                              code="missing_api_key")
        key = PLACEHOLDER_KEY
    made: openai.OpenAI = module.OpenAI(base_url=base_url, api_key=key,
                                        max_retries=max_retries, timeout=timeout)
    return made


def endpoint(made: openai.OpenAI) -> str:
    """The client's base URL, as errors name it."""
    return str(made.base_url).rstrip("/")


def check(made: openai.OpenAI, model: str, option: str) -> None:
    """Preflight: the endpoint answers ``GET {base}/models``, takes the key and serves
    ``model``; else ModelEndpointError naming what to check (``option``: where the model was
    named, e.g. ``--agent``). One retry, 10 s."""
    quick = made.with_options(max_retries=1, timeout=10.0)
    with answering(quick, "GET /models"):
        served = [m.id for m in quick.models.list()]
    if model not in served:
        raise ModelEndpointError(
            f"the model endpoint {endpoint(made)} does not serve model {model!r} (it serves "
            f"{', '.join(sorted(served)[:10]) or 'none'}): check the model's name in "
            f"{option} openai:MODEL", infra="model endpoint has no such model")


@contextmanager
def answering(made: openai.OpenAI, request: str) -> Iterator[None]:
    """The client's errors on ``request`` as ModelEndpointError: what failed, what to check,
    and ``infra`` when it is the endpoint's doing."""
    openai = openai_module("a model's endpoint")
    where = f"the model endpoint {endpoint(made)}"
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
            f"{where} did not answer {request} (after {made.max_retries} retries: {exc}): "
            "check OPENAI_BASE_URL and that the server is up",
            infra=f"model endpoint {what}") from exc
    except openai.OpenAIError as exc:  # a body the client cannot read
        raise ModelEndpointError(f"{where} failed on {request}: {exc}") from exc


def _infra(status: int) -> str | None:
    """What failed, for an endpoint's HTTP error ``status`` that is not the caller's doing."""
    if status in (401, 403):
        return "model endpoint refused the key"
    if status == 404:
        return "model endpoint has no such model"
    if status in (408, 409, 429) or status >= 500:
        return f"model endpoint HTTP {status}"
    return None


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
