"""The language cues of ``language.yaml``, compiled: one regular expression per language and
kind of cue (negation, future, hedge, ...), the number words, units and extents, and a
guess of which language a sentence is in."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import yaml

LANGUAGES = ("en", "de", "fr", "es", "ja")
_FILE = Path(__file__).with_name("language.yaml")
_KANA = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# The kinds of cue that are lists of phrases.
PHRASES = ("negation", "denial", "hedge", "approximate", "approximate_after", "bound",
           "alternative", "future", "ability", "condition", "obligation", "request",
           "imperative", "present", "benign", "clause", "ack", "question_words", "card",
           "range", "business", "predicate", "temporal", "relative", "nothing", "reported",
           "verb_before", "verb_after", "domain", "verbs", "vague", "mention", "topic",
           "cleft", "determiner", "participle", "copula", "equals", "regret", "frame", "contact",
           "evidential", "support", "modal", "requested", "requested_after", "first_person",
           "phrase")



def alternation(phrases: Iterable[str], *, words: bool = True) -> str:
    """One regex matching any of ``phrases`` (regex fragments), longest first; as whole
    words when ``words`` (a phrase that starts or ends with a letter or digit is guarded on
    that side, so "no" is not the start of "note")."""
    parts = []
    for phrase in sorted(set(phrases), key=len, reverse=True):
        if not words:
            parts.append(f"(?:{phrase})")
            continue
        left = r"(?<!\w)" if re.match(r"[\w(\\]", phrase) and not phrase.startswith("n'") \
            else ""
        right = r"(?!\w)" if re.search(r"[\w)?+*]$", phrase) and not phrase.endswith(" ?") \
            and "(?=" not in phrase else ""
        parts.append(f"{left}(?:{phrase}){right}")
    return "|".join(parts) or r"(?!x)x"


@dataclass(frozen=True)
class Language:
    """One language's cues, compiled."""

    code: str
    cues: Mapping[str, re.Pattern[str]]
    numbers: Mapping[str, int]
    tens: frozenset[str]
    times: tuple[tuple[re.Pattern[str], int], ...]
    ordinals: Mapping[str, int]
    units: tuple[tuple[re.Pattern[str], int, str], ...]  # (pattern, days, unit)
    extents: Mapping[str, re.Pattern[str]]
    relative_days: Mapping[str, int]
    words: frozenset[str]

    def has(self, cue: str, text: str) -> bool:
        return self.cues[cue].search(text) is not None

    def find(self, cue: str, text: str) -> list[re.Match[str]]:
        return list(self.cues[cue].finditer(text))

    def number(self, text: str) -> int | None:
        """``14``, ``fourteen``, ``twenty-one``, ``zwei`` -> the integer."""
        text = text.strip().lower()
        if text.isdigit():
            return int(text)
        if text in self.numbers:
            return self.numbers[text]
        parts = re.split(r"[-\s]", text)
        if len(parts) == 2 and parts[0] in self.tens and parts[1] in self.numbers:
            return self.numbers[parts[0]] + self.numbers[parts[1]]
        return None

    @cached_property
    def number_words(self) -> str:
        words = [re.escape(w) for w in self.numbers]
        tens = "|".join(re.escape(t) for t in self.tens)
        compound = f"(?:{tens})[- ](?:{'|'.join(words)})" if tens else None
        return alternation([*([compound] if compound else []), *words],
                           words=self.code != "ja")


def _compile(code: str, data: Mapping[str, Any]) -> Language:
    latin = code != "ja"
    flags = re.IGNORECASE

    def rx(phrases: Iterable[str]) -> re.Pattern[str]:
        return re.compile(alternation(phrases, words=latin), flags)

    units = []
    for phrase, days in data["units"].items():
        unit = "min" if phrase.startswith(("minut", "分")) else (
            "h" if days == 0 else "d")
        units.append((re.compile(alternation([phrase], words=latin), flags), int(days), unit))
    return Language(
        code=code,
        cues={kind: rx(data.get(kind, [])) for kind in PHRASES},
        numbers={str(k).lower(): int(v) for k, v in data["numbers"].items()},
        tens=frozenset(data.get("tens", [])),
        times=tuple((re.compile(alternation([p], words=latin), flags), int(n))
                    for p, n in data["times"].items()),
        ordinals={str(k).lower(): int(v) for k, v in data["ordinals"].items()},
        units=tuple(units),
        extents={kind: rx(phrases) for kind, phrases in data["extent"].items()},
        relative_days={str(k).lower(): int(v) for k, v in data["relative_days"].items()},
        words=frozenset(str(w).lower() for w in data["words"]),
    )


@cache
def languages() -> Mapping[str, Language]:
    raw = yaml.safe_load(_FILE.read_text(encoding="utf-8"))
    if sorted(raw) != sorted(LANGUAGES):
        raise ValueError(f"{_FILE}: languages {sorted(raw)}, expected {sorted(LANGUAGES)}")
    return {code: _compile(code, raw[code]) for code in LANGUAGES}


_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_TELLING = ("domain", "vague", "benign", "regret", "negation", "future")


def guess(text: str, default: str = "en") -> str:
    """The language ``text`` is most likely in: Japanese by its script, the others by their
    commonest words; ``default`` when nothing tells."""
    kana = len(_KANA.findall(text))
    if kana and kana * 3 >= len(re.sub(r"\s", "", text)) * 0.25:
        return "ja"
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return default
    scores = {code: sum(w in lang.words for w in words)
              for code, lang in languages().items() if code != "ja"}
    best = max(scores.values())
    tied = [code for code, score in scores.items() if score == best]
    if len(tied) > 1:
        # No common word tells ("Erstattung. Bestellung. Erledigt.", "Le enviaremos un
        # cupón"): the words of the business, of how things went, of tense tell.
        langs = languages()
        bare = [w.rsplit("'", 1)[-1] for w in words]  # "l'autorisation"
        scores = {code: best + sum(any(langs[code].cues[cue].fullmatch(w) for cue in _TELLING)
                                   for w in bare) for code in tied}
        best = max(scores.values())
    if best == 0:
        return default
    leaders = [code for code, score in scores.items() if score == best]
    return default if default in leaders else leaders[0]
