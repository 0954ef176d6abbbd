"""The entities a text names, with their spans and normalised values.

Ids first (an app's order numbers, charges, issue keys, tickets: the lexicon's patterns), so
that ``A-13003 USD 329.00`` is an order and USD 329.00, never 13,003 dollars; then dates,
money (amounts with a currency written as a symbol, a code or a word, in any of the
languages' number formats: Babel's currency names and symbols), percentages, durations and
ranges of them, card digits, counts and ordinals of the things the apps count, extents
("in full", "the rest") and the world's names (teams, people, versions, statuses, ...).
Overlaps are settled by that order, then by length.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the lower case re compares by
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache
from re import _casefix  # type: ignore[attr-defined]  # the IGNORECASE equivalences re uses

from babel import Locale

from ..money import CURRENCIES, digits
from .cues import LANGUAGES, Language, alternation, languages
from .model import Entity

# --- money ------------------------------------------------------------------------------


@cache
def _currency_words() -> tuple[tuple[str, str], ...]:
    """(how it is written, ISO code) for every currency of the worlds: its code, the
    symbols people write, and its names in every language (Babel's, singular and plural,
    and their last word, or in French and Spanish their first: "dollars", "Pfund",
    "libras", "円")."""
    found: dict[str, str] = {}
    for code, (_, symbols) in CURRENCIES.items():
        for written in (code, *symbols):
            found[written.lower()] = code
        for language in LANGUAGES:
            locale = Locale.parse(language)
            names = [locale.currencies.get(code, "")]
            names += list(locale._data["currency_names_plural"].get(code, {}).values())
            symbol = locale.currency_symbols.get(code)
            for name in filter(None, [*names, symbol]):
                found[name.lower()] = code
                last = name.split()[-1] if " " in name and language != "ja" else None
                if last and len(last) > 3 and not last.startswith(("estadoun", "japon")):
                    found[last.lower()] = code
                # French and Spanish put the noun first ("30 000 yens", "45 dólares").
                first = name.split()[0] if " " in name and language in ("fr", "es") else None
                if first and len(first) > 3:
                    found[first.lower()] = code
    # The last words of names that are not the currency ("des États-Unis") are dropped
    # above; "sterling" alone is the pound.
    found["sterling"] = "GBP"
    found["ドル"] = "USD"  # Japanese writes dollars so (Babel's name is "米ドル")
    found["ユーロ"] = "EUR"
    found["ポンド"] = "GBP"
    return tuple(sorted(found.items(), key=lambda item: -len(item[0])))


def _currency_pattern() -> str:
    parts = []
    for written, _ in _currency_words():
        escaped = re.escape(written)
        latin = written[-1].isalpha() and ord(written[-1]) < 0x2000  # "dollars", not "円"
        parts.append(rf"{escaped}(?![^\W\d_])" if latin else escaped)
    return "|".join(parts)


_AMOUNT = (r"\d{1,3}(?:[.,\u202f\u00a0 ']\d{3})+(?:[.,]\d{1,2})?(?![\d])"
           r"|\d+(?:[.,]\d{1,2})?(?![\d])")


@cache
def _money() -> re.Pattern[str]:
    currency = _currency_pattern()
    return re.compile(
        rf"(?<![A-Za-z0-9_.,#-])(?:(?P<c1>{currency})\s?(?P<a1>{_AMOUNT})(?:,-|\.-)?"
        rf"|(?P<a2>{_AMOUNT})(?:,-|\.-)?\s?(?P<c2>{currency}))", re.IGNORECASE)


def _code(written: str) -> str:
    lowered = written.lower()
    return next(code for candidate, code in _currency_words() if candidate == lowered)


def minor_units(text: str, currency: str) -> int | None:
    """``1.234,50`` / ``1,234.50`` / ``29,00`` / ``1 200`` -> minor units of ``currency``:
    the last separator followed by one or two digits is the decimal one; every other
    separator groups thousands (so ``1.200`` yen is 1200)."""
    text = re.sub(r"[\s\u202f\u00a0']", "", text)
    decimal_at = max(text.rfind("."), text.rfind(","))
    if decimal_at >= 0 and len(text) - decimal_at - 1 in (1, 2):
        whole, fraction = text[:decimal_at], text[decimal_at + 1:]
    else:
        whole, fraction = text, ""
    whole = re.sub(r"[.,]", "", whole)
    if fraction and digits(currency) == 0:
        return None  # yen have no cents
    try:
        value = Decimal(f"{whole}.{fraction or 0}")
    except InvalidOperation:
        return None
    return int(value * 10 ** digits(currency))


# --- dates ------------------------------------------------------------------------------


@cache
def _months() -> dict[str, int]:
    """Month names in every language (Babel's wide and abbreviated forms), lower case."""
    found: dict[str, int] = {}
    for language in LANGUAGES:
        if language == "ja":
            continue
        locale = Locale.parse(language)
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for number, name in locale.months[context][width].items():
                    name = name.lower().rstrip(".")
                    if len(name) >= 3:
                        found[name] = number
    found["sept"] = 9
    return found


@cache
def _dates() -> tuple[re.Pattern[str], ...]:
    month = "|".join(sorted((re.escape(m) for m in _months()), key=len, reverse=True))
    return (
        re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
                   r"(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?"),
        re.compile(r"(?<!\d)(?P<y>\d{4})年\s?(?P<m>\d{1,2})月\s?(?P<d>\d{1,2})日"),
        re.compile(r"(?<![\d年])(?P<m>\d{1,2})月\s?(?P<d>\d{1,2})日"),
        re.compile(rf"(?<![\w.])(?P<d>\d{{1,2}})(?:st|nd|rd|th|er|º|°|\.)?\s?(?:de\s)?"
                   rf"(?P<mn>{month})(?![^\W\d_])\.?(?:,?\s(?:de\s)?(?P<y>\d{{4}}))?",
                   re.IGNORECASE),
        re.compile(rf"(?<![^\W\d_])(?P<mn>{month})\.?\s(?P<d>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?"
                   rf"(?:,?\s(?P<y>\d{{4}}))?", re.IGNORECASE),
        re.compile(r"(?<![\d.,/])(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?!\d)"),
        re.compile(r"(?<![\d.,/])(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?!\d)"),
        re.compile(r"(?<![\d.,/])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4})(?!\d)"),
    )


