"""The assertion library: one small class per ``check``, their registry, and the Verifier.

Each assertion is a pydantic config (unknown keys are errors) whose ``evaluate(ctx)`` returns
whether it passed and a short sentence saying what it found. String values may be variable
references (:mod:`workgym_core.refs`), resolved by :meth:`Assertion.resolved` before
evaluation. Table and column names are checked against the databases when evaluating: an
unknown one raises a ConfigError naming it, it never just fails the assertion.

* :mod:`.base`: the :class:`Assertion` every check extends; :mod:`.context`: what they look at;
* :mod:`.state`: checks over the initial and final states and their diff;
* :mod:`.trajectory`: checks over the steps the agent took;
* :mod:`.answer`: checks over the final answer; :mod:`.messages`: over what the agent said;
* :mod:`.disclosure`: what the agent told outside that was not the hearer's;
* :mod:`.verifier`: the union of every check, the registry derived from it, the Verifier.
"""

from .answer import AnswerMatches
from .base import Assertion
from .context import Context
from .messages import AllSaid, Answer, AnswerStates, Told
from .state import (
    Allow,
    CountChanged,
    FieldChanged,
    FieldUnchanged,
    OnlyChanges,
    RowAbsent,
    RowExists,
    SumChanged,
)
from .trajectory import StepPattern, TrajectoryContains, TrajectoryExcludes, TrajectoryOrder
from .verifier import REGISTRY, AnyAssertion, Verifier

__all__ = [
    "REGISTRY",
    "AllSaid",
    "Allow",
    "Answer",
    "AnswerMatches",
    "AnswerStates",
    "AnyAssertion",
    "Assertion",
    "Context",
    "CountChanged",
    "FieldChanged",
    "FieldUnchanged",
    "OnlyChanges",
    "RowAbsent",
    "RowExists",
    "StepPattern",
    "SumChanged",
    "Told",
    "TrajectoryContains",
    "TrajectoryExcludes",
    "TrajectoryOrder",
    "Verifier",
]
