"""What a message states: money, order numbers, durations, dates and outcome claims.

A deterministic checker (no model): messages to customers and ``finish`` answers are read
for the facts a reviewer would check them for, in the forms people write them, in the
languages the worlds use (English, German, French, Spanish, Japanese):

* money with its currency: ``$29.00``, ``USD 29``, ``29 dollars``, ``£70``, ``¥1,200``,
  ``29,00 €``, ``1.234,50 EUR``, ``1200円`` (an amount without a currency is no money);
* order numbers: ``A-10423`` (also ``#A10423``);
* durations in digits or words: ``14 days``, ``fourteen days``, ``two weeks``, ``14 Tage``,
  ``deux semaines``, ``2週間`` (in days; a month is 30);
* dates: ``2025-06-16``, ``16 June 2025``, ``June 16``, ``16. Juni``, ``16 juin``;
* claims, per sentence: ``refunded`` (done or promised), ``not_refunded`` (refused, not
  possible, not eligible), ``escalated`` (handed to another team or a manager), ``asked``
  (a question for the customer), ``charged`` (a payment went through, a card was charged)
  and ``not_charged`` (nothing was charged, no charge made).

:func:`extract` returns every fact found; the assertions compare them with what the final
state says is true.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from workgym_core.money import CURRENCIES, digits

# --- numbers in words -------------------------------------------------------------------

_WORDS = {
    # English
    "zero": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    # German
    "ein": 1, "eine": 1, "einen": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6,
    "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12, "vierzehn": 14,
    "zwanzig": 20, "dreißig": 30, "sechzig": 60, "neunzig": 90,
    # French
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7,
    "huit": 8, "dix": 10, "quatorze": 14, "quinze": 15, "vingt": 20, "trente": 30,
    "soixante": 60, "quatre-vingt-dix": 90,
    # Spanish
    "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
    "nueve": 9, "diez": 10, "catorce": 14, "quince": 15, "veinte": 20, "treinta": 30,
    "sesenta": 60, "noventa": 90,
}
_TENS = {"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
_NUMBER_WORD = "|".join(sorted((re.escape(w) for w in _WORDS), key=len, reverse=True))


def _number(text: str) -> int | None:
    """``14``, ``fourteen``, ``twenty-one``, ``zwei`` -> the integer."""
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    if text in _WORDS:
        return _WORDS[text]
    parts = re.split(r"[-\s]", text)
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _WORDS:
        return _WORDS[parts[0]] + _WORDS[parts[1]]
    return None


# --- money ------------------------------------------------------------------------------

_SYMBOLS = sorted(((symbol, code) for code, (_, symbols) in CURRENCIES.items()
                   for symbol in (*symbols, code.lower())), key=lambda s: -len(s[0]))
_CURRENCY = "|".join(re.escape(symbol) for symbol, _ in _SYMBOLS)
_AMOUNT = r"\d{1,3}(?:[.,\s]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_MONEY = re.compile(
    rf"(?P<before>{_CURRENCY})\s?(?P<a>{_AMOUNT})(?![\d])"
    rf"|(?P<b>{_AMOUNT})\s?(?P<after>{_CURRENCY})(?![a-z])", re.IGNORECASE)


def _code(symbol: str) -> str:
    lowered = symbol.lower()
    return next(code for candidate, code in _SYMBOLS if candidate.lower() == lowered)


def _amount(text: str, currency: str) -> int | None:
    """``1.234,50`` / ``1,234.50`` / ``29,00`` / ``1 200`` -> minor units of ``currency``."""
    text = text.replace(" ", "").replace("\u202f", "")
    last_dot, last_comma = text.rfind("."), text.rfind(",")
    decimal_at = max(last_dot, last_comma)
    if decimal_at >= 0 and len(text) - decimal_at - 1 in (1, 2):
        whole, fraction = text[:decimal_at], text[decimal_at + 1:]
    else:  # no decimals: every separator groups thousands ("1.200" yen, "1,200")
        whole, fraction = text, ""
    whole = re.sub(r"[.,]", "", whole)
    try:
        value = Decimal(f"{whole}.{fraction or 0}")
    except InvalidOperation:
        return None
    return int(value * 10 ** digits(currency))


@dataclass(frozen=True)
class Money:
    amount: int  # minor units
    currency: str


# --- durations and dates ----------------------------------------------------------------

_UNITS = {
    "day": 1, "days": 1, "business day": 1, "business days": 1, "working days": 1,
    "week": 7, "weeks": 7, "month": 30, "months": 30,
    "tag": 1, "tage": 1, "tagen": 1, "werktage": 1, "woche": 7, "wochen": 7, "monat": 30,
    "monate": 30, "monaten": 30,
    "jour": 1, "jours": 1, "semaine": 7, "semaines": 7, "mois": 30,
    "día": 1, "días": 1, "dia": 1, "dias": 1, "semana": 7, "semanas": 7, "mes": 30,
    "meses": 30,
    "日": 1, "日間": 1, "週間": 7, "週": 7, "か月": 30, "ヶ月": 30, "カ月": 30,
}
_UNIT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
# A number in digits (``14 days``, ``2週間``) or in words, a whole word before its unit
# (``fourteen days``; never the "a" of "names").
_DURATION = re.compile(
    rf"(?:(?<![0-9A-Za-z.,])(?P<n>\d+)[\s-]?|\b(?P<w>(?:{_NUMBER_WORD})(?:-(?:{_NUMBER_WORD}))?)[\s-])"
    rf"(?P<unit>{_UNIT})(?![a-zäöüéèáíóú])", re.IGNORECASE)

_MONTH_NAMES = (
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"],
    ["januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september",
     "oktober", "november", "dezember"],
    ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
     "octobre", "novembre", "décembre"],
    ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
     "octubre", "noviembre", "diciembre"],
)
_MONTHS = {name: i + 1 for names in _MONTH_NAMES for i, name in enumerate(names)} | {
    name[:3]: i + 1 for i, name in enumerate(_MONTH_NAMES[0]) if name != "may"}
_MONTH = "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True))
_DATES = (
    re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"),
    re.compile(rf"(?<!\d)(?P<d>\d{{1,2}})\.?\s(?:de\s)?(?P<mn>{_MONTH})\.?"
               rf"(?:\s(?:de\s)?(?P<y>\d{{4}}))?", re.IGNORECASE),
    re.compile(rf"(?P<mn>{_MONTH})\.?\s(?P<d>\d{{1,2}})(?!\d)(?:st|nd|rd|th)?"
               rf"(?:,?\s(?P<y>\d{{4}}))?", re.IGNORECASE),
)

# --- claims -----------------------------------------------------------------------------

# Any mention of refunding (with a negation in its sentence: a refusal) ...
_REFUND_WORD = re.compile(
    r"refund|money back|reimburs|erstatt|gutgeschrieben|rembours|reembols|返金|払い戻",
    re.IGNORECASE)
# ... and what claims one was made or is coming ("refund policy" claims nothing).
_REFUND = re.compile(
    r"\brefunded\b|\breimbursed\b|\bmoney back\b|\bcredited\b|\brefunding\b|"
    r"\b(?:we|i)(?:'ve|'ll| have| will| 've| 'll|'d| would)?\s+(?:now\s+|just\s+|already\s+)?"
    r"(?:issued\s+(?:you\s+)?a\s+|process(?:ed)?\s+(?:a|your|the)\s+|sent\s+(?:a|your)\s+)?"
    r"refund(?:ed)?\b|"
    r"\b(?:your|a|the)\s+refund\s+(?:has\s+been|was|is\s+(?:being|now)|will\s+be)\s+"
    r"(?:issued|processed|sent|approved|completed|made|paid)\b|"
    r"\b(?:your|a|the)\s+refund\s+is\s+on\s+its\s+way\b|"
    r"\brefund\s+(?:of|for)\b|"
    r"erstattet|zurückerstattet|gutgeschrieben|erstatten\s+(?:wir|ihnen)|"
    r"rembours(?:é|ée|és|ons|erons|ement)|reembols(?:ado|ada|aremos|amos|o)|"
    r"返金(?:しました|いたしました|します|いたします|手続き|させていただき)|払い戻し(?:ました|ます)",
    re.IGNORECASE)
_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|can't|cant|unable|won't|wont|isn't|aren't|wasn't|unfortunately"
    r"|declin\w*|refus\w*|den(?:y|ied)|ineligible|outside|expired|nicht|kein\w*|leider|"
    r"abgelehnt|pas|ne|impossible|malheureusement|no podemos|lamentablemente|denegad\w*)\b"
    r"|できません|出来ません|不可|いたしかねます|ございません", re.IGNORECASE)
_ESCALATE = re.compile(
    r"escalat|passed (?:it |this |your case )?(?:on )?to|forwarded (?:it |this )?to|"
    r"handed (?:it |this )?(?:over )?to|our (?:billing|tier 2|specialist|manager)|"
    r"weitergeleitet|eskaliert|transmis|escalad|transferid|エスカレ|担当部署", re.IGNORECASE)
_QUESTION = re.compile(r"\?|？|could you|can you|please (?:send|provide|confirm|share|reply|"
                       r"tell)|let us know|könnten sie|pourriez-vous|podría", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
# A negation refuses the refund only in its own clause ("no need for a chargeback: we will
# refund you" promises one); a regret opening the sentence covers all of it.
_CLAUSE = re.compile(r"[,;:()—–、，（）]|\s(?:but|so|aber|mais|pero|however|though)\s",
                     re.IGNORECASE)
_REGRET = re.compile(r"\b(?:unfortunately|sadly|i'm afraid|leider|malheureusement|"
                     r"lamentablemente|desafortunadamente)\b", re.IGNORECASE)

# A payment taken, or not: "went through", "your card was charged"; a negation in the clause
# ("you were not charged", "nothing was charged", "no charge") says nothing was taken.
_CHARGE_WORD = re.compile(
    r"\bcharge[ds]?\b|\bg(?:o|oes|one|went)\s+through\b|\bdebited\b|\bbilled\b|belastet|"
    r"abgebucht|débité|prélevé|cobrad|cargad|\bcobro\b|請求|引き落と|決済", re.IGNORECASE)
_CHARGED = re.compile(
    r"\b(?:went|gone)\s+through\b|"
    r"\b(?:has|have|was|were|had|is|been)\s+(?:now\s+|just\s+|already\s+|successfully\s+)?"
    r"(?:charged|debited|billed)\b|"
    r"\b(?:we|i)(?:'ve|'d| have| had)?\s+(?:now\s+|just\s+|successfully\s+)?(?:charged|billed)\b|"
    r"\bsuccessfully\s+(?:charged|paid|processed|completed)\b|"
    r"\bpayment\s+(?:has\s+been|was|is(?:\s+now)?)\s+(?:successful|processed|completed?|"
    r"accepted|approved|taken|confirmed|made|succeeded)\b|\bpayment\s+succeeded\b|"
    r"belastet|abgebucht|débité|prélevé|cobrado|cargado|決済(?:が|は)?完了|"
    r"請求(?:しました|いたしました|されました)|引き落とし(?:ました|されました)", re.IGNORECASE)
_CHARGE_NEGATION = re.compile(
    r"\b(?:not|no|never|nothing|cannot|can't|won't|wont|wasn't|weren't|isn't|hasn't|haven't|"
    r"didn't|nicht|kein\w*|nichts|pas|rien|nada|ningún|ninguna)\b|n'a|"
    r"ありません|いません|されません|されていません|しておりません", re.IGNORECASE)


# Naming the policy claims nothing ("the refund policy you quoted no longer applies") ...
_POLICY_MENTION = re.compile(r"\b(?:refunds?|return)\s+(?:policy|policies|window|period|rules?|"
                             r"terms|article|request)\b", re.IGNORECASE)
# ... but saying its window closed refuses the refund.
_EXPIRED = re.compile(r"\b(?:refund|return)\s+(?:window|period)\b.*\b(?:expired|passed|closed|"
                      r"ended|over)\b|\boutside\b.*\b(?:refund|return)\s+(?:window|period)\b",
                      re.IGNORECASE)


def _clauses(sentence: str) -> list[str]:
    return _CLAUSE.split(sentence)


# ``A-10423``, ``#A10423``; lower case only with its hyphen (``a-10423``, not ``a 1234``).
# Letters of other scripts may touch it (注文A-10423の).
_ORDER = re.compile(r"(?<![A-Za-z0-9])(?:[A-Z]-?|[a-z]-)\d{4,6}(?![0-9])")


@dataclass
class Facts:
    """Everything a text states."""

    money: list[Money] = field(default_factory=list)
    orders: set[str] = field(default_factory=set)
    durations: set[int] = field(default_factory=set)  # in days
    dates: set[tuple[int | None, int, int]] = field(default_factory=set)  # (year, month, day)
    claims: set[str] = field(default_factory=set)


def _normal(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def order_key(number: str) -> str:
    """An order number as compared: ``#a-10423`` -> ``A10423``."""
    return re.sub(r"[^A-Z0-9]", "", number.upper())