def _date_value(match: re.Match[str], language: str = "en") -> str | None:
    groups = match.groupdict()
    if groups.get("a"):  # 03/04/2025: day first but in English, where it is ambiguous
        a, b = int(groups["a"]), int(groups["b"])
        if a > 12 >= b:
            day, month = a, b
        elif b > 12 >= a:
            day, month = b, a
        elif language != "en":
            day, month = a, b
        else:
            return None
    else:
        month = int(groups["m"]) if groups.get("m") else _months().get(
            groups["mn"].lower().rstrip("."), 0)
        day = int(groups["d"])
    year = groups.get("y")
    try:
        date(int(year) if year else 2000, month, day)
    except ValueError:
        return None
    return f"{year}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"


# --- the finder -------------------------------------------------------------------------


@dataclass(frozen=True)
class IdPattern:
    """How an app's records are named in text (``order``: ``A-10423``), normalised to
    compare (``A10423``)."""

    kind: str
    pattern: re.Pattern[str]
    normal: Callable[[str], str]


def key(text: str) -> str:
    """An id as compared: upper case, letters and digits only (``#a-10423`` -> ``A10423``)."""
    return re.sub(r"[^0-9A-Z_]", "", text.upper())


_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_PHONE = re.compile(r"(?<![\w+])\+?\d[\d ().-]{5,}\d(?!\w)")
_PERCENT = re.compile(r"(?<![\d.,])(?P<n>\d+(?:[.,]\d+)?)\s?(?:%|percent\b|per cent\b|prozent\b|"
                      r"pour cent\b|por ciento\b|パーセント)", re.IGNORECASE)
_CARD_DIGITS = r"(?P<digits>\d{4})(?!\d)"
_LIST_NEXT = re.compile(r"\s*(?:,|and|und|et|y|e|o|or|oder|ou|と|、)\s*"
                        r"(?P<p>#|n\.?[°º]\.?\s?|n\.\s?|nr\.?\s?|no\.\s?|番号)?"
                        r"(?P<n>\d{1,7})(?![\d]|[.,]\d)", re.IGNORECASE)
