"""A scripted imperfect agent, for measuring a bench's noise: ``flaky[:P[:SEED]]``.

It is the reference solution (:func:`workgym.agents.reference.run_script`) that, with
probability ``P`` per episode (default 0.3), slips once: it drops one step of the script
(what follows runs as it can, as a near miss does), stops early (after a step, without an
answer), or skips its reply (every step, no answer); which slip, and where, is drawn too.

The draws come from a generator seeded by the episode: its task, seed and trial, and the
agent's ``SEED`` (default 0). So a run is reproducible: the same spec on the same plan slips
on the same episodes. Two trials of one problem draw apart, as a sampled model's do; and a
run with another ``SEED`` is another sample of the same agent's behaviour (two runs of a
model at temperature > 0): ``flaky:0.3:1`` and ``flaky:0.3:2`` differ by noise alone. The
bench gives the trial (:meth:`Flaky.for_trial`); called as a plain agent, it is trial 0.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from ..sdk import Env
from ..tasks import ReferenceStep, Task
from .reference import Branch, ReferenceFailed, run_script

NAME = "flaky"
DEFAULT_P = 0.3
SLIPS = ("drop a step", "stop early", "skip the reply")


@dataclass
class Slip(Branch):
    """The script's way with one slip: ``dropped`` (a step's index) is passed over, no step
    from ``stop`` on runs, and a step whose ``when`` needs what was not saved is passed over
    too."""

    kind: str = ""
    dropped: int | None = None
    stop: int | None = None
    seen: int = 0

    def runs(self, step: ReferenceStep, saved: dict[str, object]) -> bool:
        index, self.seen = self.seen, self.seen + 1
        if index == self.dropped or (self.stop is not None and index >= self.stop):
            return False
        try:
            return super().runs(step, saved)
        except ReferenceFailed:  # its ``when`` reads what a dropped step would have saved
            return False


@dataclass(frozen=True)
class Flaky:
    p: float = DEFAULT_P
    seed: int = 0
    trial: int = 0

    def for_trial(self, trial: int) -> Flaky:
        """This agent at trial ``trial`` of a problem (the bench's runner asks)."""
        return replace(self, trial=trial)

    def slip(self, task: Task, seed: int) -> Slip | None:
        """The slip of this agent's episode of ``task`` at ``seed``, if it slips."""
        rng = random.Random(f"{NAME}/{self.seed}/{task.id}/{seed}/{self.trial}")
        if rng.random() >= self.p:
            return None
        steps = len(task.reference.steps)
        kind = rng.choice(SLIPS)
        if kind == "drop a step" and steps:
            return Slip(kind=kind, dropped=rng.randrange(steps))
        return Slip(kind=kind, stop=rng.randrange(steps) if kind == "stop early" and steps
                    else steps)

    def __call__(self, env: Env, task: Task) -> str | None:
        slip = self.slip(task, env.seed)
        if slip is None:
            return run_script(env, task.reference)
        answer = run_script(env, task.reference, strict=False, branch=slip)
        return answer if slip.kind == "drop a step" else None


def parse(spec: str) -> Flaky:
    """``flaky``, ``flaky:P`` or ``flaky:P:SEED`` (P in [0, 1]), else ValueError."""
    name, *rest = spec.split(":")
    if name != NAME or len(rest) > 2:
        raise ValueError(f"invalid agent {spec!r}: flaky[:P[:SEED]]")
    try:
        p = float(rest[0]) if rest else DEFAULT_P
        seed = int(rest[1]) if len(rest) > 1 else 0
    except ValueError:
        raise ValueError(f"invalid agent {spec!r}: flaky[:P[:SEED]], P a probability, SEED "
                         "an integer") from None
    if not 0 <= p <= 1:
        raise ValueError(f"invalid agent {spec!r}: P is a probability, between 0 and 1")
    return Flaky(p, seed)
