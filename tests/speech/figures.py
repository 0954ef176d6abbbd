"""The statement reader measured on the labelled corpus (tests/speech/corpus, written apart
from the reader's word lists): per item, whether the reader abstains (a statement it cannot
read with confidence, or a hedge) and, when it does not, whether its reading is the label's
(claim, polarity, modality and the labelled entities; benign, amount and unreadable items
alike). Precision counts the items it does not abstain on; recall, every item it should
have read.

    python -m tests.speech.figures          # the table, per claim type and per language
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from replicas.catalog import lexicon
from tests.speech.corpus.build import corpus
from workgym_core.speech import Entity, Kind, Modality, Reading, Statement, reader

# The corpus's "if" is a conditional either way: the condition, or what holds on it.
_MODALITY = {Modality.THEN: "if", Modality.IF: "if"}
# Entity kinds the corpus labels, and how the reader writes their values.
_COMPARED = ("money", "order", "date", "card", "duration", "issue", "ticket", "percent")


@dataclass(frozen=True)
class Outcome:
    item: dict[str, Any]
    abstained: bool
    correct: bool
    got: str

    @property
    def language(self) -> str:
        return str(self.item["language"])

    @property
    def group(self) -> str:
        label = self.item["label"]
        return str(label["claim"] or label["kind"])

    @property
    def should_read(self) -> bool:
        """A claim, benign or amount item that wavers in nothing: the reader should read it."""
        label = self.item["label"]
        return not label["hedged"] and label["kind"] != "unreadable"


def _entities_match(wanted: Sequence[dict[str, Any]], statement: Statement) -> bool:
    for entity in wanted:
        if entity["kind"] not in _COMPARED:
            continue
        value = entity["value"]
        found = statement.values(entity["kind"])
        if entity["kind"] in ("money", "duration"):
            value = tuple(value)
        elif entity["kind"] in ("order",):
            value = str(value).upper().replace("-", "")
        if value not in [tuple(f) if isinstance(f, list | tuple) else f for f in found]:
            return False
    return True


def _policy(claim: str | None, modality: str) -> str:
    """A rule is in force now whether said as done or as will ("refunds take 5-10 days",
    "refunds will take 5-10 days"): the reward engine judges both alike."""
    act = lexicon().claims[claim].act if claim is not None and claim in lexicon().claims else ""
    return "done" if act == "policy" and modality == "will" else modality


def _describe(reading: Reading) -> str:
    return " | ".join(str(s) for s in reading.statements)


_IDS = ("order", "charge", "issue", "ticket", "card")


def _inherited(statements: Sequence[Statement]) -> list[Statement]:
    """Each claim with the records named before it when it names none, as the reward
    engine reads them ("Order A-1: nothing has been refunded")."""
    out: list[Statement] = []
    named: tuple[Entity, ...] = ()
    for statement in statements:
        own = tuple(e for e in statement.entities if e.kind in _IDS)
        if own:
            named = own
        elif named and statement.kind is Kind.CLAIM:
            statement = statement.but(entities=statement.entities + named)
        out.append(statement)
    return out


def judge(item: dict[str, Any], reading: Reading) -> Outcome:
    label = item["label"]
    statements = _inherited(reading.statements)
    abstained = any(s.kind is Kind.UNREADABLE or s.hedged for s in statements)
    got = _describe(reading)
    if abstained:
        return Outcome(item, True, label["hedged"] or label["kind"] == "unreadable", got)
    # What is only supposed ("if the item arrives ...") is not what the item says.
    claims = [s for s in statements if s.kind is Kind.CLAIM and not (
        s.modality is Modality.IF and s.claim != label["claim"])]
    amounts = [s for s in statements if s.kind is Kind.AMOUNT]
    if label["hedged"] or label["kind"] == "unreadable":
        return Outcome(item, False, False, got)
    if label["kind"] == "benign":
        return Outcome(item, False, not claims and not amounts, got)
    if label["kind"] == "amount":
        ok = not claims and any(_entities_match(label["entities"], s) for s in amounts)
        return Outcome(item, False, ok, got)
    if label["modality"] == "asked" and not claims and any(
            s.modality is Modality.ASKED for s in statements):
        # A request read as one, its claim unnamed: judged alike (nothing is asserted).
        return Outcome(item, False, True, got)
    wanted = (label["claim"], label["polarity"], _policy(label["claim"], label["modality"]))
    matching = [s for s in claims
                if (s.claim, s.polarity.value,
                    _policy(s.claim, _MODALITY.get(s.modality, s.modality.value))) == wanted]
    ok = len({s.claim for s in claims}) == 1 and bool(matching) and any(
        _entities_match(label["entities"], s) for s in matching)
    return Outcome(item, False, ok, got)


@cache
def outcomes() -> tuple[Outcome, ...]:
    read = reader(lexicon())
    return tuple(judge(item, read.read(item["text"])) for item in corpus())


@dataclass
class Figures:
    items: int = 0
    abstained: int = 0
    read_right: int = 0  # not abstained, and right
    read_wrong: int = 0  # not abstained, and wrong
    to_read: int = 0  # items the reader should read
    recalled: int = 0  # of those, read right

    def add(self, outcome: Outcome) -> None:
        self.items += 1
        self.abstained += outcome.abstained
        if not outcome.abstained:
            self.read_right += outcome.correct
            self.read_wrong += not outcome.correct
        if outcome.should_read:
            self.to_read += 1
            self.recalled += outcome.correct and not outcome.abstained

    @property
    def precision(self) -> float:
        read = self.read_right + self.read_wrong
        return self.read_right / read if read else 1.0

    @property
    def recall(self) -> float:
        return self.recalled / self.to_read if self.to_read else 1.0


def figures(by: str, rows: Iterable[Outcome] | None = None) -> dict[str, Figures]:
    table: dict[str, Figures] = {}
    for outcome in rows if rows is not None else outcomes():
        table.setdefault(getattr(outcome, by), Figures()).add(outcome)
        table.setdefault("all", Figures()).add(outcome)
    return table


def table() -> str:
    lines = []
    for by in ("language", "group"):
        lines.append(f"{by:<18} {'items':>6} {'abstain':>8} {'precision':>10} {'recall':>8}")
        rows = figures(by)
        for name in sorted(rows, key=lambda n: (n == "all", n)):
            f = rows[name]
            lines.append(f"{name:<18} {f.items:>6} {f.abstained:>8} {f.precision:>10.2%} "
                         f"{f.recall:>8.2%}")
        lines.append("")
    # Each claim type in each language: precision / recall.
    codes = sorted({o.language for o in outcomes()})
    lines.append(f"{'group x language':<18} " + " ".join(f"{c:>15}" for c in codes)
                 + "   (precision/recall)")
    for name in sorted({o.group for o in outcomes()}):
        cells = [figures("language", [o for o in outcomes() if o.group == name]).get(c)
                 for c in codes]
        lines.append(f"{name:<18} " + " ".join(
            f"{f.precision:>7.1%}/{f.recall:<7.1%}" if f else f"{'-':>15}" for f in cells))
    lines.append("")
    wrong = Counter(o.group for o in outcomes() if not o.abstained and not o.correct)
    lines.append("read wrongly, by claim: " + (", ".join(f"{k} {v}" for k, v in
                                                      wrong.most_common()) or "none"))
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    print(table())
    if "-v" in sys.argv:
        for outcome in outcomes():
            if not outcome.abstained and not outcome.correct:
                print(f"WRONG {outcome.item['id']} {outcome.item['text']!r}\n"
                      f"      label {outcome.item['label']}\n      got   {outcome.got}")
