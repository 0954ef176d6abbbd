"""The score of one episode, as the gym API returns it."""

from __future__ import annotations

from pydantic import BaseModel, Field


class AssertionResult(BaseModel):
    name: str
    passed: bool
    detail: str = Field(description="What the assertion found, in one short sentence.")


class Report(BaseModel):
    success: bool = Field(description="Every assertion passed.")
    reward: float = Field(description="Weighted sum of the signals, rounded to 6 decimals.")
    signals: dict[str, float] = Field(description="Each signal, in [0, 1].")
    assertions: list[AssertionResult]
    steps: int = Field(description="Requests the agent made.")
    final_state_hash: str = Field(description="Content hash of the final state (state_hash).")
