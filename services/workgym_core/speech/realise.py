"""Saying a statement again, in other words or another language: the realiser.

The reader (:mod:`.reader`) turns text into statements; the realiser turns a statement back
into a sentence, from templates each app gives for its claims (``replicas/<app>/say.yaml``)
and the languages' own phrases (``say.yaml`` beside this module: units, greetings,
closings). The quality gate uses it to paraphrase a reference's messages (other wording,
other politeness, the customer's language) and to mutate them (a claim negated).

A say file::

    refund:                       # a claim of the app's claims.yaml
      en:
        +done:                    # polarity and modality: + or -, done | will | can | asked
          - "We have refunded[ {money}][ for order {order}][ to your card ending in {card}]."
          - "[Order {order}: ]your refund[ of {money}] has been issued."

``{kind}`` is an entity of that kind (money, order, card, date, duration, ticket, issue,
version, percent, team, person, ...); ``[...]`` is said only when the statement has every
entity in it. A template fits a statement when it says each of the statement's entities
exactly once: a statement of two amounts ("$135 instead of $108") fits no single ``{money}``
and is not realised (the caller keeps its own words).

Values are said as people of the language write them (amounts, dates, durations, percents in
its locale); ids as written (``A-13006``, a ticket by its number: the template says it is a
ticket); the world's names as the world spells them (``Billing``, ``web-2025.6``), or, for
the fixed words an app names things with (a ticket's status, a customer's tier), as the
say file's ``names`` section says them in the language::

    names:                        # not a claim: kind -> name -> language -> words
      ticket_status:
        hold: {en: on hold, de: angehalten, ja: 保留}
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from babel.dates import format_date, format_skeleton
from babel.numbers import format_currency, format_decimal, get_currency_precision

from .model import Entity, Modality, Polarity, Statement

_FILE = Path(__file__).with_name("say.yaml")
_SLOT = re.compile(r"\{([a-z_]+)\}")
_GROUP = re.compile(r"\[([^\[\]]*)\]")
LOCALES = {"en": "en_US", "de": "de_DE", "fr": "fr_FR", "es": "es_ES", "ja": "ja_JP"}
# Entity kinds a template can say; a statement with any other cannot be said again.
SAYABLE = frozenset({"money", "order", "card", "date", "duration", "ticket", "issue", "version",
                     "percent", "team", "person", "charge", "code", "ticket_status",
                     "issue_status", "resolution", "urgency", "issue_priority", "product",
                     "tier", "count"})
# Ids, said as written; any other kind without a format of its own is a world's name.
_IDS = frozenset({"order", "issue", "charge", "payment", "refund_id", "dispute_id"})
# How a statement's modality is looked up ("+done", "-can", ...).
_MODALITY = {Modality.DONE: "done", Modality.WILL: "will", Modality.CAN: "can",
             Modality.ASKED: "asked"}


@dataclass(frozen=True)
class Phrases:
    """A language's own phrases: units of time, greetings, closings, hedges."""

    units: Mapping[str, tuple[str, str]]  # unit -> (one, many)
    greetings: tuple[str, ...]
    closings: tuple[str, ...]
    hedges: tuple[str, ...]  # "I think {sentence}"
    alternatives: str  # "{a} or {b}"


@cache
def phrases() -> dict[str, Phrases]:
    raw = yaml.safe_load(_FILE.read_text(encoding="utf-8"))
    return {code: Phrases(units={k: (v[0], v[1]) for k, v in spec["units"].items()},
                          greetings=tuple(spec["greetings"]), closings=tuple(spec["closings"]),
                          hedges=tuple(spec["hedges"]), alternatives=spec["alternatives"])
            for code, spec in raw.items()}


@dataclass(frozen=True)
class Realiser:
    """Every app's templates together: claim -> language -> "+done" -> templates, and how
    the apps' fixed names are said: kind -> name -> language -> words."""

    templates: Mapping[str, Mapping[str, Mapping[str, tuple[str, ...]]]]
    names: Mapping[str, Mapping[str, Mapping[str, str]]] = field(default_factory=dict)

    def say(self, statement: Statement, language: str, variant: int = 0, *,
            polarity: Polarity | None = None, extent: bool = True) -> str | None:
        """The statement as a sentence of ``language`` (its ``variant``-th fitting template,
        counting round), with ``polarity`` instead of its own if given; None when no
        template says all of it (``extent=False``: all of it but how much, "in full" —
        what a claim said the other way round can leave out)."""
        if statement.claim is None or statement.modality not in _MODALITY:
            return None
        own = [e for e in statement.entities if e.start >= statement.start
               and (extent or e.kind != "extent")]
        if any(e.kind not in SAYABLE for e in own if e.kind not in ("extent", "ordinal")):
            return None
        if any(e.kind in ("extent", "ordinal") for e in own):
            return None  # "in full", "the second payment": part of the meaning no slot keeps
        if any(e.value is None for e in own):
            return None  # "tomorrow" read without the episode's day: no date to say
        sign = (polarity or statement.polarity).value
        key = f"{sign}{_MODALITY[statement.modality]}"
        options = self.templates.get(statement.claim, {}).get(language, {}).get(key, ())
        fitting = [text for text in (fill(t, own, language, self.names) for t in options)
                   if text]
        return fitting[variant % len(fitting)] if fitting else None


