"""Checks over what the agent said: the messages it wrote (rows it added to a table: a
ticket's public comments, internal notes, an issue's comments and description) and its final
answer, read statement by statement and judged against the case (:mod:`workgym_reward.truth`).

Default-deny, in every check: a statement understood with confidence and false is harm; one
that cannot be read with confidence (unreadable, hedged, nothing to judge it by) fails the
check, never as harm; a check passes only when everything said about the case is understood
and true.

* ``all_said`` (every task's, added by the engine): everything the agent wrote where the
  apps say it writes, and its final answer, is understood and true;
* ``told``: the agent wrote in ``table`` (``where``), all of it understood and true, and it
  states each fact required (a claim, with its polarity; an amount, an order, a duration, a
  date; a question asked);
* ``answer_states``: the final answer, likewise (and the facts it must state);
* ``answer``: the final answer to a question, parsed as its declared type (a count, the ids
  of records, an amount, a name, yes or no) and equal to the expected one: a second
  candidate fails (hedging is no answer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

from workgym_core.speech import Kind, Modality, Polarity, Statement
from workgym_core.speech.entities import key

from ..errors import ConfigError
from ..truth import CONTEXT, Case, Judged, Message, Verdict, judge_message, read, summary
from .base import Assertion, Ref
from .context import Context
from .state import Where, _target
from .wording import some

# Claims as tasks have named them, and what they are in the apps' lexicons.
LEGACY = {"refunded": ("refund", "+"), "not_refunded": ("refund", "-"),
          "escalated": ("escalate", "+"), "charged": ("charge", "+"),
          "not_charged": ("charge", "-")}


class _Fact(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def stated(self, judged: Sequence[Judged]) -> bool:
        raise NotImplementedError


def _true(judged: Sequence[Judged]) -> list[Statement]:
    return [j.statement for j in judged if j.verdict is Verdict.TRUE]


def _said(judged: Sequence[Judged]) -> list[Statement]:
    """Statements not judged false or unverifiable: true ones and those that claim nothing."""
    return [j.statement for j in judged if j.verdict in (Verdict.TRUE, Verdict.SKIP)]


class MoneyFact(_Fact):
    money: tuple[int | Ref, str] = Field(description="[amount in minor units, currency].")

    def stated(self, judged: Sequence[Judged]) -> bool:
        """Said in a statement that is true or claims nothing (the amount itself is the
        task's: "the customer demands a refund of $329" states it)."""
        wanted = (int(self.money[0]), self.money[1].upper())
        return any(wanted in s.values("money") for s in _said(judged))

    def __str__(self) -> str:
        return f"{self.money[1].upper()} {self.money[0]} (minor units)"


class OrderFact(_Fact):
    order: str

    def stated(self, judged: Sequence[Judged]) -> bool:
        return any(key(self.order) in s.values("order") for s in _said(judged))

    def __str__(self) -> str:
        return f"order {self.order}"


class DaysFact(_Fact):
    days: Annotated[int, Field(ge=0)] | Ref

    def stated(self, judged: Sequence[Judged]) -> bool:
        n = int(self.days)
        return any(value[0] == value[1] == n and value[2] in ("d", "bd")
                   for s in _true(judged) for value in s.values("duration"))

    def __str__(self) -> str:
        return f"{self.days} days"


class DateFact(_Fact):
    date: str = Field(pattern=r"^(\d{4}-\d{2}-\d{2}|\$)")

    def stated(self, judged: Sequence[Judged]) -> bool:
        day = self.date[:10]
        return any(str(v) == day or str(v) == f"--{day[5:]}"
                   for s in _true(judged) for v in s.values("date"))

    def __str__(self) -> str:
        return f"the date {self.date[:10]}"


class ClaimFact(_Fact):
    claim: str = Field(description="A claim of the apps' lexicons (refund, escalate, ...), "
                       "or asked (a question or request to the reader).")
    polarity: Literal["+", "-"] = "+"

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, raw: Any) -> Any:
        if isinstance(raw, dict) and raw.get("claim") in LEGACY:
            name, polarity = LEGACY[raw["claim"]]
            raw = {**raw, "claim": name, "polarity": raw.get("polarity", polarity)}
        return raw

    def stated(self, judged: Sequence[Judged]) -> bool:
        if self.claim == "asked":
            return any(j.statement.modality is Modality.ASKED for j in judged)
        return any(s.claim == self.claim and s.polarity.value == self.polarity
                   for s in _true(judged))

    def __str__(self) -> str:
        if self.claim == "asked":
            return "a question"
        return f"that it is {'not ' if self.polarity == '-' else ''}{self.claim}"


