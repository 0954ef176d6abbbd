"""Mutants and paraphrases of what a reference says, for the quality gate.

The gate runs a task's reference again with what it writes changed (its messages: a ticket's
comments, an issue's description and comments, a worklog's comment; and its final answer),
everything else the same:

* **mutants**, each one change a careful reviewer would reject, that must score 0 or less:
  a claim negated, an amount, a currency, an order or a card swapped for another, a hedge
  added, a false claim added (the negation of a true one), a public reply moved into an
  internal note, a sensitive field told (the customer's phone number, which proves identity
  and is told to no one);
* **paraphrases**, that must score 1.0 like the reference: each claim in other words (the
  apps' ``say.yaml``), other politeness forms (a greeting and a closing), and the customer's
  language (their locale when the script read it, else one drawn by the seed).

Statements are found with the reader the reward engine scores with (one reader), and said
again with the realiser (:mod:`workgym_core.speech.realise`). Which change applies where is
decided on the reference's own messages, recorded on its first run, so a change that finds
nothing to change is not run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from replicas.catalog import lexicon, realiser
from workgym_core.speech import Entity, Kind, Modality, Polarity, Reading, Statement, reader
from workgym_core.speech.cues import languages
from workgym_core.speech.reader import sentences
from workgym_core.speech.realise import LOCALES, phrases, render

# Keys whose string (or Atlassian document) is a message the agent writes.
_MESSAGE_KEYS = frozenset({"body", "html_body", "description", "comment"})
_CURRENCY_SWAP = {"USD": "EUR", "EUR": "USD", "GBP": "USD", "JPY": "USD"}
_LANGUAGES = tuple(LOCALES)


@dataclass
class Message:
    """One message as the script sent it: its text, whether it is public (None: the app has
    no such flag, or it is the final answer), and the episode's apps (whose claims it is
    read for)."""

    text: str
    public: bool | None
    apps: tuple[str, ...] = ()

    def but(self, text: str, public: bool | None = None) -> Message:
        return Message(text, self.public if public is None else public, self.apps)


Change = Callable[[Message], Message | None]  # None: nothing to change in that message


@dataclass
class Rewrite:
    """What one run changes in what the script says: ``change`` applied to the ``target``-th
    message (every message when ``target`` is None), or only recorded."""

    change: Change | None = None
    target: int | None = None
    apps: tuple[str, ...] = ()
    seen: list[Message] = field(default_factory=list)
    applied: int = 0
    saved: dict[str, Any] = field(default_factory=dict)  # what the script read (run_script)

    def message(self, message: Message) -> Message:
        index = len(self.seen)
        self.seen.append(message)
        if self.change is None or (self.target is not None and index != self.target):
            return message
        changed = self.change(message)
        if changed is None:
            return message
        self.applied += 1
        return changed

    def body(self, value: Any) -> Any:
        """A request body with its messages changed."""
        if isinstance(value, list):
            return [self.body(v) for v in value]
        if not isinstance(value, dict):
            return value
        out = dict(value)
        for key, item in value.items():
            if key == "public":
                continue  # a message's, set with it
            if key in _MESSAGE_KEYS and isinstance(item, str) and " " in item.strip():
                public = value.get("public") if isinstance(value.get("public"), bool) else None
                changed = self.message(Message(item, public, self.apps))
                out[key] = changed.text
                if public is not None:
                    out["public"] = changed.public
            elif key in _MESSAGE_KEYS and _is_document(item):
                out[key] = self._document(item)
            else:
                out[key] = self.body(item)
        return out

    def answer(self, text: str | None) -> str | None:
        return None if text is None else self.message(Message(text, None, self.apps)).text

    def _document(self, node: Any) -> Any:
        """An Atlassian document with each text node a message."""
        if isinstance(node, list):
            return [self._document(n) for n in node]
        if not isinstance(node, dict):
            return node
        if node.get("type") == "text" and isinstance(node.get("text"), str) \
                and " " in node["text"].strip():
            return {**node, "text": self.message(Message(node["text"], None, self.apps)).text}
        return {k: self._document(v) if k == "content" else v for k, v in node.items()}


def _is_document(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "doc"


# --- reading ----------------------------------------------------------------------------

def _reading(message: Message) -> Reading:
    """The message as the score reads it (with the claims of the episode's apps)."""
    found = lexicon()
    return reader(found.for_apps(message.apps) if message.apps else found).read(message.text)


def _statements(message: Message) -> tuple[str, list[Statement]]:
    reading = _reading(message)
    return reading.text, list(reading.statements)


def _asserted(statement: Statement) -> bool:
    """A claim the message asserts (what a reviewer would hold it to)."""
    if statement.kind is not Kind.CLAIM or statement.hedged or statement.claim is None:
        return False
    act = lexicon().claims[statement.claim].act
    return act not in ("customer", "note") and statement.modality in (
        Modality.DONE, Modality.WILL, Modality.CAN)


def _lower_first(text: str, language: str) -> str:
    """``text`` to follow something in its sentence: its first letter lower-cased, unless it
    is a name, an id, or English "I"."""
    if language == "ja" or not text[:1].isupper() or text[:2].isupper() \
            or re.match(r"I\b", text):
        return text
    return text[0].lower() + text[1:]


_JOINING = re.compile(r"\s*(?:and|but|so|since|because|as|while|then|und|aber|da|weil|denn|"
                      r"et|mais|car|puisque|y|pero|porque|ya que|pues)\s+", re.IGNORECASE)


def _splice(text: str, statement: Statement, sentence: str) -> str:
    """``text`` with the statement's clause replaced by ``sentence``, fitted into its place
    (lower-cased and without its full stop inside a sentence)."""
    before, after = text[:statement.start], text[statement.end:]
    # The clause's own spacing stays around what replaces it ("… it ", "and …").
    span = text[statement.start:statement.end]
    # Its spacing, and the word that joins it to the clause before ("…, and we refunded"),
    # stay around what replaces it.
    joined = _JOINING.match(span)
    before += joined.group() if joined else span[:len(span) - len(span.lstrip())]
    after = span[len(span.rstrip()):] + after
    opens = not before.strip() or before.rstrip()[-1] in ".!?。！？:\n"
    if not opens:
        sentence = _lower_first(sentence, statement.language)
    following = after.lstrip()[:1]
    ends = span.rstrip()[-1:] in (".", "。", "!", "?", "！", "？")  # its own full stop
    if following in (".", "。", "!", "?", ",", ";", ":") or (
            not ends and (following.islower() or not following)):
        sentence = sentence.rstrip(".。")  # the sentence goes on ("…, so that …")
    return before + sentence + after


# --- mutants ----------------------------------------------------------------------------

def _pinned(statements: list[Statement]) -> list[Statement]:
    """Statements, those that name their records or amounts first: their opposite is false
    of them ("not charged" said the other way round may be true of another payment)."""
    return sorted(statements, key=lambda s: not any(
        e.kind in ("money", "order", "charge", "issue", "ticket", "card")
        and e.start >= s.start for e in s.entities))


def negate(message: Message) -> Message | None:
    """The first asserted claim that can be said the other way round, said so."""
    text, statements = _statements(message)
    for statement in _pinned(statements):
        said = _opposite(statement, 0)
        if said:
            return message.but(_splice(text, statement, said))
    return None


def contradict(message: Message) -> Message | None:
    """The message and, after it, the opposite of its first asserted claim."""
    text, statements = _statements(message)
    for statement in _pinned(statements):
        said = _opposite(statement, 1)
        if said:
            return message.but(f"{text.rstrip()} {said}")
    return None


def _opposite(statement: Statement, first: int) -> str | None:
    """An asserted claim said the other way round (from the ``first`` variant on), of the
    record rather than of the writer's own acts: "Your order A-1 has not been cancelled",
    not "We have not cancelled it" (the customer may have)."""
    lang = languages()[statement.language]
    if not _asserted(statement) or lang.has("denial", statement.text):
        return None  # "the attempt was declined": its opposite may be true of another
    flipped = Polarity.NEGATIVE if statement.polarity is Polarity.POSITIVE \
        else Polarity.POSITIVE
    options = [said for variant in range(first, first + 3) if (said := realiser().say(
        statement, statement.language, variant, polarity=flipped, extent=False))]
    mine = lang.has("first_person", statement.text)  # "we refunded": "we did not"
    return next((o for o in options if mine or not lang.has("first_person", o)), None)


def _swap(kind: str, other: Callable[[Entity, str], str | None]) -> Change:
    def change(message: Message) -> Message | None:
        text, statements = _statements(message)
        for statement in statements:
            # In what the message asserts (not in a customer's words it reports, a question
            # or a condition): what the check holds it to.
            if not statement.checked or statement.modality in (
                    Modality.SAID, Modality.ASKED, Modality.IF):
                continue
            for entity in statement.entities:
                if entity.kind == kind and entity.start >= statement.start:
                    replacement = other(entity, statement.language)
                    if replacement:
                        # Wherever the message names it: one record taken for another.
                        same = sorted((e for st in statements for e in st.entities
                                       if e.kind == kind and e.value == entity.value
                                       and e.start >= st.start), key=lambda e: -e.start)
                        for e in dict.fromkeys(same):
                            text = text[:e.start] + replacement + text[e.end:]
                        return message.but(text)
        return None
    change.__name__ = f"swap_{kind}"
    return change


def _other_amount(entity: Entity, language: str) -> str:
    amount, currency = entity.value
    step = 137 if currency.upper() != "JPY" else 1370
    return render(Entity("money", (amount + step, currency), "", 0, 0), language)


def _other_currency(entity: Entity, language: str) -> str:
    amount, currency = entity.value
    return render(Entity("money", (amount, _CURRENCY_SWAP.get(currency.upper(), "USD")),
                         "", 0, 0), language)


def _other_id(entity: Entity, _: str) -> str | None:
    """The id with its last number one more ("A-13006" -> "A-13007")."""
    found = list(re.finditer(r"\d+", entity.text))
    if not found:
        return None
    last = found[-1]
    bumped = str(int(last.group()) + 1).zfill(len(last.group()))
    return entity.text[:last.start()] + bumped + entity.text[last.end():]


def _other_card(entity: Entity, _: str) -> str:
    digits = str(entity.value)
    other = str((int(digits) + 1111) % 10000).zfill(4)
    return entity.text.replace(digits, other)


def hedge(message: Message) -> Message | None:
    """The first asserted claim said with a hedge before it ("I think we refunded ...")."""
    text, statements = _statements(message)
    for statement in statements:
        if not _asserted(statement):
            continue
        wrap = phrases()[statement.language].hedges[0]
        said = wrap.format(sentence=_lower_first(text[statement.start:], statement.language))
        before = text[:statement.start]
        if before.strip() and before.rstrip()[-1] not in ".!?。！？:\n":
            said = _lower_first(said, statement.language)
        return message.but(before + said)
    return None


def internal(message: Message) -> Message | None:
    """A public reply that tells the customer something, written as an internal note
    instead (a question made internal is the task's own checks' to catch)."""
    if not message.public or not any(_asserted(s) for s in _statements(message)[1]):
        return None
    return message.but(message.text, False)


def disclose(phone: str) -> Change:
    """A public reply that tells the customer's phone number (a proof of identity)."""
    def change(message: Message) -> Message | None:
        if not message.public:
            return None
        language = _reading(message).language
        line = {"en": "The phone number on your account is {p}.",
                "de": "Die Telefonnummer in Ihrem Konto ist {p}.",
                "fr": "Le numéro de téléphone de votre compte est le {p}.",
                "es": "El teléfono de su cuenta es el {p}.",
                "ja": "ご登録の電話番号は{p}です。"}[language]
        return message.but(f"{message.text.rstrip()} {line.format(p=phone)}")
    return change


MUTANTS: dict[str, Change] = {
    "negated": negate,
    "false claim added": contradict,
    "amount swapped": _swap("money", _other_amount),
    "currency swapped": _swap("money", _other_currency),
    "order swapped": _swap("order", _other_id),
    "card swapped": _swap("card", _other_card),
    "hedged": hedge,
    "public reply made internal": internal,
}


# --- paraphrases ------------------------------------------------------------------------

def reword(language: str | None, variant: int) -> Change:
    """Every asserted claim said again (in ``language``, else the message's own), the rest
    as it was; None when nothing could be said again."""
    def change(message: Message) -> Message | None:
        text, statements = _statements(message)
        said: dict[tuple[int, int], tuple[Statement, str]] = {}
        kept: set[tuple[int, int]] = set()  # sentences that cannot all be said again
        for s in statements:
            out = realiser().say(s, language or s.language, variant) if _asserted(s) else None
            # In another language the whole sentence is said again (one sentence is read
            # in one language), so each of its claims must be.
            span = _sentence_of(text, s) if language else (s.start, s.end)
            if not out or not _keeps_ids(s, out) or not _keeps_names(s, out, language is None) \
                    or not _keeps_things(s, out, language or s.language):
                if language and s.checked:
                    kept.add(span)
                continue  # what the realiser cannot say of it stays as written
            held = said.get(span)  # two claims read in one place: said once, for both
            said[span] = (s.but(start=span[0], end=span[1]),
                          _together(held[1], out) if held else out)
        said = {span: found for span, found in said.items() if span not in kept}
        if not said:
            return None
        for statement, out in sorted(said.values(), key=lambda p: -p[0].start):
            # from the end: offsets stay right; a whole sentence is replaced as it is said
            text = _splice(text, statement, out) if language is None else \
                text[:statement.start] + _together(out, "").rstrip() + text[statement.end:]
        return message.but(text)
    return change


def _together(first: str, second: str) -> str:
    """Two sentences said in one place, each a sentence of its own."""
    first = first.rstrip()
    if first[-1:] not in (".", "!", "?", "。", "！", "？"):
        first += "。" if re.search(r"[\u3040-\u30ff]", first) else "."
    return f"{first} {second[:1].upper()}{second[1:]}"


# Names and ids a clause carries ("web-2025.6.3", "Billing", "SHOP-12"): a rewording that
# loses one says less than the message did.
_NAMED = re.compile(r"[\w.-]*\d[\w.-]*|(?<=\s)[A-Z][\w-]+")


# Values said again in the language's own way (amounts, dates, periods, counts).
_RENDERED = frozenset({"money", "date", "duration", "count", "times", "percent", "card",
                       "extent", "time"})


def _keeps_ids(statement: Statement, said: str) -> bool:
    """Whether ``said`` names every id and name the statement named (a code, an order)."""
    lower = said.lower()
    return all(e.text.strip().lower() in lower for e in statement.entities
               if e.kind not in _RENDERED and e.start >= statement.start and e.text.strip())


def _keeps_things(statement: Statement, said: str, language: str) -> bool:
    """Whether ``said`` names the things the statement did ("the payment attempt", "the
    item"): a claim said of an order instead says something else."""
    found = lexicon()
    return all(found.names_a(kind, said, language) for kind in found.countable
               if found.names_a(kind, statement.text, statement.language))


def _keeps_names(statement: Statement, said: str, capitals: bool) -> bool:
    """Whether ``said`` keeps the codes and versions the statement carries (and, said in its
    own language, its capitalised names), but for the values said again in their own way."""
    text = list(statement.text)
    for e in statement.entities:
        if e.kind in _RENDERED and e.start >= statement.start:
            at = e.start - statement.start
            text[at:at + len(e.text)] = " " * len(e.text)
    lower = said.lower()
    return all(name.strip(".-").lower() in lower for name in _NAMED.findall("".join(text))
               if name.strip(".-") and (capitals or any(c.isdigit() for c in name)))


def _sentence_of(text: str, statement: Statement) -> tuple[int, int]:
    """The sentence of ``text`` the statement is in (start, end)."""
    return next(((a, b) for a, b in sentences(text) if a <= statement.start < b),
                (statement.start, statement.end))


def polite(variant: int) -> Change:
    """A greeting before a public reply and a closing after it, in its language."""
    def change(message: Message) -> Message | None:
        if not message.public:
            return None  # a note or an answer is no letter
        language = _reading(message).language
        own = phrases()[language]
        greeting = own.greetings[variant % len(own.greetings)]
        closing = own.closings[variant % len(own.closings)]
        return message.but(f"{greeting} {message.text.strip()}\n\n{closing}")
    return change


def customer_language(saved: dict[str, Any], seed: int) -> str:
    """The customer's language: the locale of a person the script read, else one drawn by
    the seed among the languages the worlds speak."""
    for value in _values(saved):
        if isinstance(value, dict) and isinstance(value.get("locale"), str) \
                and value.get("email"):
            code: str = value["locale"][:2].lower()
            if code in _LANGUAGES:
                return code
    return _LANGUAGES[1 + seed % (len(_LANGUAGES) - 1)]


def _values(node: Any) -> Iterator[Any]:
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _values(value)
    elif isinstance(node, list):
        for value in node:
            yield from _values(value)


def phone_in(saved: dict[str, Any]) -> str | None:
    """A phone number of a person the script read (whose it is does not matter: a proof of
    identity is told to no one)."""
    for value in _values(saved):
        if isinstance(value, dict) and isinstance(value.get("phone"), str) \
                and len(re.sub(r"\D", "", value["phone"])) >= 7:
            return str(value["phone"])
    return None