def extract(text: str) -> Facts:
    """The facts ``text`` states."""
    text = _normal(text)
    found = Facts()
    for match in _MONEY.finditer(text):
        symbol = match.group("before") or match.group("after")
        currency = _code(symbol)
        amount = _amount(match.group("a") or match.group("b"), currency)
        if amount is not None:
            found.money.append(Money(amount, currency))
    found.orders = {order_key(m) for m in _ORDER.findall(text)}
    for match in _DURATION.finditer(text):
        n = _number(match.group("n") or match.group("w"))
        if n is not None:
            found.durations.add(n * _UNITS[match.group("unit").lower()])
    for pattern in _DATES:
        for match in pattern.finditer(text):
            month = int(match.group("m")) if "m" in match.groupdict() and match.group("m") \
                else _MONTHS.get(match.group("mn").lower().rstrip("."), 0)
            year = int(match.group("y")) if match.group("y") else None
            if month:
                found.dates.add((year, month, int(match.group("d"))))
    for sentence in _SENTENCE.split(text):
        for clause in _clauses(sentence):
            if _EXPIRED.search(clause):
                found.claims.add("not_refunded")
                continue
            clause = _POLICY_MENTION.sub(" ", clause)  # "the refund policy" claims nothing
            if _REFUND_WORD.search(clause) and (_NEGATION.search(clause)
                                                or _REGRET.search(sentence)):
                found.claims.add("not_refunded")
            elif _REFUND.search(clause):
                found.claims.add("refunded")
            if _CHARGE_WORD.search(clause) and _CHARGE_NEGATION.search(clause):
                found.claims.add("not_charged")
            elif _CHARGED.search(clause):
                found.claims.add("charged")
        if _ESCALATE.search(sentence):
            found.claims.add("escalated")
        if _QUESTION.search(sentence):
            found.claims.add("asked")
    return found


def states_money(facts: Facts, amount: int, currency: str) -> bool:
    return Money(amount, currency.upper()) in facts.money


def states_date(facts: Facts, iso: str) -> bool:
    year, month, day = (int(part) for part in iso[:10].split("-"))
    return (year, month, day) in facts.dates or (None, month, day) in facts.dates
