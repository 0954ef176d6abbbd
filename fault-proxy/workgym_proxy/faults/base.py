"""What every fault plugin shares: targeting, windows, the deterministic draw, hooks.

**A window counts only the requests of its target the app accepts** (valid and authorised:
:func:`accepted`). A request the app refuses (a 4xx: invalid, unauthorised, not found, a
conflict) never takes a fault's turn, so a throw-away invalid write sent first cannot absorb
"the first refund times out": the fault waits for the first refund the app accepts. Whether
the app accepts a request is known

* for faults that act on the app's answer (``after``: a lost or cut answer, a late one,
  another actor's change after the request), from the status the app answered with;
* for faults that answer in the app's place (``before``: timeout before the write, 5xx, 429,
  connection reset, token expiry), from a **validate-only pass**: the proxy first sends the
  request with ``x-workgym-validate: 1`` (workgym_core.internal.VALIDATE_HEADER, an internal
  header only the proxy can send: agents' ``x-workgym-*`` headers are dropped, and the
  replica honours it only with the internal credential). The replica answers it exactly as
  it would, then rolls the write's transaction back, logs no change and lets no actor of the
  world answer (replicas/runtime/deps.py). Only if that pass is accepted does the fault
  fire; otherwise the request goes to the app for real and gets the app's own refusal. The
  pass is made only when a ``before`` fault would fire on the next accepted request, so
  requests no fault is waiting for cost nothing extra. Deciding on the real answer and then
  undoing it would lose what a write did to the episode's memory and actors; a pass in a
  rolled-back transaction leaves nothing behind.

Decisions stay deterministic: the same seed and the same requests give the same accepted
counts, hence the same faults.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from workgym_core import paths
from workgym_core.errors import WorkGymError


@dataclass
class Reply:
    """A response on its way back to the agent; plugins may rewrite it."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


def accepted(status: int) -> bool:
    """Whether the app accepted a request (answered it without refusing it: 2xx or 3xx)."""
    return 200 <= status < 400


def draw(seed: int, step: int, position: int, salt: str = "") -> float:
    """A number in [0, 1) fixed by (seed, step, position): the same requests, the same faults."""
    digest = hashlib.blake2b(f"{seed}:{step}:{position}:{salt}".encode(), digest_size=8).digest()
    return int.from_bytes(digest) / 2**64


@dataclass
class StepContext:
    """One agent request as the proxy and the fault plugins see it."""

    episode_id: str
    seed: int
    step: int
    app: str
    method: str
    path: str
    query: str
    body: bytes
    # Side effects the proxy lends plugins (they never reach a network on their own).
    apply_ops: Callable[[list[dict[str, Any]]], Awaitable[None]]
    limit: Callable[[int, int], Awaitable[None]]  # refuse the next n requests (Retry-After s)
    expire_token: Callable[[], Awaitable[None]]
    # A refusal in the app's place, in its product's error shape (the proxy's gateway.py).
    refuse: Callable[[WorkGymError], Reply]
    # The app's public base the agent came in by (/apps/<app>, or the app's own port).
    base: str = ""
    # The path exactly as the agent sent it (still percent-encoded): what is forwarded.
    sent_path: str = ""
    idempotency_key: str | None = None  # the request's Idempotency-Key header, if any
    browser: bool = False  # sent with the browser's episode cookie (a page, a form's post)
    # What happened: the faults that acted, and the rows the replica changed.
    fired: list[str] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    # The route the replica matched (template, canonical path parameters), once it answered.
    route: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    reads: list[str] = field(default_factory=list)  # the tables a read read
    # The API operations a page's write performed or tried (the replica's OPERATIONS_HEADER).
    operations: list[dict[str, Any]] = field(default_factory=list)
    error_code: str | None = None  # the rule an error stands for, as the replica named it
    # The rows a fault changed behind the agent's back (another actor's changes).
    affected: list[dict[str, Any]] = field(default_factory=list)


