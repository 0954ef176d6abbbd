"""Argument types more than one subcommand takes (seeds, agents, the customer's model, fault
plans) and the lazy choice check."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Collection


def seed_list(text: str) -> list[int]:
    """Seeds written as ``0-15`` or ``0,3,7-9``."""
    found: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        found.extend(range(int(first), int(last or first) + 1))
    return found


def one_of(choices: Callable[[], Collection[str]]) -> Callable[[str], str]:
    """An argparse type accepting one of ``choices()``, looked up only when the command that
    has the option runs: serving never loads the agents or the exporter."""
    def check(value: str) -> str:
        if value not in (found := choices()):
            raise argparse.ArgumentTypeError(
                f"invalid choice: {value!r} (choose from {', '.join(sorted(found))})")
        return value
    return check


def agent_spec(value: str) -> str:
    """An argparse type: a built-in agent's name or ``openai:MODEL`` (checked when the
    command runs, as :func:`one_of`)."""
    from ..agents import check_spec

    try:
        return check_spec(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def user_spec(value: str) -> str:
    """An argparse type: the model that plays the customer, ``openai:MODEL``."""
    from workgym_core.chat import MODEL_PATTERN

    if not re.fullmatch(MODEL_PATTERN, value):
        raise argparse.ArgumentTypeError(
            f"invalid user {value!r}: openai:MODEL, a model behind OPENAI_BASE_URL that plays "
            "the customer")
    return value


def _fault_plans() -> list[str]:
    from ..presets import fault_presets

    return ["task", *fault_presets()]


# A fault plan's name: the task's own or a preset (checked when the command runs, as
# :func:`one_of`: every other command, serving first, never reads or checks the presets).
fault_plan = one_of(_fault_plans)
