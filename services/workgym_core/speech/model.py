"""What a message says, as the reader (:mod:`.reader`) reads it: statements, each a claim
with its polarity, modality and the entities it is about.

One reader for everyone who reads an agent's message: the reward engine judges each
statement against the case, the scripted customer answers the ones it cannot read. Plain
frozen dataclasses: cheap to build, hashable, and free of any app's vocabulary (claim types
are names the apps declare, :mod:`.lexicon`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class Polarity(StrEnum):
    """Whether the claim is affirmed or denied."""

    POSITIVE = "+"
    NEGATIVE = "-"


class Modality(StrEnum):
    """How the claim is put."""

    DONE = "done"  # it happened, or is so ("we refunded", "2FA is now off")
    WILL = "will"  # it will happen, a promise ("we will refund", "it will arrive")
    CAN = "can"  # it is possible or offered ("we can refund it", "you can still send it back")
    IF = "if"  # supposed, not asserted: a condition ("if it arrives"), a time ("before it
    # shipped"), a restriction ("the items that had not shipped"), an obligation ("has to be")
    THEN = "then"  # what holds on a condition ("..., we'll refund it")
    ASKED = "asked"  # a question or a request ("could you send...", "was it refunded?")
    SAID = "said"  # someone else's words reported ("the customer says they were charged")


class Kind(StrEnum):
    """What a statement is."""

    CLAIM = "claim"  # a claim of the lexicon, about the case
    AMOUNT = "amount"  # entities of the case with no claim ("the total is $45")
    BENIGN = "benign"  # greetings, thanks, apologies, offers of help: nothing to check
    OTHER = "other"  # names nothing of the case and no claim: outside what is checked
    UNREADABLE = "unreadable"  # names the case or a claim, but cannot be read with confidence


@dataclass(frozen=True, slots=True)
class Entity:
    """Something a statement is about, with its value normalised: ``money`` (amount in
    minor units, currency), ``order`` (``A10423``), ``date`` (``2025-06-16`` or ``--06-16``
    without a year), ``duration`` (days, or a (low, high) range), ``card`` (last four
    digits), ``count``, ``percent``, an app's ids (``issue``, ``ticket``, ``charge``), and the
    world's names (``team``, ``person``, ``version``, ``status``, ...)."""

    kind: str
    value: Any  # by kind, as above
    text: str
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.kind}={self.text!r}"


@dataclass(frozen=True, slots=True)
class Statement:
    """One clause of a message, read."""

    text: str
    start: int
    end: int
    kind: Kind
    claim: str | None = None
    polarity: Polarity = Polarity.POSITIVE
    modality: Modality = Modality.DONE
    entities: tuple[Entity, ...] = ()
    language: str = "en"
    hedged: bool = False  # several values for one slot, or an uncertain wording
    why: str = ""  # for UNREADABLE: what the reader could not settle

    def of(self, kind: str) -> tuple[Entity, ...]:
        return tuple(entity for entity in self.entities if entity.kind == kind)

    def values(self, kind: str) -> list[Any]:
        return [entity.value for entity in self.entities if entity.kind == kind]

    @property
    def checked(self) -> bool:
        """Whether the statement says something about the case that must be true."""
        return self.kind in (Kind.CLAIM, Kind.AMOUNT, Kind.UNREADABLE)

    def but(self, **changes: object) -> Statement:
        # replace() types each field's keyword; ``changes`` name fields of this class.
        return replace(self, **changes)  # type: ignore[arg-type]

    def __str__(self) -> str:
        if self.kind is Kind.CLAIM:
            head = f"{self.claim}{self.polarity.value} {self.modality.value}"
        else:
            head = self.kind.value
        entities = " ".join(map(str, self.entities))
        extra = " hedged" if self.hedged else ""
        extra += f" ({self.why})" if self.why else ""
        return f"[{head}{extra}] {entities}".rstrip()


@dataclass(frozen=True, slots=True)
class Reading:
    """A message read: its statements in order and the language it is mostly in."""

    text: str
    statements: tuple[Statement, ...] = field(default_factory=tuple)
    language: str = "en"

    @property
    def unreadable(self) -> tuple[Statement, ...]:
        return tuple(s for s in self.statements if s.kind is Kind.UNREADABLE)

    @property
    def claims(self) -> tuple[Statement, ...]:
        return tuple(s for s in self.statements if s.kind is Kind.CLAIM)

    def entities(self, kind: str) -> list[Entity]:
        return [e for s in self.statements for e in s.entities if e.kind == kind]