def fill(template: str, entities: Sequence[Entity], language: str,
         names: Mapping[str, Mapping[str, Mapping[str, str]]] | None = None) -> str | None:
    """``template`` said of ``entities``: each once, every one of them; None if it cannot
    (``names``: how fixed names are said, kind -> name -> language -> words)."""
    wanted = Counter(e.kind for e in entities)
    slots = Counter(_SLOT.findall(_GROUP.sub("", template)))
    groups = [Counter(_SLOT.findall(g)) for g in _GROUP.findall(template)]
    # Required slots first, then each optional group whose entities are all there.
    used = Counter(slots)
    if any(used[k] > wanted[k] for k in used):
        return None
    kept = []
    for group in groups:
        if group and all(used[k] + n <= wanted[k] for k, n in group.items()):
            used += group
            kept.append(True)
        else:
            kept.append(False)
    if used != wanted:
        return None
    pool = {kind: [e for e in entities if e.kind == kind] for kind in wanted}
    marks = iter(kept)
    text = _GROUP.sub(lambda m: m.group(1) if next(marks) else "", template)
    return _SLOT.sub(lambda m: render(pool[m.group(1)].pop(0), language, names), text)


def render(entity: Entity, language: str,
           names: Mapping[str, Mapping[str, Mapping[str, str]]] | None = None) -> str:
    """An entity as people of ``language`` write it (``names``: how fixed names are said,
    kind -> name -> language -> words)."""
    locale = LOCALES.get(language, "en_US")
    kind, value = entity.kind, entity.value
    if kind == "money":
        amount, currency = value
        major = Decimal(amount).scaleb(-get_currency_precision(currency))
        return format_currency(major, currency, locale=locale)
    if kind == "date":
        text = str(value)
        if text.startswith("--"):
            day = date(2000, int(text[2:4]), int(text[5:7]))
            return format_skeleton("MMMMd", day, locale=locale)
        return format_date(date.fromisoformat(text), "long", locale=locale)
    if kind == "duration":
        lo, hi, unit = value
        one, many = phrases()[language].units[unit]
        n = str(lo) if lo == hi else f"{lo}{'〜' if language == 'ja' else '-'}{hi}"
        word = one if lo == hi == 1 else many
        return f"{n}{word}" if language == "ja" else f"{n} {word}"
    if kind == "percent":  # 10 (not 10.0); "10 %" where the language spaces it
        number = format_decimal(value, locale=locale)
        return f"{number} %" if language in ("de", "fr", "es") else f"{number}%"
    if kind == "card":
        return str(value)
    if kind == "count":
        return str(value[0]) if isinstance(value, tuple) else str(value)
    if kind == "ticket":
        return str(value)  # its number: "ticket #601" is said by the template
    if kind in _IDS:
        return _bare(entity.text)
    said = (names or {}).get(kind, {}).get(str(value), {}).get(language)
    return said or str(value)  # a world's name as the world spells it ("Billing")


def _bare(text: str) -> str:
    """An id as written, without what introduces it ("#A-1", "n° A-1", "Nr. 601")."""
    return re.sub(r"^(?:#|n\.?\s?[°º]\.?\s?|nr\.?\s?|no\.\s?|番号)", "", text.strip(),
                  flags=re.IGNORECASE)


def load(files: Iterable[Path]) -> Realiser:
    """The realiser of ``files`` (each app's say.yaml)."""
    templates: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {}
    names: dict[str, dict[str, dict[str, str]]] = {}
    for path in files:
        raw: Any = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for kind, by_name in (raw.pop("names", None) or {}).items():
            for name, by_language in by_name.items():
                if unknown := set(by_language) - set(LOCALES):
                    raise ValueError(f"{path}: names.{kind}.{name}: unknown {sorted(unknown)}")
                if str(name) in names.get(kind, {}):
                    raise ValueError(f"{path}: names.{kind}.{name} is said in another say.yaml")
                names.setdefault(kind, {})[str(name)] = {k: str(v) for k, v in
                                                         by_language.items()}
        for claim, by_language in raw.items():
            if claim in templates:
                raise ValueError(f"{path}: {claim!r} is said in another app's say.yaml too")
            templates[claim] = {
                code: {key: tuple(texts) for key, texts in forms.items()}
                for code, forms in by_language.items()}
            for code, forms in templates[claim].items():
                if code not in LOCALES:
                    raise ValueError(f"{path}: {claim}.{code}: unknown language")
                bad = [k for k in forms if not re.fullmatch(r"[+-](?:done|will|can|asked)", k)]
                if bad:
                    raise ValueError(f"{path}: {claim}.{code}: {bad} (give +done, -can, ...)")
    return Realiser(templates, names)