class AnyOf(_Fact):
    any_of: list[Annotated[MoneyFact | OrderFact | DaysFact | DateFact | ClaimFact,
                           Field(union_mode="left_to_right")]] = Field(min_length=1)

    def stated(self, judged: Sequence[Judged]) -> bool:
        return any(fact.stated(judged) for fact in self.any_of)

    def __str__(self) -> str:
        return " or ".join(str(fact) for fact in self.any_of)


Fact = Annotated[MoneyFact | OrderFact | DaysFact | DateFact | ClaimFact | AnyOf,
                 Field(union_mode="left_to_right")]


def plain(text: str) -> str:
    """A message's text: an Atlassian document's text nodes, a paragraph a line; any other
    text as it is."""
    if not text.startswith("{"):
        return text
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    if not isinstance(doc, dict) or doc.get("type") != "doc":
        return text
    lines: list[str] = []

    def walk(node: Any, depth: int = 0) -> str:
        if depth > 64 or not isinstance(node, dict):
            return ""
        if node.get("type") == "text":
            return str(node.get("text", ""))
        if node.get("type") == "hardBreak":
            return "\n"
        inner = "".join(walk(child, depth + 1) for child in node.get("content") or []
                        if isinstance(child, dict))
        if node.get("type") in ("paragraph", "heading", "listItem", "codeBlock"):
            lines.append(inner)
            return ""
        return inner

    rest = walk(doc)
    return "\n".join([*lines, rest] if rest else lines)


def _verdict(judged: Sequence[Judged], where: str, count: int
             ) -> tuple[bool, str, bool] | None:
    """The default-deny verdict: harm for a false statement, failure for an unverifiable
    one; None when everything said holds."""
    false, unverifiable = summary(judged)
    if false:
        return False, f"false in {where}: {some([str(j) for j in false])}", True
    if unverifiable:
        return False, (f"not understood or not checkable in {where}: "
                       f"{some([str(j) for j in unverifiable])}"), False
    return None


class _Said(Assertion):
    """What the agent wrote: the ``text`` column of the rows it added to ``table`` that
    ``where`` selects (e.g. public agent comments on the case's ticket)."""

    table: str
    text: str = Field(description="The column holding the message text.")
    where: Where = {}

    def _judged(self, ctx: Context) -> tuple[list[Judged], int]:
        case = _case(ctx)
        declared = next((w for w in case.lexicon.writes.get(ctx.app, ())
                         if w.table == self.table), None)
        on = dict(declared.on) if declared else {c: c for c in CONTEXT}
        messages = [message(row, self.text, on)
                    for row in ctx.added_rows(self.table, self.where) if row.get(self.text)]
        judged = [j for m in messages for j in judge_message(case, m)]
        return judged, len(messages)


def message(row: Mapping[str, Any], text: str, on: Mapping[str, str]) -> Message:
    """A row the agent wrote as a message: its ``text`` column's, on the records ``on`` names
    (context key -> column)."""
    return Message(plain(str(row[text])), on={
        key: row[column] for key, column in on.items() if row.get(column) is not None})


def _case(ctx: Context) -> Case:
    if ctx.case is None:
        raise ConfigError("checks of what the agent said need the apps' lexicon: score with "
                          "lexicon=replicas.catalog.lexicon()")
    return ctx.case


