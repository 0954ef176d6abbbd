"""The Python SDK: one client over an in-process server or a remote one; only the httpx
transport differs.

    env = workgym.make("helpdesk/refund-standard", seed=7)      # in-process, no ports
    env = workgym.connect("http://localhost:8000", "helpdesk/refund-standard", seed=7)
    obs = env.reset()                          # obs.apps: {"checkout": url, "helpdesk": url}
    env.call("GET", "/api/v2/tickets/12", app="helpdesk")
    env.call("GET", "/v1/refunds", params={"limit": 3}, app="checkout")
    env.call_tool("helpdesk_search", {"query": "type:ticket status:open"})  # names its app
    report = env.finish(answer="...")

Failures are the one family of :mod:`workgym.errors` (a server that does not answer:
``Unreachable``; a refusal: ``Refused``; ``app="wiki"``: ``UnknownName``), each one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import httpx
import orjson

from workgym_core.chat import UserModelUnavailable
from workgym_core.credentials import find_api_key
from workgym_core.errors import WorkGymError, error_code
from workgym_core.settings import Settings

from .errors import (
    MissingApiKey,
    Refused,
    UnknownName,
    UserModelFailed,
    one_line,
    reaching,
    refusal,
)
from .tools import (
    MALFORMED,
    NOT_AN_OBJECT,
    REFRESH_TOKEN,
    ToolCatalogue,
    outcome_said,
    refused,
    said,
    tool_app,
)

if TYPE_CHECKING:  # the in-process server (the whole stack) is loaded by make() alone
    from .local import LocalServer

# "task" (the task's own plan), a preset's name ("none", "hard", ...), or fault configs.
FaultChoice = str | list[dict[str, Any]]


@dataclass(frozen=True)
class Observation:
    episode_id: str
    task: str
    seed: int
    brief: str  # who the agent is and where it works: the episode's system prompt
    instruction: str
    tools: list[dict[str, Any]]
    apps: dict[str, str]
    max_steps: int
    token: str
    refresh_token: str
    # app -> its base at the product's own base path (a server's WORKGYM_APP_PORTS): what a
    # client with a fixed base path (the Node stripe package) is pointed at.
    roots: dict[str, str] = field(default_factory=dict)


class Env:
    """One task's episodes, driven as their operator (``api_key``: creates them, gets the
    full report) while every app request carries the episode's own token, as an agent's.
    Without ``api_key`` (:func:`attach` ``as_agent``), the episode's agent alone: its gym
    calls carry its token too, so it cannot create, fork or drop episodes, and
    :meth:`finish` answers the gym's acknowledgement (``episode_id``, ``steps``), no report.

    ``client`` reaches the gym API at its ``base_url``, over the network or in-process
    (:class:`workgym.local.LoopTransport`); the Env closes it. ``new_client`` makes another
    such client, for a fork's Env (default: one to the same ``base_url`` over the network)."""

    def __init__(self, client: httpx.Client, task: str, seed: int = 0,
                 faults: FaultChoice = "task", *, api_key: str | None,
                 new_client: Callable[[], httpx.Client] | None = None,
                 user: str | None = None) -> None:
        self._http = client
        self._api_key = api_key
        self._new_client = new_client or (
            lambda: httpx.Client(base_url=client.base_url, timeout=client.timeout))
        self._operator = {"authorization": f"Bearer {api_key}"} if api_key else None
        self.faults = faults
        self.user = user
        self.task = task
        self.seed = seed
        self.observation: Observation | None = None
        self._finished = False
        self._tools: dict[str, ToolCatalogue] = {}
        # The episodes' tool schemas as last fetched, by their ETag: the same for every
        # episode of the task, so the server sends them once (a new ETag: fetched again).
        self._schemas: tuple[str, list[dict[str, Any]]] | None = None
        self.waits: list[float] = []

    @classmethod
    def inprocess(cls, server: LocalServer, task: str, seed: int = 0,
                  faults: FaultChoice = "task", user: str | None = None) -> Env:
        """An environment of ``server``, driven with its own API key."""
        return cls(server.client(), task, seed, faults, api_key=server.server.settings.api_key,
                   new_client=server.client, user=user)

    def _gym(self, method: str, path: str, **kwargs: Any) -> Any:
        """A gym API call as the operator (as the agent, without an API key): its parsed
        JSON (orjson: episode bodies carry every tool schema)."""
        kwargs.setdefault("headers", self._operator or self._auth())
        with reaching("the WorkGym server", str(self._http.base_url).rstrip("/")):
            response = self._http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise refusal(response)
        return orjson.loads(response.content) if response.content else None

    @property
    def _obs(self) -> Observation:
        if self.observation is None:
            raise RuntimeError("no episode yet: call env.reset() first")
        return self.observation

    def _auth(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._obs.token}"}

    def reset(self, seed: int | None = None) -> Observation:
        """Start a fresh episode. An unfinished previous one is dropped by the same call, and
        only if the new one is created (its state is reclaimed after the answer)."""
        if seed is not None:
            self.seed = seed
        body: dict[str, Any] = {"task": self.task, "seed": self.seed, "faults": self.faults}
        if self.user is not None:
            body["user"] = self.user
        if self.observation is not None and not self._finished:
            body["replaces"] = self.observation.episode_id
        # The tools inline the first time (one call); then only their ETag.
        created = self._gym("POST", "/v1/episodes", json=body,
                            params=None if self._schemas else {"tools": "inline"})
        self.observation = _observation(created, self._tools_of(created))
        self._finished = False
        self.waits = []
        return self.observation

    def fork(self) -> Env:
        """A new Env on a fork of this episode (``POST /v1/episodes/{id}/fork``): a new
        episode in this one's state now (its worlds, clock, steps and trajectory, actors and
        faults, and ``waits``); the two then diverge, and each is finished (or closed) on its
        own. The fork's ``reset`` starts a fresh episode of the task, as this one's does."""
        body = self._gym("POST", f"/v1/episodes/{self._obs.episode_id}/fork",
                         params=None if self._schemas else {"tools": "inline"})
        env = Env(self._new_client(), self.task, self.seed, self.faults,
                  api_key=self._api_key, new_client=self._new_client, user=self.user)
        env._schemas = self._schemas  # the same tools: the fork asks again only if they changed
        env.observation = _observation(body, env._tools_of(body))
        env.waits = list(self.waits)
        return env

    def _tools_of(self, created: dict[str, Any]) -> list[dict[str, Any]]:
        """The new episode's tool schemas: inline, else those held if their ETag is still
        the server's, else fetched from its ``tools_url``. (A server older than tools by
        reference always sends them inline, with no ETag.)"""
        etag = created.get("tools_etag", "")
        if "tools" in created:
            self._schemas = (etag, created["tools"])
        elif self._schemas is None or self._schemas[0] != etag:
            self._schemas = (etag, self._gym("GET", created["tools_url"]))
        return self._schemas[1]

    def call(self, method: str, path: str, json: Any = None, params: dict[str, Any] | None = None,
             app: str | None = None, headers: dict[str, str] | None = None) -> httpx.Response:
        """One request to an app of the episode, through the proxy (counts as a step);
        ``app``: which one (default: the task's first, as in ``obs.apps``; name it when the
        task has several; UnknownName if it has no such app); ``headers``: more request
        headers (e.g. an Idempotency-Key). A dropped connection raises httpx's TransportError,
        as any HTTP client's would (faults drop some). The episode's ``user`` model failing
        (the write it was to answer refused) raises UserModelFailed: no agent's doing."""
        apps = self._obs.apps
        if app and app not in apps:
            raise UnknownName("app", app, "this episode", apps)
        base = apps[app] if app else next(iter(apps.values()))
        response = self._http.request(method.upper(), base + path, json=json, params=params,
                                      headers={**(headers or {}), **self._auth()})
        if response.status_code == UserModelUnavailable.status_code and self.user is not None:
            try:
                code = error_code(orjson.loads(response.content))
            except orjson.JSONDecodeError:
                code = None
            if code == UserModelUnavailable.code:
                raise UserModelFailed(response.status_code, {
                    "code": code, "message": one_line(response.text)[:300]})
        return response

    def wait(self, seconds: float) -> None:
        """Wait ``seconds`` on the episode's clock (e.g. a 429's Retry-After, or a backoff):
        an episode's world time and its faults' rate limits count requests, never wall time
        (a limit refuses the next requests however long one waits), so this spends none; it
        is kept, in order, in ``waits`` (cleared by :meth:`reset`)."""
        self.waits.append(seconds)

    def refresh_token(self) -> str:
        """Trade the refresh token for a new bearer token (after a 401 token_expired)."""
        obs = self._obs
        body = self._gym("POST", f"/v1/episodes/{obs.episode_id}/token",
                         json={"refresh_token": obs.refresh_token})
        self.observation = replace(obs, token=body["token"])
        return str(body["token"])

    def _catalogue(self, app: str) -> ToolCatalogue:
        catalogue = self._tools.get(app)
        if catalogue is None:
            document = self._gym("GET", f"/v1/apps/{app}/openapi.json")
            catalogue = self._tools[app] = ToolCatalogue.from_openapi(app, document)
        return catalogue

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one tool call as a model's: ``{"text", "error", "finished", "status", "body",
        "not_sent"}`` (:func:`workgym.tools.said`). Never raises for what a model can get
        wrong (an unknown tool, arguments its schema refuses, an app's refusal, a dropped
        connection: status 0, the gym's refusal): those are ``error: true`` and text, and
        ``not_sent`` says why a call never reached an app. Raises only when there is no
        episode (RuntimeError) or the gym API does not answer (``Unreachable``)."""
        obs = self._obs
        if not isinstance(arguments, dict):
            return said(NOT_AN_OBJECT, error=True, not_sent=MALFORMED)
        try:
            if name == REFRESH_TOKEN:  # the SDK holds the token: the model learns it worked
                self.refresh_token()
                return outcome_said({"status": 200, "body": {"refreshed": True}})
            app = tool_app(name, obs.apps)
            method, path, params, body, headers = self._catalogue(app).get(name).request(
                arguments)
        except (UnknownName, WorkGymError, Refused) as exc:
            return refused(exc)
        try:
            response = self.call(method, path, json=body, params=params or None, app=app,
                                 headers=headers or None)
        except httpx.TransportError as exc:
            return outcome_said({"status": 0, "error": f"{type(exc).__name__}: {exc}"})
        try:
            payload = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            payload = response.text
        return outcome_said({"status": response.status_code, "body": payload})

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self._gym("GET", f"/v1/episodes/{self._obs.episode_id}")
        return state

    def trajectory(self) -> list[dict[str, Any]]:
        """The episode's steps as the gym recorded them (``TrajectoryStep``: each request,
        its status and answer, the faults it met), finished or not."""
        steps: list[dict[str, Any]] = self._gym(
            "GET", f"/v1/episodes/{self._obs.episode_id}/trajectory")
        return steps

    def finish(self, answer: str | None = None) -> dict[str, Any]:
        """End the episode and return its reward report (its agent's Env: the gym's
        acknowledgement)."""
        report: dict[str, Any] = self._gym(
            "POST", f"/v1/episodes/{self._obs.episode_id}/finish", json={"answer": answer})
        self._finished = True
        return report

    def _drop(self) -> None:
        """Drop the current episode if it is still held (finished ones are kept)."""
        if self.observation is None:
            return
        if not self._finished:
            self._gym("DELETE", f"/v1/episodes/{self._obs.episode_id}")
        self.observation = None

    def detach(self) -> None:
        """Close the client and leave the episode open, for another process to :func:`attach`
        to and go on with or finish."""
        self._http.close()

    def close(self) -> None:
        """Drop an unfinished episode and close the client."""
        self._drop()
        self._http.close()

    def __enter__(self) -> Env:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _observation(body: dict[str, Any], tools: list[dict[str, Any]]) -> Observation:
    """An episode as the gym API created (or forked) it, with its ``tools``."""
    return Observation(
        episode_id=body["id"], task=body["task"], seed=body["seed"], brief=body["brief"],
        instruction=body["instruction"], tools=tools, apps=body["apps"],
        max_steps=body["max_steps"], token=body["token"], refresh_token=body["refresh_token"],
        roots=body.get("roots", {}),
    )


def make(task: str, seed: int = 0, faults: FaultChoice = "task",
         settings: Settings | None = None, user: str | None = None) -> Env:
    """An environment served in this process (an in-process transport, no ports); ``user``:
    a model that words what the apps' people say, ``openai:MODEL`` (OPENAI_BASE_URL /
    OPENAI_API_KEY of this process; default: their scripts' words)."""
    from .local import local_server

    return Env.inprocess(local_server(settings), task, seed, faults, user)