# Words a count never reaches across ("1 but not order 2").
_JOINERS = "but|not|and|or|nor|than|aber|und|oder|nicht|mais|et|ou|pas|pero|y|o|no"
_CJK = "\u3040-\u30ff\u3400-\u9fff\uff00-\uffef"
_NAME_LEFT = rf"(?<![\w-](?<![{_CJK}]))"
_NAME_RIGHT = rf"(?!(?![{_CJK}])[\w-])"


@lru_cache(maxsize=8192)
def _name_pattern(surface: str) -> re.Pattern[str]:
    """A world's name as a word of its own (in Latin script), in any case: compiled once (the
    worlds have thousands, past what ``re`` keeps compiled)."""
    left = _NAME_LEFT if surface[0].isascii() and surface[0].isalnum() else ""
    right = _NAME_RIGHT if surface[-1].isascii() and surface[-1].isalnum() else ""
    return re.compile(f"{left}{re.escape(surface)}{right}", re.IGNORECASE)


class _Folding(dict[int, int]):
    """Each character as ``re.IGNORECASE`` compares it: the least of the characters it
    matches (its lower case, and the few ``re`` adds: "ı" is "i", "ſ" is "s"), found when
    first met."""

    def __missing__(self, char: int) -> int:
        lower = int(_sre.unicode_tolower(char))
        extra: tuple[int, ...] = _casefix._EXTRA_CASES.get(lower, ())
        self[char] = found = min((lower, *extra))
        return found


_FOLDING = _Folding()


def _fold(text: str) -> str:
    """``text`` with each character as ``re.IGNORECASE`` compares it (one for one): a match
    of a name in any case is a substring of the folded text, so a name whose folding is not
    in it has no match."""
    return text.lower() if text.isascii() else text.translate(_FOLDING)


# "the other payment", "l'autre paiement": the other one of those the message names.
_DEFINITE = re.compile(r"(?:(?<![\w'])(?:the|that|this|die|der|das|den|dem|des|diese[nmrs]?|le|la|"
                       r"les|ce|cet|cette|el|los|las|del|al|este|esta|ese|esa)\s+|(?<!\w)l')$",
                       re.IGNORECASE)
_INTO = re.compile(r"(?<!\w)(?:into|in|onto|zu|en|dans)\s+$", re.IGNORECASE)
_ARTICLES = frozenset({
"a", "an", "ein", "eine", "einen", "einem", "einer", "un", "une", "una",
                       "uno"})


_DURATIONS: dict[str, list[tuple[re.Pattern[str], int, str]]] = {}


def _duration_patterns(lang: Language) -> list[tuple[re.Pattern[str], int, str]]:
    """(pattern, days, unit) of each unit of the language, longest unit first: compiled once."""
    found = _DURATIONS.get(lang.code)
    if found is None:
        latin = lang.code != "ja"
        number = rf"(?:\d+|{lang.number_words})"
        ranges = lang.cues["range"].pattern
        business = lang.cues["business"].pattern
        left = r"(?<![\w.,])" if latin else r"(?<![\d.,])"
        sep = r"[\s-]?" if latin else r"\s?"
        found = _DURATIONS[lang.code] = [
            (re.compile(rf"{left}(?P<lo>{number})(?:\s?(?:{ranges})\s?(?P<hi>{number}))?{sep}"
                        rf"(?P<b>(?:{business})\s)?(?P<unit>{unit_pattern.pattern})",
                        re.IGNORECASE), days, unit)
            for unit_pattern, days, unit in sorted(lang.units, key=lambda u: -len(u[0].pattern))]
    return found


_UNITS: dict[str, re.Pattern[str]] = {}


def _any_unit(lang: Language) -> re.Pattern[str]:
    """Any unit of the language, as the duration patterns read it: a text without one has no
    duration (compiled once)."""
    found = _UNITS.get(lang.code)
    if found is None:
        found = _UNITS[lang.code] = re.compile(
            "|".join(f"(?:{unit.pattern})" for unit, _, _ in lang.units) or r"(?!x)x",
            re.IGNORECASE)
    return found