class Target(BaseModel):
    model_config = ConfigDict(extra="forbid")

    app: str | None = Field(None, max_length=64,
                            description="Only requests to this app of the episode (any when "
                            "unset).")
    method: str | None = Field(None, description="Only this HTTP method (any when unset).")
    path: paths.PathPattern | None = Field(
        None, description="Path pattern(s) inside the app: '/refunds', '/tickets/{id}/comments' "
        "or '/tickets/*/comments' (one segment), '/orders/**' (any depth); a list means any "
        "of them. Never a regular expression. Any path when unset.",
    )

    reads: list[str] | None = Field(
        None, min_length=1, description="Only reads that read one of these tables of the app "
        "(known once the app has answered: 'the first look at the tickets', however the agent "
        "looks). Any request when unset.")

    @field_validator("method")
    @classmethod
    def _upper(cls, value: str | None) -> str | None:
        return value.upper() if value else value

    def matches(self, app: str, method: str, path: str) -> bool:
        return ((self.app is None or self.app == app)
                and (self.method is None or self.method == method)
                and (self.path is None or paths.any_matches(self.path, path)))

    def read_by(self, tables: list[str]) -> bool:
        """Whether a request that read ``tables`` (none for a write) is one it targets."""
        return self.reads is None or not set(self.reads).isdisjoint(tables)


class Window(BaseModel):
    """Which of the requests its target matches a fault may fire on, counted among those
    requests the app accepts only (so reads elsewhere never move a write out of its window,
    and a refused request never takes its turn): the ``start``-th to the ``end``-th accepted
    matching request. ``once``: exactly one of them, chosen by the seed."""

    model_config = ConfigDict(extra="forbid")

    start: int = Field(1, ge=1, description="First accepted matching request (1-based) it "
                       "may fire on.")
    end: int | None = Field(None, ge=1, description="Last accepted matching request it may "
                            "fire on (open when unset).")
    once: bool = Field(False, description="Fire on exactly one of start..end (end required), "
                       "the seed's choice; toxicity does not apply.")

    @model_validator(mode="after")
    def _bounded(self) -> Window:
        if self.end is not None and self.end < self.start:
            raise ValueError(f"end ({self.end}) is before start ({self.start})")
        if self.once and self.end is None:
            raise ValueError("once needs an end: the seed chooses among start..end")
        return self

    def covers(self, match: int) -> bool:
        return match >= self.start and (self.end is None or match <= self.end)

    def chosen(self, seed: int, position: int) -> int:
        """The matching request ``once`` fires on."""
        assert self.end is not None
        span = self.end - self.start + 1
        return self.start + int(draw(seed, 0, position, "once") * span)


class Fault(BaseModel):
    """Base of every plugin. Subclasses set ``kind`` (a Literal), override hooks and join the
    ``FaultSpec`` union (:mod:`.plugins`), whence the registry."""

    model_config = ConfigDict(extra="forbid")

    toxicity: float = Field(1.0, ge=0.0, le=1.0, description="Probability it fires on a "
                            "matching request in its window.")
    target: Target = Field(default_factory=Target, description="Which requests it applies to.")
    window: Window = Field(default_factory=Window, description="Which of the matching "
                           "requests it may fire on.")

    @property
    def name(self) -> str:
        return str(getattr(self, "kind"))  # noqa: B009 - every plugin declares kind

    @property
    def acts_before(self) -> bool:
        """Whether it does something before the request is forwarded."""
        return type(self).before is not Fault.before

    def matches(self, ctx: StepContext) -> bool:
        return self.target.matches(ctx.app, ctx.method, ctx.path)

    def fires(self, ctx: StepContext, position: int, match: int) -> bool:
        """Whether it fires on this request, the ``match``-th accepted one its target matched:
        decided by (seed, match index, plan position), never by wall time, unrelated
        requests or refused ones."""
        if not self.window.covers(match):
            return False
        if self.window.once:
            return match == self.window.chosen(ctx.seed, position)
        return draw(ctx.seed, match, position) < self.toxicity

    async def before(self, ctx: StepContext, position: int) -> Reply | None:
        """Runs before forwarding, once a validate-only pass showed the app would accept
        the request; a Reply answers the agent without the request reaching the replica."""
        return None

    def deliveries(self) -> int:
        """How many times the request is delivered to the replica."""
        return 1

    async def after(self, ctx: StepContext, reply: Reply, position: int) -> Reply:
        """Runs on the replica's reply (an accepted one) before the agent gets it."""
        return reply