def connect(base_url: str, task: str, seed: int = 0, faults: FaultChoice = "task",
            timeout: float = 60.0, api_key: str | None = None, user: str | None = None) -> Env:
    """An environment served by a WorkGym server at ``base_url``, driven with the operator's
    ``api_key`` (default: ``WORKGYM_API_KEY``, else the key ``workgym serve`` stored on this
    machine); ``user``: as :func:`make`'s, the server's endpoint."""
    return Env(httpx.Client(base_url=base_url, timeout=timeout), task, seed, faults,
               api_key=operator_key(api_key), user=user)


def attach(base_url: str, observation: Observation, faults: FaultChoice = "task",
           timeout: float = 60.0, api_key: str | None = None, *,
           as_agent: bool = False) -> Env:
    """An Env on an episode another process opened at the WorkGym server at ``base_url``
    (its ``observation``, e.g. as ``workgym episode open`` saved it); ``api_key`` as
    :func:`connect`'s; ``as_agent``: with the episode's token alone, no API key (see
    :class:`Env`). Its :meth:`Env.detach` leaves the episode open."""
    env = Env(httpx.Client(base_url=base_url, timeout=timeout), observation.task,
              observation.seed, faults, api_key=None if as_agent else operator_key(api_key))
    env.observation = observation
    return env


def operator_key(api_key: str | None = None) -> str:
    """``api_key``, else ``WORKGYM_API_KEY``, else the key ``workgym serve`` stored on this
    machine; MissingApiKey when there is none."""
    key = api_key or find_api_key()
    if not key:
        raise MissingApiKey("no operator API key: pass api_key=, set WORKGYM_API_KEY, or run "
                            "`workgym serve` once on this machine (it stores one)")
    return key