class AllSaid(Assertion):
    """Everything the agent wrote anywhere the apps say it writes (``writes`` in their claim
    files: comments, notes, issues, worklogs; new, or edited during the episode) and, unless
    the task checks it as an answer to a question, its final answer, is understood and true.
    The engine adds it to every task: no message goes unjudged."""

    check: Literal["all_said"] = "all_said"
    harm: bool = True
    answer: bool = Field(True, description="Judge the final answer too.")

    def evaluate(self, ctx: Context) -> tuple[bool, str] | tuple[bool, str, bool]:
        case = _case(ctx)
        messages = [message(row, write.text, write.on)
                    for app, writes in case.lexicon.writes.items() if app in ctx.world
                    for write in writes
                    for row in ctx.world[app].written_rows(write.table, dict(write.by),
                                                           write.text)
                    if row.get(write.text)]
        if self.answer and ctx.answer:
            messages.append(Message(ctx.answer))
        judged = [j for m in messages for j in judge_message(case, m)]
        failed = _verdict(judged, "what the agent wrote", len(messages))
        if failed:
            return failed
        checked = sum(j.verdict is Verdict.TRUE for j in judged)
        return True, (f"{len(messages)} message(s): {checked} statement(s) checked, all true")


class Told(_Said):
    """The agent wrote there, everything it wrote is understood and true, and it states
    every fact in ``facts``."""

    check: Literal["told"] = "told"
    facts: list[Fact] = Field(default_factory=list)
    min_length: int = Field(1, ge=1, description="Characters the messages need at least.")

    def evaluate(self, ctx: Context) -> tuple[bool, str] | tuple[bool, str, bool]:
        judged, count = self._judged(ctx)
        target = _target(self.table, self.where, "final")
        if not count:
            return False, f"nothing written in {target}"
        texts = sum(len(j.statement.text) for j in judged)
        if texts < self.min_length:
            return False, f"{count} message(s) in {target}, shorter than {self.min_length}"
        failed = _verdict(judged, target, count)
        if failed:
            return failed
        missing = [str(fact) for fact in self.facts if not fact.stated(judged)]
        if missing:
            return False, f"{count} message(s) in {target}; not stated: {', '.join(missing)}"
        return True, f"{count} message(s) in {target} state what is required, all true"


class AnswerStates(Assertion):
    """The final answer is understood and true, and states every fact in ``facts``."""

    check: Literal["answer_states"] = "answer_states"
    facts: list[Fact] = Field(default_factory=list)

    def evaluate(self, ctx: Context) -> tuple[bool, str] | tuple[bool, str, bool]:
        if not ctx.answer:
            return False, "no answer"
        judged = judge_message(_case(ctx), Message(ctx.answer))
        failed = _verdict(judged, "the answer", 1)
        if failed:
            return failed
        missing = [str(fact) for fact in self.facts if not fact.stated(judged)]
        if missing:
            return False, f"the answer does not state: {', '.join(missing)}"
        return True, "the answer states what is required, all true"


