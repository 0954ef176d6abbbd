"""Request and response bodies of the gym API."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from workgym_core.chat import MODEL_PATTERN

from ..presets import fault_presets


def _known_plan(name: str) -> str:
    if name != "task" and name not in fault_presets():
        raise ValueError(f"not a fault plan: {name!r} (task, {', '.join(fault_presets())})")
    return name


PlanName = Annotated[str, Field(max_length=40), AfterValidator(_known_plan)]


class EpisodeCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: str = Field(description="Task id, e.g. 'helpdesk/refund-standard'.", max_length=200)
    seed: int = Field(0, ge=0, le=2**31 - 1, strict=True,
                      description="World seed; same seed, same world.")
    faults: PlanName | list[dict[str, Any]] = Field(
        "task", description="Fault plan: the task's own (task), a preset (none, hard, "
        "jira-write-limit: GET /v1/faults lists them), or a list of fault configs.")
    user: str | None = Field(
        None, pattern=MODEL_PATTERN, description="A model that words what the apps' people "
        "say (the helpdesk's customer), as tau2-bench's user simulator: openai:MODEL, any "
        "OpenAI-compatible endpoint (the server's OPENAI_BASE_URL / OPENAI_API_KEY). What "
        "they tell stays the task's script. Default: the script's own words.")
    replaces: str | None = Field(
        None, max_length=64, description="An episode of yours this one takes the place of (a "
        "rollout loop's previous one): dropped as this one is created, as DELETE would, and "
        "only if this one is; one already gone is no error.")


class EpisodeCreated(BaseModel):
    id: str = Field(description="Episode id.")
    token: str = Field(description="Bearer token scoping every request to this episode.")
    refresh_token: str = Field(
        description="Mints a new token (POST /v1/episodes/{id}/token) after one expires.")
    task: str
    seed: int
    brief: str = Field(description="Who the agent is and where it works: the system prompt of "
                       "the episode (its apps' briefs).")
    instruction: str = Field(description="What the agent is asked to do.")
    apps: dict[str, str] = Field(description="App name -> base URL (through the proxy).")
    roots: dict[str, str] = Field(default_factory=dict, description=(
        "App name -> its base URL at the product's own base path (the API's paths at the "
        "root: <root>/v1/customers is <apps[app]>/v1/customers), for clients that fix their "
        "base path; the same episode, by the same token. Only the apps the server gives a "
        "port of their own (WORKGYM_APP_PORTS)."))
    tools: list[dict[str, Any]] | None = Field(None, description=(
        "OpenAI function-calling tool schemas: only with ?tools=inline (otherwise the same "
        "list is at tools_url, the same for every episode of these apps)."))
    tools_url: str = Field(description="Where this gym API serves the episode's tools (a path "
                           "on it; GET with either credential, cacheable by its ETag).")
    tools_etag: str = Field(description="The ETag of those tools: a client holding them "
                            "already need not fetch them again.")
    max_steps: int = Field(description="Requests the agent may make.")
    expires_at: str = Field(description="When an unfinished episode is reclaimed (UTC).")


class EpisodeForked(EpisodeCreated):
    """A fork: a new episode in its parent's state when it was forked (world, clock, steps
    and trajectory so far, actors, faults), with tokens of its own."""

    forked_from: str = Field(description="The episode it is a fork of.")
    steps: int = Field(description="Requests made so far (the parent's, when forked).")


class EpisodeStatus(BaseModel):
    """An episode as its own agent sees it (``GET /v1/episodes/{id}`` with its token): whether
    it is running, the steps it took of its budget (an API agent has ``max_steps - steps`` left;
    a browser's page it was sent on to by a form's answer spends none), where its
    apps are and until when; never which task or seed it is an instance of, nor its report."""

    id: str
    status: str = Field(description="active, finishing, finished or lost (its replica "
                        "instance died).")
    steps: int = Field(description="Requests made so far.")
    max_steps: int = Field(description="Requests the episode may make in all (the page a "
                           "form's answer sends a browser on to is counted with the form's "
                           "post: trajectory.followed).")
    apps: dict[str, str]
    roots: dict[str, str] = Field(default_factory=dict, description=(
        "App name -> its base URL at the product's own base path (the API's paths at the "
        "root: <root>/v1/customers is <apps[app]>/v1/customers), for clients that fix their "
        "base path; the same episode, by the same token. Only the apps the server gives a "
        "port of their own (WORKGYM_APP_PORTS)."))
    expires_at: str
    lost_reason: str | None = Field(None, description="Why a lost episode was lost.")


class EpisodeView(EpisodeStatus):
    """An episode as its operator sees it: its status, the task and seed it is an instance
    of, and its report."""

    task: str
    seed: int
    created_at: str
    report: dict[str, Any] | None = Field(
        None, description="The reward report once finished.")


class FinishAck(BaseModel):
    """What the agent gets when it declares its episode finished: no verifier detail."""

    episode_id: str
    status: Literal["finished"] = "finished"
    steps: int = Field(description="Requests the episode took.")


class TokenRefresh(BaseModel):
    model_config = ConfigDict(extra="forbid")

    refresh_token: str = Field(max_length=200, description="The episode's refresh token.")


class TokenRefreshed(BaseModel):
    token: str = Field(description="The new bearer token; the old one no longer works.")


class FinishRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str | None = Field(None, max_length=20_000, description="The agent's final answer.")
