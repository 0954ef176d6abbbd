"""Every check in one union; the registry derives from it; a task's Verifier is a list of them.

Adding a check is adding its class to ``AnyAssertion``: the registry, the verifier's schema
and its parsing follow.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Self, get_args

from pydantic import Field, RootModel, model_validator

from .answer import AnswerMatches
from .base import Assertion
from .messages import Answer, AnswerStates, Told
from .state import (
    CountChanged,
    FieldChanged,
    FieldUnchanged,
    OnlyChanges,
    RowAbsent,
    RowExists,
    SumChanged,
)
from .trajectory import TrajectoryContains, TrajectoryExcludes, TrajectoryOrder

AnyAssertion = Annotated[
    RowExists
    | RowAbsent
    | FieldChanged
    | FieldUnchanged
    | CountChanged
    | SumChanged
    | OnlyChanges
    | Told
    | AnswerStates
    | Answer
    | TrajectoryContains
    | TrajectoryExcludes
    | TrajectoryOrder
    | AnswerMatches,
    Field(discriminator="check"),
]

REGISTRY: Mapping[str, type[Assertion]] = {
    cls.model_fields["check"].default: cls for cls in get_args(get_args(AnyAssertion)[0])
}
"""Every check by its ``check`` name."""


class Verifier(RootModel[Annotated[list[AnyAssertion], Field(min_length=3, max_length=12)]]):
    """A task's verifier: 3 to 12 uniquely named assertions, one of them ``only_changes``."""

    @model_validator(mode="after")
    def _rules(self) -> Self:
        names = [assertion.name for assertion in self.root]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"assertion names must be unique; repeated: {', '.join(repeated)}")
        if not any(isinstance(assertion, OnlyChanges) for assertion in self.root):
            raise ValueError("every verifier needs an only_changes assertion (collateral damage)")
        return self