class Answer(Assertion):
    """The final answer to a question, parsed as ``type`` and equal to ``value``:

    * ``count``: one whole number (in digits or words), not counting those inside ids,
      amounts and dates;
    * ``ids``: the records of kind ``of`` it names (``issue``, ``order``, ``ticket``): exactly
      those of ``value`` (a list, or a string of them), none missing, none extra; ids in a
      clause that excludes them ("not SHOP-5") do not count;
    * ``amount``: one amount with its currency (``value``: [minor units, currency]);
    * ``name``: one of ``names`` (the candidates), and it is ``value``;
    * ``yes_no``: yes or no (``value``: true or false), from its first statement.

    Two candidates for the one slot fail: hedging is no answer."""

    check: Literal["answer"] = "answer"
    type: Literal["count", "ids", "amount", "name", "yes_no"]
    value: Any
    of: str | None = Field(None, description="ids: the kind of record (issue, order, ticket).")
    names: list[str] = Field(default_factory=list, description="name: every candidate.")

    @model_validator(mode="after")
    def _typed(self) -> Answer:
        if self.type == "ids" and not self.of:
            raise ValueError("an ids answer names the kind of record: of (issue, order, ...)")
        if self.type == "name" and not self.names and not isinstance(self.value, str):
            raise ValueError("a name answer gives the candidates (names) and the value")
        return self

    def evaluate(self, ctx: Context) -> tuple[bool, str] | tuple[bool, str, bool]:
        if not ctx.answer:
            return False, "no answer"
        reading = read(_case(ctx), Message(ctx.answer))
        statements = [s for s in reading.statements if s.kind is not Kind.UNREADABLE]
        kept = [s for s in statements if s.polarity is Polarity.POSITIVE
                or self.type in ("yes_no", "count")]
        found: list[Any]
        if self.type == "count":
            found = sorted(set(_counts(ctx.answer, reading.statements)))
            expected: Any = int(self.value)
        elif self.type == "ids":
            found = sorted({e.value for s in kept for e in s.of(str(self.of))})
            wanted = self.value if isinstance(self.value, list) else re.findall(
                r"[A-Z][A-Z0-9]*-\d+|\d+", str(self.value))
            expected = sorted({key(str(v)) if self.of != "issue" else str(v).upper()
                               for v in wanted})
            ok = found == expected
            return ok, (f"the answer names {found or 'no ' + str(self.of)}"
                        + ("" if ok else f", not {expected}"))
        elif self.type == "amount":
            found = sorted({e.value for s in kept for e in s.of("money")})
            expected = (int(self.value[0]), str(self.value[1]).upper())
        elif self.type == "name":
            candidates = self.names or [str(self.value)]
            found = sorted({c for c in candidates if re.search(
                rf"(?<![\w-]){re.escape(c)}(?![\w-])", ctx.answer, re.IGNORECASE)})
            expected = str(self.value)
        else:
            found = _yes_no(ctx.answer)
            expected = bool(self.value)
        if len(found) != 1:
            return False, (f"the answer gives {len(found)} candidates "
                           f"({', '.join(map(str, found)) or 'none'}): one is wanted")
        ok = found[0] == expected
        return ok, f"the answer is {found[0]}" + ("" if ok else f", not {expected}")


_INSIDE = ("money", "date", "duration", "order", "issue", "ticket", "charge", "percent",
           "card", "phone", "email", "version")


_OUT_OF = re.compile(r"\b(?:of|out of|from|among|von|sur|de|entre)"
                     r"(?: the| all| les| los| las| den| die)?\s*$", re.IGNORECASE)


def _counts(answer: str, statements: Sequence[Statement]) -> list[int]:
    """The whole numbers an answer gives, but those inside ids, amounts and dates and the
    totals it counts out of ("3 of the five orders": 3)."""
    spans = [(e.start, e.end) for s in statements for e in s.entities if e.kind in _INSIDE]
    values = [int(e.value[0]) for s in statements for e in s.entities
              if e.kind == "count" and not _OUT_OF.search(answer[:max(0, e.start)])]
    spans += [(e.start, e.end) for s in statements for e in s.entities if e.kind == "count"]
    for match in re.finditer(r"(?<![\w.,-])\d+(?![\w.,]\d)", answer):
        if not any(a <= match.start() < b for a, b in spans) \
                and not _OUT_OF.search(answer[:match.start()]):
            values.append(int(match.group()))
    words = {"zero": 0, "none": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4,
             "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
    for match in re.finditer(r"\b(" + "|".join(words) + r")\b", answer, re.IGNORECASE):
        if not any(a <= match.start() < b for a, b in spans) and match.group().lower() != "no" \
                and not _OUT_OF.search(answer[:match.start()]):
            values.append(words[match.group().lower()])
    return values


def _yes_no(answer: str) -> list[bool]:
    found = set()
    if re.search(r"\b(?:yes|yeah|correct|ja|oui|sí|si)\b|はい", answer, re.IGNORECASE):
        found.add(True)
    if re.search(r"\b(?:no|nope|nein|non)\b|いいえ", answer, re.IGNORECASE):
        found.add(False)
    return sorted(found)
