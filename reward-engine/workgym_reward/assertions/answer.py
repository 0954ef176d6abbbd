"""Checks over the agent's final answer."""

from __future__ import annotations

import re
from typing import Literal, Self

from pydantic import ConfigDict, Field, model_validator

from .base import Assertion
from .context import Context


class AnswerMatches(Assertion):
    """The final answer matches: one of ``pattern`` (regex search), ``equals`` or
    ``contains_all``, all case-insensitive. No answer fails."""

    model_config = ConfigDict(coerce_numbers_to_str=True)  # references may resolve to numbers

    check: Literal["answer_matches"] = "answer_matches"
    pattern: str | None = None
    equals: str | None = None
    contains_all: list[str] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _one_criterion(self) -> Self:
        criteria = ("pattern", "equals", "contains_all")
        given = [key for key in criteria if getattr(self, key) is not None]
        if len(given) != 1:
            raise ValueError(
                f"give exactly one of pattern, equals, contains_all (given: {given or 'none'})"
            )
        if self.pattern is not None:
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValueError(f"pattern is not a valid regular expression: {exc}") from exc
        return self

    def evaluate(self, ctx: Context) -> tuple[bool, str]:
        if ctx.answer is None:
            return False, "no answer"
        answer = ctx.answer
        if self.pattern is not None:
            found = re.search(self.pattern, answer, re.IGNORECASE)
            if found is None:
                return False, f"answer {_clip(answer)} does not match {self.pattern!r}"
            return True, f"answer matches {self.pattern!r} at {found.group()!r}"
        if self.equals is not None:
            passed = answer.strip().casefold() == self.equals.strip().casefold()
            verb = "equals" if passed else "is not"
            return passed, f"answer {_clip(answer)} {verb} {self.equals!r}"
        wanted = self.contains_all or []
        missing = [item for item in wanted if item.casefold() not in answer.casefold()]
        if missing:
            return False, f"answer {_clip(answer)} lacks {', '.join(map(repr, missing))}"
        return True, f"answer contains all of {', '.join(map(repr, wanted))}"


def _clip(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
