"""The base every check extends: the fields all assertions share, and variable resolution.

A field every assertion takes is declared here, once; each check adds its own fields, a
``check`` Literal naming it, and ``evaluate``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field

from workgym_core.exprs import evaluate
from workgym_core.refs import Vars, resolve

from .context import Context

# A value a task file may give as a reference (``$charge.amount``), resolved before evaluation.
Ref = Annotated[str, Field(pattern=r"^\$[A-Za-z_]\w*(\.[A-Za-z_]\w*){1,2}$")]


class Assertion(BaseModel):
    """Fields and behaviour every check shares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, description="Unique within its verifier.")
    app: str | None = Field(
        None, description="The app it looks at: its database, or (trajectory checks) its "
        "requests. Required in a task of several apps; defaults to a one-app task's app.")
    policy: bool = Field(False, description="Counts toward the policy_compliance signal.")
    harm: bool = Field(False, description="Failing it means the episode did harm (money moved "
                       "wrongly, a false claim, a forbidden action): the reward is below "
                       "doing nothing.")
    description: str | None = None
    when: str | None = Field(
        None, max_length=300, description="A condition over the rows the setup bound "
        "(workgym_core.exprs: '$verdict.refund == 1'): the assertion judges only the "
        "instances where it holds (a decision's outcome, drawn by the seed).")

    @property
    def kind(self) -> str:
        """Which check this is: its ``check`` (every check declares one, a Literal)."""
        return str(type(self).model_fields["check"].default)

    def applies(self, vars: Vars, others: Mapping[str, Vars] | None = None) -> bool:
        """Whether this instance is one the assertion judges (its ``when`` holds)."""
        return self.when is None or bool(evaluate(self.when, vars, others))

    @abstractmethod
    def evaluate(self, ctx: Context) -> tuple[bool, str] | tuple[bool, str, bool]:
        """Whether the assertion holds, and a short sentence saying what was found; a check
        whose failure may or may not be harm (what the agent said) adds whether it was."""

    def resolved(self, vars: Vars, others: Mapping[str, Vars] | None = None) -> Self:
        """This assertion with its variable references replaced by their values: ``$name.f``
        from its app's bound rows (``vars``), ``$app.name.f`` from another app's."""
        config = self.model_dump(by_alias=True, exclude_unset=True, exclude={"when"})
        values = resolve(config, vars, others)
        return self if values == config else self.model_validate({**values, "when": self.when})
