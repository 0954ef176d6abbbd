"""WorkGym's reward engine: verifiers over an episode's state diff and trajectory, and signals.

    report = score(verifier=Verifier.model_validate(task["verifier"]),
                   states={app: (initial, final)}, trajectory=steps, answer=answer,
                   vars={app: bound}, reference_steps=5)
"""

from .assertions import REGISTRY, Assertion, Context, Verifier
from .diff import Change, Diff, TableDiff, row_diff
from .engine import score
from .errors import ConfigError, RewardError
from .hashing import state_hash
from .report import AssertionResult, Report
from .signals import SIGNALS, Weights

__all__ = [
    "REGISTRY",
    "SIGNALS",
    "Assertion",
    "AssertionResult",
    "Change",
    "ConfigError",
    "Context",
    "Diff",
    "Report",
    "RewardError",
    "TableDiff",
    "Verifier",
    "Weights",
    "row_diff",
    "score",
    "state_hash",
]
