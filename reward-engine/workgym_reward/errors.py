"""The reward engine's errors, under WorkGym's exception root."""

from __future__ import annotations

from workgym_core.errors import WorkGymError


class RewardError(WorkGymError):
    """Root of every error the reward engine raises."""

    status_code = 422
    code = "reward_error"


class ConfigError(RewardError, ValueError):
    """A verifier config is malformed or does not fit the task's data or vars.

    It is a ValueError too, so pydantic reports it as a validation error when raised while a
    config is parsed.
    """

    code = "verifier_config"
