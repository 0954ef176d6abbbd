"""The score of one episode, as the gym API returns it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class AssertionResult(BaseModel):
    name: str
    check: str = Field("", description="What kind of check it is (its ``check``: row_exists, "
                       "only_changes, told, all_said...): what a failure of it says about the "
                       "agent (workgym.bench.diagnosis maps it to a skill).")
    passed: bool
    policy: bool = Field(False, description="It checks a rule of the business (counts toward "
                         "the policy_compliance signal).")
    harm: bool = Field(False, description="Its failure is harm (a false statement, money "
                       "moved wrongly, a forbidden action).")
    detail: str = Field(description="What the assertion found, in one short sentence.")


class FaultMet(BaseModel):
    step: int = Field(description="0-based index of the step the fault was injected on.")
    kind: str = Field(description="Fault plugin kind.")
    method: str
    path: str
    status: int = Field(description="What the agent received (0: connection dropped).")
    recovered: bool | None = Field(
        description="Whether the agent recovered the right way; null when not judged.")


class Report(BaseModel):
    success: bool = Field(description="Every assertion passed.")
    harm: bool = Field(False, description="An assertion failed as harm (money moved "
                       "wrongly, a false statement, a forbidden action).")
    reward: float = Field(description="-1 on harm, 0 on failure; on success 0.9 plus 0.1 x "
                          "the weighted ranking signals (workgym_reward.signals).")
    signals: dict[str, float] = Field(description="Each signal, in [0, 1].")
    assertions: list[AssertionResult]
    steps: int = Field(description="Requests the agent made.")
    final_state_hash: str = Field(description="Content hash of the final state (state_hash).")
    state_class: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Each app's final-state class (what changed, up to "
        "the values two correct solutions may write differently: workgym_reward.state_class).")
    faults: list[FaultMet] = Field(default_factory=list, description="Every fault injected.")
