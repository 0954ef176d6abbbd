"""What a scripted solution (over the apps' APIs, or through their pages) takes from its task's
instruction before its first step."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Script(BaseModel):
    """What a scripted solution takes from the instruction (its API or its browser steps):
    like an agent, it knows only what the instruction states and what it reads."""

    model_config = ConfigDict(extra="forbid")

    given: dict[str, str] = Field(default_factory=dict, description="name -> a regular "
                                  "expression over the instruction: its first group (else "
                                  "the match) is saved as name before the first step.")

    @field_validator("given")
    @classmethod
    def _patterns(cls, value: dict[str, str]) -> dict[str, str]:
        for name, pattern in value.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"given.{name}: {exc}") from exc
        return value