class Finder:
    """Finds every entity of a text; built once per lexicon."""

    def __init__(self, ids: Sequence[IdPattern], countable: Mapping[str, str]) -> None:
        self.ids = tuple(ids)
        self.langs = languages()
        # Counts and ordinals go with a thing the apps count: "two payments", "the second charge".
        nouns = "|".join(f"(?:{p})" for p in countable.values()) or r"(?!x)x"
        self._countable = [(kind, re.compile(rf"(?:{p})(?![^\W\d_])", re.IGNORECASE))
                           for kind, p in countable.items()]
        self._count = {}
        self._ordinal = {}
        for code, lang in self.langs.items():
            # "two duplicate payments"; never across a conjunction ("1 but not order 2")
            sep = r"\s?" if code == "ja" else rf"\s(?:(?!(?:{_JOINERS})\s)\w+\s){{0,2}}?"
            number = rf"(?P<n>\d+|{lang.number_words})"
            # "three customer tickets": the last of the nouns is what is counted.
            self._count[code] = re.compile(rf"{number}{sep}(?P<noun>{nouns})(?![^\W\d_])"
                                           rf"(?!\s(?:{nouns})(?![^\W\d_]))"
                                           if code != "ja" else
                                           rf"(?P<noun>{nouns})\s?(?:の)?(?P<n>\d+)\s?(?:件|回|つ)",
                                           re.IGNORECASE)
            words = alternation(lang.ordinals, words=code != "ja")
            # "the original payment method" is a way to pay, not the first payment.
            self._ordinal[code] = re.compile(rf"(?P<o>{words}){sep}(?P<noun>{nouns})(?![^\W\d_])"
                                             r"(?!\s+(?:method|methods|details|information|"
                                             r"page|form|link|provider)\b)"
                                             if code != "ja" else
                                             rf"(?P<o>{words})(?:の)?\s?(?P<noun>{nouns})",
                                             re.IGNORECASE)
        card_cues = "|".join(f"(?:{lang.cues['card'].pattern})" for lang in self.langs.values())
        # Masks are possessive (here and in the cues: "x{2,}+"): a run of "x" or "*" is not
        # given back a character at a time (quadratic in the run's length).
        self._card = re.compile(rf"(?:{card_cues})\s?(?:[:：]\s?)?(?:[*•xX]++\s?)?{_CARD_DIGITS}",
                                re.IGNORECASE)

    def find(self, text: str, names: Mapping[str, Mapping[str, str]] | None = None,
             today: date | None = None, language: str = "en") -> list[Entity]:
        """Every entity of ``text``; ``names``: kind -> {phrase: the name it says}."""
        taken: list[tuple[int, int]] = []
        found: list[Entity] = []

        def free(start: int, end: int) -> bool:
            return all(end <= a or start >= b for a, b in taken)

        def add(kind: str, value: object, start: int, end: int) -> None:
            if free(start, end):
                taken.append((start, end))
                found.append(Entity(kind, value, text[start:end], start, end))

        for email in _EMAIL.finditer(text):
            add("email", email.group().lower(), email.start(), email.end())
        for ident in self.ids:
            for match in ident.pattern.finditer(text):
                add(ident.kind, ident.normal(match.group()), match.start(), match.end())
        # The world's names: the longest first, and of one surface the kind that spells it
        # as written ("High" an issue's priority, "high" a ticket's urgency). A name is a
        # word of its own in Latin script, not in Japanese ("Dana Kimに", "Billingチーム").
        named = []
        folded = _fold(text)
        for order, (kind, surfaces) in enumerate((names or {}).items()):
            for surface in surfaces:
                if len(surface) < 2 or _fold(surface) not in folded:
                    continue  # no match without its letters, whatever their case
                for match in _name_pattern(surface).finditer(text):
                    named.append((-len(surface), match.group() != surface, order,
                                  match.start(), kind, surfaces[surface], match.end()))
        for _, _, _, start, kind, value, end in sorted(named):
            add(kind, value, start, end)
        for pattern in _dates():
            for match in pattern.finditer(text):
                day = _date_value(match, language)
                if day is not None:
                    add("date", day, match.start(), match.end())
        for match in self._card.finditer(text):
            add("card", match.group("digits"), match.start(), match.end())
        at = 0
        while (hit := _money().search(text, at)) is not None:
            match = hit
            at = match.start() + 1  # a match over card digits gives way to the next one
            if not free(match.start(), match.end()):
                continue
            currency = _code(match.group("c1") or match.group("c2"))
            amount = minor_units(match.group("a1") or match.group("a2"), currency)
            if amount is not None:
                add("money", (amount, currency), match.start(), match.end())
                at = match.end()
        for match in _PERCENT.finditer(text):
            add("percent", float(match.group("n").replace(",", ".")), match.start(), match.end())
        for code, lang in self._ordered(language):
            self._durations(text, lang, add)
            self._relative(text, lang, today, add)
            for match in self._count[code].finditer(text):
                n = lang.number(match.group("n"))
                if match.group("n").lower() in _ARTICLES:
                    continue  # "a bug" is no count
                if code != language and not match.group("n").isdigit():
                    continue  # "once the customer replies" counts no eleven customers
                if n == 1 and _INTO.search(text, 0, match.start()):
                    continue  # "merged into one ticket" counts nothing
                if n is not None:
                    add("count", (n, self._noun(match.group("noun"))), match.start(), match.end())
            for pattern, n in lang.times:
                for match in pattern.finditer(text):
                    times = n or lang.number(match.group(1)) or 0
                    if times:
                        add("times", times, match.start(), match.end())
            for match in self._ordinal[code].finditer(text):
                which = lang.ordinals.get(match.group("o").lower())
                if which == -2 and code != "ja" and not _DEFINITE.search(text, 0, match.start()):
                    continue  # "another task", "otra tarea": any other, not the other one
                if which is not None:
                    add("ordinal", (which, self._noun(match.group("noun"))), match.start(),
                        match.end())
            for extent, pattern in lang.extents.items():
                for match in pattern.finditer(text):
                    add("extent", extent, match.start(), match.end())
        # "tickets 543 and 98939", "チケット番号803と番号77397": the list's next ids.
        for entity in [e for e in found if e.kind == "ticket"]:
            rest = _LIST_NEXT.match(text, entity.end)
            while rest is not None:
                add("ticket", rest.group("n"), rest.start("n") - (len(rest.group("p") or "")),
                    rest.end())
                rest = _LIST_NEXT.match(text, rest.end())
        for match in _PHONE.finditer(text):
            if len(re.sub(r"\D", "", match.group())) >= 7:
                add("phone", re.sub(r"\D", "", match.group()), match.start(), match.end())
        return sorted(found, key=lambda e: e.start)

    def _ordered(self, language: str) -> list[tuple[str, Language]]:
        """The text's language first: its words win overlaps."""
        return sorted(self.langs.items(), key=lambda item: item[0] != language)

    def _noun(self, text: str) -> str:
        return next((kind for kind, pattern in self._countable if pattern.fullmatch(text)),
                    text.lower())

    @staticmethod
    def _durations(text: str, lang: Language, add: Callable[[str, object, int, int], None]
                   ) -> None:
        if not _any_unit(lang).search(text):
            return
        for rx, days, unit in _duration_patterns(lang):
            for match in rx.finditer(text):
                lo = lang.number(match.group("lo"))
                hi = lang.number(match.group("hi")) if match.group("hi") else lo
                if lo is None or hi is None:
                    continue
                scale = days or 1
                kind = "bd" if (match.group("b") or re.search(
                    r"business|working|werktag|arbeitstag|ouvr|hábil|habil|laborable|営業",
                    match.group("unit"),
                    re.IGNORECASE)) else unit
                add("duration", (lo * scale, hi * scale, kind), match.start(), match.end())

    @staticmethod
    def _relative(text: str, lang: Language, today: date | None,
                  add: Callable[[str, object, int, int], None]) -> None:
        words = alternation(lang.relative_days, words=lang.code != "ja")
        for match in re.finditer(words, text, re.IGNORECASE):
            offset = lang.relative_days[match.group().lower()]
            value = (today + timedelta(days=offset)).isoformat() if today else None
            add("date", value, match.start(), match.end())
