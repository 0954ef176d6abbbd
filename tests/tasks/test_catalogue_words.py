"""A task's title and tags describe the work, never its expected outcome or its trap.

They are what the catalogue shows ("Answer a refund request against the refund policy"), and
a policy learnt from them ("must-refuse" -> decline) is a shortcut, not the skill. The words
below state an outcome (decline, refuse, do not ...) or name the trap the agent has to find
(stale data, a superseded policy, a deactivated agent ...): no task's title or tags may use
them. This list is the one place they are named (tasks/README.md points here)."""

from __future__ import annotations

import re

from workgym.tasks import Task, catalogue

# Single words, matched whole (so "declined payment", the bank's word, is not "decline").
OUTCOME_WORDS = frozenset({
    # the outcome of a decision
    "decline", "refuse", "refusal", "reject", "deny", "denied", "never", "cannot",
    # the trap
    "already", "outside", "expired", "stale", "outdated", "superseded", "conflict",
    "conflicting", "contradictory", "deactivated", "inactive", "impostor",
})
# Phrases of several words ("don't" reads as "don t").
OUTCOME_PHRASES = ("do not", "don t", "may not", "must not", "not allowed")


def outcome_words(text: str) -> list[str]:
    """The words and phrases of OUTCOME_WORDS and OUTCOME_PHRASES that ``text`` uses."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    joined = f" {' '.join(words)} "
    return sorted({w for w in words if w in OUTCOME_WORDS}
                  | {p for p in OUTCOME_PHRASES if f" {p} " in joined})


def _said(task: Task) -> dict[str, list[str]]:
    found = {"title": outcome_words(task.title)}
    found.update({f"tag {tag}": outcome_words(tag) for tag in task.tags})
    return {where: words for where, words in found.items() if words}


def test_the_reader_finds_outcomes_and_traps_but_not_the_work() -> None:
    assert outcome_words("Decline a refund that is outside the customer's window") == [
        "decline", "outside"]
    assert outcome_words("Do not refund a payment that is under dispute") == ["do not"]
    assert outcome_words("must-refuse") == ["refuse"]
    assert outcome_words("conflicting-policies") == ["conflicting"]
    assert outcome_words("Don't touch the macro") == ["don t"]
    for work in ("Retry a declined payment with the customer's other saved card",
                 "Cancel the items of an order that have not shipped", "declined-payment",
                 "Answer a refund request against the refund policy"):
        assert outcome_words(work) == [], work


def test_no_title_or_tag_states_the_outcome_or_the_trap() -> None:
    found = {task.id: said for task in catalogue() if (said := _said(task))}
    assert found == {}, "titles and tags describe the work, not the outcome: " + "; ".join(
        f"{task}: {said}" for task, said in sorted(found.items()))
