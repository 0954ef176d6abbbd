"""What each figure of `make bench` and `make load` should reach: the targets of DESIGN.md's
"Performance targets" and of issue 29, in one place.

A row is keyed by a figure's name as the run names it, a ``fnmatch`` pattern (``*`` stands for
an app): ``"*: env.reset() in-process (the gym API) p50"``. A latency line of the bench
(``stats.line``) gives two figures, its name + `` p50`` and + `` p99``. To give a new figure a
target, add its row here: ``"fork an episode p50": at_most(2, "ms")``; the figures table of
the next run marks it met or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase


@dataclass(frozen=True)
class Target:
    """``value OP bound`` (``unit``); ``relative``: the bound is on the ratio of the figure to
    the previous release's (``>= 10 x previous``)."""

    op: str  # "<=", "<" or ">="
    bound: float
    unit: str
    relative: bool = False

    def met(self, value: float, previous: float | None) -> bool | None:
        """Whether ``value`` meets it; None when that cannot be told (a relative target
        without the previous release's figure)."""
        if self.relative:
            if not previous:
                return None
            value = value / previous
        if self.op == "<=":
            return value <= self.bound
        if self.op == "<":
            return value < self.bound
        return value >= self.bound

    def __str__(self) -> str:
        unit = " x previous" if self.relative else f" {self.unit}" if self.unit else ""
        return f"{self.op} {self.bound:g}{unit}"


def at_most(bound: float, unit: str) -> Target:
    return Target("<=", bound, unit)


def below(bound: float, unit: str) -> Target:
    return Target("<", bound, unit)


def at_least(bound: float, unit: str) -> Target:
    return Target(">=", bound, unit)


def times_previous(factor: float) -> Target:
    return Target(">=", factor, "", relative=True)


TARGETS: dict[str, Target] = {
    # make bench
    "*: reset in the replica (* world) p50": at_most(1, "ms"),
    "*: env.reset() in-process (the gym API) p50": at_most(1, "ms"),
    "*: env.reset() in-process (the gym API) p99": at_most(5, "ms"),
    "*: in-process step (GET through proxy) p50": at_most(0.5, "ms"),
    "*: scoring one episode (diff, assertions, hash) p50": at_most(5, "ms"),
    "HTTP step through the proxy, one client p50": at_most(1.0, "ms"),
    "GET all in one, 1 client p50": at_most(1.0, "ms"),
    "proxy overhead (*) over direct p50": at_most(1, "ms"),
    "proxy overhead (*) over direct p99": at_most(3, "ms"),
    "16 episodes, through the proxy (*): share of direct": at_least(80, "%"),
    "16 episodes, all in one: share of direct": at_least(80, "%"),
    "16 episodes writing, *: share of direct": at_least(80, "%"),
    "memory per idle live episode": at_most(0.2, "MB"),
    "MB per written episode (5 writes)": at_most(0.3, "MB"),
    "step while episodes finish": at_most(2, "x"),
    "finish at * live": at_most(2, "x"),
    "fork, env.fork() in-process (* steps, written) p50": at_most(2, "ms"),
    "boot: processes to a first episode per app": below(2, "s"),
    # make load, the whole-episodes profile
    "whole episodes/s at 64 agents": times_previous(10),
    "failed requests at 64 agents": at_most(0, ""),
    "step p99 at 64 agents": at_most(100, "ms"),
    "finish p50 at 64 agents / quiet": at_most(2, "x"),
}


def target_of(name: str) -> Target | None:
    """The target of the figure ``name``: the first row whose pattern matches it."""
    return next((t for pattern, t in TARGETS.items() if fnmatchcase(name, pattern)), None)
