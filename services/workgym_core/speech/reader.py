"""The reader: a message, split into statements, each read into a claim, its polarity and
modality and the entities it is about (:mod:`.model`).

How a message is read:

1. normalised (NFKC: full-width digits and symbols, quotes, dashes, spaces), its quoted
   passages set aside (what the customer wrote, quoted back, is not the agent's claim);
2. its entities found once (:mod:`.entities`);
3. split into sentences, each guessed a language (its cues are read in it; claim words in it
   and in English), and into segments at punctuation and clause words ("but", "because",
   "which", "weil", "car", "porque"; Japanese after them: "ので", "次第", "前に");
4. segments grouped into clauses: a segment with a claim word starts one; a short segment
   that only says how it went ("not possible", "declined") or names more of its entities
   ("$5.00", "A-2 and A-3") belongs to the clause before it, one that only names what the
   next is about ("Regarding your order A-1,", "注文A-1につきまして、") to the clause after
   it; a condition ("if", "once", "sobald", "si", "場合") makes the next clause conditional;
5. each clause read: a claim per claim word (polarity from negation and denial words in its
   own segment, modality from question marks and requests, conditions, ability, future),
   hedged when it wavers ("maybe", "one of", two values joined by "or", "about $45"); a
   clause with no claim word is benign (greetings, thanks, apologies), an amount statement
   (entities of the case: "the total is $45"), unreadable (a verb of change the lexicon does
   not know: "we sorted it out") or outside what is checked.

The same text, lexicon and names always give the same reading.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date

from .cues import Language, guess, languages
from .lexicon import Lexicon
from .model import Entity, Kind, Modality, Polarity, Reading, Statement

# Entities that say something of the case (a value), beyond naming a record.
VALUES = frozenset({"money", "date", "duration", "percent", "count", "card", "times"})
# Entities that name a record or a person.
IDS_AND_NAMES = frozenset({"order", "charge", "payment", "refund_id", "ticket", "issue",
                           "email", "phone"})
# The world's names of what a record is (a status, a priority, a tier): words of their own
# too ("open a dispute", "a hold on your card", "blocked by"), and a value only of the
# claims that set them ("marked as solved").
STATES = frozenset({"ticket_status", "issue_status", "resolution", "urgency", "issue_priority",
                    "tier"})
# Records two apps' claims are alike about (a ticket's status, an issue's): the one named
# says which app's claim it is.
RECORDS = frozenset({"ticket", "issue"})

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"',
                         "\u00bb": '"', "\u2013": "-", "\u2014": " - ", "\u2212": "-",
                         "\u2026": "...", "\u00a0": " ", "\u202f": " ", "\u3000": " "})
_QUOTED = re.compile(r'"[^"\n]{3,}"|「[^」]{2,}」|『[^』]{2,}』')
# Longer than this, a run of characters with no space (in scripts written with spaces, not
# Japanese) is no word of any language (an agent's longest URL is shorter), and a run of
# spaces or newlines says nothing: the reader reads around them, so no cue rescans them at
# every place (quadratic: a 32 KB comment of one letter took minutes to score).
MAX_WORD = 256
_UNREAD = re.compile(rf"[^\s\u3000-\u9fff\uff00-\uffef]{{{MAX_WORD + 1},}}|\s{{{MAX_WORD + 1},}}")
_ABBREVIATIONS = re.compile(r"(?:^|\W)(?:e\.g|i\.e|etc|no|nr|approx|ca|mr|mrs|ms|dr|st|vs|inc|ltd|"
                            r"z\.b|d\.h|bzw|usw|p\.ex|núm|aprox|n°|[a-z])\.$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n+|\s+[•*]\s+|\s-\s(?=[A-Z])")
_SEGMENT = re.compile(r"\s*(?:[;:()\[\]、，,]|\s-\s|\s/\s)\s*")
_NAMES_ONLY = re.compile(r"\(\s*[§¤][§¤\s,/]*\)")  # "(HELP-821)": a parenthesis that only names
# Idioms whose negation or condition words say nothing of a claim.
_IDIOMS = re.compile(
    r"\b(?:no problem|no worries|not only|no later than|don't hesitate|do not hesitate|"
    r"no matter|no need to worry|if you have any|if you need anything|if there is anything|"
    r"if you still have (?:any |more |other )?(?:questions?|concerns?|trouble)|if anything|"
    r"nicht zögern|zögern sie nicht|n'hésitez pas|no dude en|"
    r"if you'd like|if you would like|wenn sie fragen|si vous avez des questions|"
    r"si tiene alguna pregunta|sin problema|kein problem|pas de problème|"
    r"(?:please|kindly) (?:note|be aware|see|find|allow|keep in mind|rest assured|be advised|"
    r"expect)|"
    r"n'\S+ (?:\S+ ){0,2}que|ne \S+ (?:\S+ ){0,2}que|you can (?:now |again )?(?:sign|log) in|"
    r"(?:as|to) (?:won't|will not|cannot|can't) (?:fix|do|reproduce)|"
    r"(?:i|we) can (?:confirm|see|tell you|assure you)|(?:ich kann|wir können) (?:ihnen )?"
    r"bestätigen|(?:je peux|nous pouvons) (?:vous )?(?:confirmer|assurer)|"
    r"(?:puedo|podemos) (?:confirmar|asegurar)(?:le)?)\b|"
    r"申し訳(?:ございません|ありません)|すみません|(?:かま|構)いません",
    re.IGNORECASE)
# "sixty days, not thirty", "USD 45, not USD 50": the negation is the other value's.
_CONTRAST = re.compile(r",\s*(?:and |but |und |mais |pero )?(?:not|nicht|pas|no)\s+"
                       r"(?=[§¤]|\w+[\s.,;!?]*$)", re.IGNORECASE)
_BLANK = re.compile(r"[§¤]+")
_LIST_WORDS = re.compile(r"(?:\s|^)(?:and|und|et|y|e|or|oder|ou|o|u|と|及び|および|as well as|"
                         r"sowie|ainsi que|así como)(?:\s|$)", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_AFTER_NOUN = re.compile(r"\s*(?:\([^()]*\)\s*)?")  # "返金（￥4,500）を": what the noun is of



def normalise(text: str) -> str:
    # "n.º 5" (número) keeps its sign: NFKC would make it the letter "o".
    text = unicodedata.normalize("NFKC", text.replace("º", "°")).translate(_QUOTES)
    text = re.sub(r"[ \t]+", " ", text)
    return text.strip()


@dataclass
class _Segment:
    text: str
    start: int
    end: int
    triggers: list[tuple[str, re.Match[str], bool]] = field(default_factory=list)
    condition: bool = False
    subordinate: bool = False  # set in time or restricting a noun: not asserted
    reported: bool = False  # someone else's words
    objects: bool = False  # names only what a claim is about ("the fraud dispute on ...")
    naming: bool = False  # its claim words only name things ("チャージバックについて、")
    opens_sentence: bool = False  # the sentence's first: a condition there is no request

    def words(self) -> int:
        return len(_WORD.findall(self.text))


@dataclass
class _Clause:
    segments: list[_Segment]
    conditional: bool = False

    @property
    def start(self) -> int:
        return self.segments[0].start

    @property
    def end(self) -> int:
        return self.segments[-1].end


class Reader:
    """Reads messages with one lexicon."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.langs = languages()

    def read(self, text: str, *, names: Mapping[str, Mapping[str, str]] | None = None,
             today: date | None = None, language: str | None = None) -> Reading:
        """``text`` read: names are the world's (kind -> names: teams, people, ...), today
        the episode's date (for "today", "tomorrow"), language the reader's guess to start
        from (the customer's, when known)."""
        text = normalise(text)
        statements: list[Statement] = []
        start, read_as = 0, language
        for gap in [*_UNREAD.finditer(text), None]:
            end = len(text) if gap is None else gap.start()
            if text[start:end].strip():
                part, guessed = self._read_part(text[start:end], names, today, language)
                statements += [_shifted(s, start) for s in part]
                read_as = read_as or guessed
            if gap is None:
                break
            if not gap.group().isspace():
                statements.append(Statement(
                    gap.group(), gap.start(), gap.end(), Kind.UNREADABLE, language=read_as or "en",
                    why=f"a word of {len(gap.group())} characters is no language"))
            start = gap.end()
        return Reading(text=text, statements=tuple(statements), language=read_as or guess(text))

    def _read_part(self, text: str, names: Mapping[str, Mapping[str, str]] | None,
                   today: date | None, language: str | None) -> tuple[list[Statement], str]:
        """The statements of ``text`` (normalised, no unreadable run in it), and its
        language."""
        masked = _QUOTED.sub(lambda m: " " * len(m.group()), text)
        entities = self.lexicon.finder.find(masked, names, today, language or guess(masked))
        statements: list[Statement] = []
        # Cues are read with the entities blanked out: "26 May" says no "may".
        blank = list(masked)
        for entity in entities:
            if entity.kind != "extent" and entity.kind not in STATES:  # "in full" stays words
                # Values blank as §, records and names as ¤ (a value may be approximate).
                mark = "§" if entity.kind in VALUES else "¤"
                blank[entity.start:entity.end] = mark * (entity.end - entity.start)
        blanked = "".join(blank)
        # Claim words are found as written, but never in an amount ("47,50 livres sterling"
        # names no delivery); an amount or a date is one word between them ("ist am 16.
        # Juni 2025 bei uns eingegangen").
        worded = list(masked)
        for entity in entities:
            if entity.kind == "money" or (entity.kind == "date" and any(
                    c.isdigit() for c in entity.text)):
                worded[entity.start:entity.end] = "§" * (entity.end - entity.start)
        # The language is guessed without the world's names ("In Review", "Won't Do").
        unnamed = list(blanked)
        for entity in entities:
            if entity.kind in STATES:
                unnamed[entity.start:entity.end] = "¤" * (entity.end - entity.start)
        guessed = "".join(unnamed)
        language = language or guess(guessed)
        for start, end in sentences(blanked):
            sentence = blanked[start:end]
            lang = self.langs[guess(guessed[start:end], default=language)]

            # A question, or a request that opens the sentence ("Please, ...", "Por favor,
            # ...", "Merci de ...") or closes it ("..., bitte"): all of it is asked.
            asked = bool(re.search(r"[?？]\s*$|^¿|か[。]?$", sentence.strip())) or \
                _asks(lang, _IDIOMS.sub("", sentence), anywhere=False) or \
                bool(re.search(r"(?:ください|下さい|お願いします|お願いいたします)[。]?\s*$",
                               sentence))
            # A hedge anywhere in the sentence ("I think", "..., glaube ich") or a value
            # said approximately makes all of it uncertain.
            hedge = self._sentence_hedge(sentence, lang)
            kinds = [e.kind for e in entities if start <= e.start < end]
            named = self.lexicon.apps_named(kinds, "".join(worded[start:end]), lang.code,
                                            RECORDS | STATES)
            for clause in self._clauses(sentence, masked, "".join(worded[start:end]),
                                        start, lang, named):
                inside = [e for e in entities if clause.start <= e.start < clause.end]
                read = self._read(text, blanked, clause, inside, lang, asked)
                statements += [s.but(hedged=True, why=hedge) if hedge and s.checked else s
                               for s in read]
        return statements, language

    def _to_come(self, entity: Entity) -> bool:
        """Whether the entity is a day to come named as such ("tomorrow", "morgen")."""
        return entity.kind == "date" and any(
            lang.relative_days.get(entity.text.lower(), 0) > 0 for lang in self.langs.values())

    # --- splitting ----------------------------------------------------------------------

    def _clauses(self, sentence: str, raw: str, worded: str, offset: int, lang: Language,
                 named: set[str] | frozenset[str] = frozenset()) -> list[_Clause]:
        """``sentence`` with its entities blanked (cues are read there), ``raw`` the whole
        message as written (what claim words need around them is found there: "It expires
        after one hour" after a sentence about the reset link), ``worded`` the sentence with
        only its amounts blanked (claim words are found there), ``named`` the apps whose
        records it names."""
        segments: list[_Segment] = []
        for start, end in _segments(sentence, lang):
            part = sentence[start:end]
            triggers = [t for t in self.lexicon.triggers(worded[start:end], lang.code)
                        if self.lexicon.in_context(t[0], raw, lang.code)]
            triggers = _longest(_of_named(triggers, self.lexicon, named), self.lexicon)
            # "If you'd like," is no condition, nor a rule's own words ("14日以内であれば").
            plain = part
            for claim, match, _ in triggers:
                if self.lexicon.claims[claim].act == "policy":
                    plain = plain[:match.start()] + " " * (match.end() - match.start()) + \
                        plain[match.end():]
            condition = _marks(lang, "condition", _IDIOMS.sub("", plain))

            # "the items that had not shipped" restricts; "c'est Finance qui décide" does not.
            restrictive = _starts_with(lang, "relative", part) and not sentence[:start].rstrip(
                ).endswith((",", "、", "，")) and not (
                segments and _starts_with(lang, "cleft", segments[-1].text))
            subordinate = _marks(lang, "temporal", part) or restrictive
            # Someone's words reported run to the end of the sentence.
            reported = lang.has("reported", part) or bool(segments and segments[-1].reported)
            segments.append(_Segment(part, offset + start, offset + end, triggers, condition,
                                     subordinate, reported, opens_sentence=not segments))
        for segment, after in zip(segments, segments[1:], strict=False):
            if not segment.triggers and _starts_with(lang, "relative", after.text) \
                    and not _starts_with(lang, "cleft", segment.text):
                # "Die Artikel, die noch nicht versandt wurden, ...": a subject set apart
                # by what restricts it claims nothing itself.
                segment.subordinate = True
        for segment in segments:
            segment.naming = bool(segment.triggers) and all(
                not denied and self._names(claim, match, segment, lang)
                for claim, match, denied in segment.triggers) \
                and not lang.has("predicate", segment.text) \
                and not lang.has("nothing", segment.text)
            if segment.naming and segment is not segments[0]:
                segment.objects = True
        clauses: list[_Clause] = []
        conditional = False
        for segment in segments:
            previous = clauses[-1] if clauses else None
            opens = any(_starts_with(lang, cue, segment.text)
                        for cue in ("clause", "relative", "temporal", "condition"))
            if segment.objects and previous is not None and any(
                    s.triggers and not s.objects for s in previous.segments):
                previous.segments.append(segment)  # names what the claim before is about
                continue
            if segment.condition and not segment.triggers:
                # "If you send it back, we'll refund": the condition makes the next clause's.
                clauses.append(_Clause([segment]))
                conditional = True
                continue
            # What only names more of the claim's things joins it ("A-2 and A-3", "$5.00");
            # anything with words of its own ("they will correct it") is a clause.
            phrase = _starts_with(lang, "phrase", segment.text) and not lang.has(
                "verbs", segment.text) and not segment.triggers
            # "..., plus 15,50 € de frais de port": more of an amount said before.
            more = phrase and "§" in segment.text and previous is not None and any(
                "§" in s.text for s in previous.segments)
            # "We refunded the second payment and the third one of $79 in full": the verb
            # is the first conjunct's.
            elliptic = bool(_LIST_WORDS.match(segment.text)) and not lang.has(
                "verbs", segment.text) and not lang.has("copula", segment.text) \
                and bool(_BLANK.search(segment.text))
            joins = previous is not None and not segment.triggers and not segment.reported \
                and (any(
                s.triggers for s in previous.segments) or more) and (
                not opens or phrase or elliptic) and (
                len([w for w in _LIST_WORDS.sub(" ", segment.text).split()
                     if not _BLANK.search(w)]) <= 2 or phrase or elliptic) and not lang.has(
                "benign", segment.text) and not (
                # "GBP 2,205.00 charged, order total GBP 1,543.50": what another amount is.
                "§" in segment.text and not phrase and not lang.has("verbs", segment.text)
                and self.lexicon.label(segment.text, lang.code))
            if joins and previous is not None:
                previous.segments.append(segment)
                continue
            clauses.append(_Clause([segment], conditional=conditional))
            if segment.condition:  # "If it arrives damaged, ...": what follows holds on it
                conditional = True
            elif segment.triggers:
                conditional = False
        # "Regarding your order A-1, we refunded ...", "注文A-1につきまして、...": what only
        # names what the next claim is about is part of it.
        merged: list[_Clause] = []
        for clause in clauses:
            if merged and _lead_in(merged[-1], clause, lang):
                clause.segments[:0] = merged.pop().segments
                while merged and _lead_in(merged[-1], clause, lang):
                    clause.segments[:0] = merged.pop().segments
            elif merged and self._same_rule(merged[-1], clause):

                # "返金が明細に反映されるまで、5〜10営業日かかります": a rule said across a
                # time clause is one statement of it.
                clause.segments[:0] = merged.pop().segments
            elif len(merged) > 1 and clause.conditional and not merged[-1].segments[0].triggers \
                    and merged[-1].segments[0].condition and _lead_in(merged[-2], clause, lang):
                # "Zu Ihrer Bestellung A-1: Wenn ..., wird Ihre Karte autorisiert"
                held, lead = merged.pop(), merged.pop()
                clause.segments[:0] = lead.segments + held.segments
            merged.append(clause)
        clauses = merged
        # "We'll refund it once it arrives": what comes before a condition holds on it too.
        for clause, following in zip(clauses, clauses[1:], strict=False):
            if _starts_with(lang, "condition", following.segments[0].text) \
                    and not clause.segments[0].condition:
                clause.conditional = True
        return clauses

    def _same_rule(self, clause: _Clause, after: _Clause) -> bool:
        """Whether ``clause`` is a time clause of the rule ``after`` states ("返金が明細に反映
        されるまで、5〜10営業日かかります")."""
        if len(clause.segments) != 1 or not clause.segments[0].subordinate:
            return False
        mine = {c for c, _, _ in clause.segments[0].triggers
                if self.lexicon.claims[c].act == "policy"}
        return bool(mine & {c for s in after.segments for c, _, _ in s.triggers})

    # --- reading one clause -------------------------------------------------------------

    def _read(self, text: str, masked: str, clause: _Clause, entities: list[Entity],
              lang: Language, asked: bool) -> list[Statement]:
        whole = text[clause.start:clause.end]
        base = Statement(text=whole, start=clause.start, end=clause.end, kind=Kind.OTHER,
                         entities=tuple(entities), language=lang.code)
        triggered = [s for s in clause.segments if s.triggers]
        if not triggered:
            first = clause.segments[0]
            if first.reported:
                return [base.but(modality=Modality.SAID)]
            # A question's clause is asked, whatever opens it ("Welche Bestellung?").
            if (first.subordinate or first.condition) and not asked:
                return [base.but(modality=Modality.IF)]
            return [self._plain(base, masked, lang, asked)]
        out = []
        claims: dict[str, tuple[_Segment, bool]] = {}
        nouns: dict[str, bool] = {}
        for segment in triggered:
            for claim, match, denied in segment.triggers:
                held = claims.get(claim)
                # Read where it is asserted, not in a time clause said with it.
                first = held[0] if held and not (held[0].subordinate and not segment.subordinate) \
                    else segment
                claims[claim] = (first, denied or bool(held and held[1]))
                noun = not denied and self._names(claim, match, segment, lang)
                nouns[claim] = nouns.get(claim, True) and noun
        if not all(nouns.values()):  # "the authorization is released": the verb's claim
            claims = {c: v for c, v in claims.items() if not nouns[c]}
        elif lang.code == "ja" and len(claims) > 1:
            # "返金（￥4,500）のご承認", "返金は承認が可能です": the last noun is what is said
            # of; those before it what it is of.
            last = max(claims, key=lambda c: max(
                m.start() + s.start for s in triggered for n, m, _ in s.triggers if n == c))
            claims = {last: claims[last]}

        # How the writer went about it frames a claim ("I can see that the payment failed").
        if any(self.lexicon.claims[c].act != "note" for c in claims):
            claims = {c: v for c, v in claims.items() if self.lexicon.claims[c].act != "note"}
        # A claim whose words make others mere parts of it ("the reset link expires").
        overridden = {o for c in claims for o in self.lexicon.claims[c].overrides}
        if set(claims) - overridden:
            claims = {c: v for c, v in claims.items() if c not in overridden}
        positions = {claim: min(m.start() + seg.start for c, m, _ in seg.triggers if c == claim)
                     for claim, (seg, _) in claims.items()}
        for claim, (segment, denied) in claims.items():
            own = [e for e in entities if (self._nearest(e, positions, lang.code) == claim
                   or e.kind not in ("money",)) and (
                e.kind not in STATES or e.kind in self.lexicon.claims[claim].values)]
            scope = self._scope(clause, segment, lang)
            polarity = Polarity.NEGATIVE if denied or self._negated(scope, lang) \
                else Polarity.POSITIVE
            # A rule's own words say what the rule is ("needs to be approved", "eligible"),
            # not how it is put.
            rule = self.lexicon.claims[claim].act == "policy"
            how = self._scope(clause, segment, lang, inverse=False)
            modality = self._modality(how, self._scope(clause, segment, lang, claim)
                                      if rule else how, lang, asked)

            if self._requested(claim, segment, lang):
                # "a request to move the login", "返金の申請": what is asked for, not said
                # to be so; what is said of the request is another claim's, or unknown.
                if len(claims) == 1 and (lang.has("verbs", scope) or lang.has("predicate", scope)):
                    out.append(base.but(kind=Kind.UNREADABLE, why=f"says something of a "
                                        f"{claim} asked for that the reader does not know"))
                else:
                    out.append(base.but(kind=Kind.BENIGN, modality=Modality.ASKED))
                continue
            if modality is Modality.DONE and any(self._to_come(e) for e in own) \
                    and not lang.has("present", scope):
                modality = Modality.WILL  # "Wir erstatten Ihnen den Betrag morgen"
            if modality is Modality.WILL and self.lexicon.claims[claim].act == "policy":
                modality = Modality.DONE  # a rule is so now ("refunds will take 5-10 days")
            # A condition opening a request is supposed, not asked ("届きましたら、ご連絡
            # ください"); one after it may ask ("could you tell us if it arrived?").
            if (segment.condition and segment.opens_sentence) or (
                    (segment.subordinate or segment.condition) and modality is not Modality.ASKED):
                modality = Modality.IF
            elif clause.conditional and modality not in (Modality.ASKED, Modality.IF):
                modality = Modality.THEN
            index = clause.segments.index(segment)
            if any(s.reported for s in clause.segments[:index + 1]):
                modality = Modality.SAID
            statement = base.but(kind=Kind.CLAIM, claim=claim, polarity=polarity,
                                 modality=modality, entities=tuple(own))
            said = _IDIOMS.sub(" ", scope)  # "申し訳ございません" says nothing of a refund
            if nouns[claim] and modality not in (Modality.ASKED, Modality.SAID, Modality.IF) \
                    and not lang.has("predicate", said) \
                    and not self._nothing(said, segment, claim, lang):
                out.append(statement.but(kind=Kind.UNREADABLE, why=f"names a {claim} but "
                                         "not what happened to it"))
                continue
            if nouns[claim] and modality is Modality.ASKED and not lang.has("predicate", said):
                # "Could you tell us your preferred delivery date?": a question that names a
                # thing asks nothing of it.
                out.append(base.but(kind=Kind.BENIGN, modality=Modality.ASKED))
                continue
            out.append(self._hedge(statement, masked, scope, lang))
        return out

    def _plain(self, base: Statement, masked: str, lang: Language, asked: bool) -> Statement:
        """A clause with no claim word (``masked``: the whole text, entities blanked)."""
        text = masked[base.start:base.end]
        if lang.has("regret", text):
            # "Leider können wir Ihre Bestellung nicht ändern": the regret is a courtesy,
            # the rest is read on its own.
            text = lang.cues["regret"].sub(" ", text)
            if not _WORD.search(_BLANK.sub("", text)):
                return base.but(kind=Kind.BENIGN)
        values = [e for e in base.entities if e.kind in VALUES]
        records = [e for e in base.entities if e.kind in IDS_AND_NAMES or e.kind in (
            "issue", "ticket", "charge")]
        if asked or _asks(lang, text):
            return base.but(kind=Kind.BENIGN, modality=Modality.ASKED)
        if lang.has("obligation", text):
            # "The amount must be the order's total": how things should be, not how they are.
            return base.but(modality=Modality.IF)
        if lang.has("contact", text) and not lang.has("negation", text):
            # "We'll be in touch about A-1 today": a promise of contact, of any record.
            return base.but(kind=Kind.BENIGN)
        if _starts_with(lang, "relative", text) or re.match(
                r"\s*(?:who|which|whose|qui|quien|quienes)\b", text, re.I):
            return base  # "..., who handle invoices": says what the thing is, claims nothing
        # A few words before a colon head what follows it, which is read on its own: "Invoice
        # dispute on order A-1:", and a vague word the colon spells out with a claim ("All
        # sorted: I've refunded ..."); the same words ending a sentence claim a change.
        after = re.match(r"\s*:([^.!?。]*)", masked[base.end:])
        heading = after is not None and len(_said_words(text, lang)) <= 5 and (
            not lang.has("verbs", text) or (lang.has("vague", text) and not lang.has(
                "verbs", lang.cues["vague"].sub(" ", text))
                and bool(self.lexicon.triggers(after.group(1), lang.code))))
        if heading or (_starts_with(lang, "phrase", text) and not lang.has("verbs", text)
                       and not lang.has("copula", text)):
            return base  # "For the security of the account"
        if _starts_with(lang, "ack", text) or (lang.has("benign", text) and not records and all(
                e.kind == "date" for e in values)):  # "I'll update you tomorrow"
            return base.but(kind=Kind.BENIGN)
        action = self.lexicon.actions.get(lang.code)
        if (action is not None and action.search(text)) or lang.has("vague", text):
            return base.but(kind=Kind.UNREADABLE, why="a change the reader does not know")
        verb = _IDIOMS.sub(" ", text)
        words = len(_WORD.findall(text)) if lang.code != "ja" else len(_BLANK.sub("", text)) // 3
        about_case = lang.has("domain", text) or bool(records)
        if about_case and not records and not values and words <= 3:
            # "Card. Payment." or "Refund order": keywords, not statements.
            return base.but(kind=Kind.UNREADABLE, why="keywords, not a statement")
        money = [e for e in values if e.kind in ("money", "percent")]
        if money and not lang.has("negation", verb) and (lang.has("equals", verb) or (
                self.lexicon.label(base.text, lang.code) and not lang.has("verbs", verb))):
            # "The total is $45", "Der Rabatt beträgt 20 %", "plus 15,50 € de frais de
            # port": what an amount is.
            return self._hedge(base.but(kind=Kind.AMOUNT), masked, text, lang)
        if values and lang.has("evidential", verb) and not lang.has("negation", verb):
            # "We found three successful payments for your order": values the case has.
            return self._hedge(base.but(kind=Kind.AMOUNT), masked, text, lang)
        said = _said_words(text, lang)
        if (lang.has("verbs", verb) and values) or (about_case and words > 3) or (
                records and said):
            # "We will bill your account £649", "PAY-1 and PAY-2 are now linked", "Enlacé
            # PAY-594 con WEB-177": something of the case is said, but what the reader
            # does not know.
            return base.but(kind=Kind.UNREADABLE, why="something of the case the reader "
                            "does not know")
        if values and said and not lang.has("copula", text) \
                and not self.lexicon.label(base.text, lang.code):
            # "Tiene 30 días para devolver": a value with a verb the reader does not know.
            return base.but(kind=Kind.UNREADABLE, why="a value said with words the reader "
                            "does not know")
        if values:
            statement = base.but(kind=Kind.AMOUNT, modality=Modality.DONE,
                                 polarity=Polarity.NEGATIVE if self._negated(text, lang)
                                 else Polarity.POSITIVE)
            return self._hedge(statement, masked, text, lang)
        if lang.has("benign", text):
            return base.but(kind=Kind.BENIGN)
        return base

    def _names(self, claim: str, match: re.Match[str], segment: _Segment, lang: Language
               ) -> bool:
        """Whether the claim word only names a thing: one of its nouns with no verb making
        it one ("the refund", not "we refund"), or a participle said of a noun ("the
        cancelled order", "die stornierte Bestellung", "le paiement refusé")."""
        if _verb_before(segment.text, match.start(), lang, match.end()):
            return False
        return self.lexicon.is_noun(claim, match.group(), lang.code) or _attributive(
            segment.text, match, lang)

    @staticmethod
    def _nothing(scope: str, segment: _Segment, claim: str, lang: Language) -> bool:
        """Whether a negation binds to the claim's noun ("no refund", "kein Versand")."""
        for name, match, _ in segment.triggers:
            if name != claim:
                continue
            before = segment.text[max(0, match.start() - 24):match.start()]
            if re.search(rf"(?:{lang.cues['nothing'].pattern})\s+(?:\w+\s+)?$", before,
                         re.IGNORECASE) or (lang.code == "ja" and lang.has("negation", scope)):
                return True
        return False

    @staticmethod
    def _nearest(entity: Entity, positions: Mapping[str, int], language: str) -> str:
        """The claim whose word is nearest the entity (one before it wins a tie); in
        Japanese, the verb after it ("24800円を返金しました")."""
        if language == "ja":
            after = [c for c in positions if positions[c] > entity.start]
            if after:
                return min(after, key=lambda c: positions[c])
        return min(positions, key=lambda c: (abs(positions[c] - entity.start),
                                             positions[c] > entity.start))

    def _scope(self, clause: _Clause, segment: _Segment, lang: Language,
               bare: str | None = None, *, inverse: bool = True) -> str:

        """The text a claim's polarity and modality are read in: its own segment and the
        short ones after it that only say how it went ("Refund: declined"); without the
        words of the claim ``bare``, if given (what a claim's own words say, "needs to be
        approved", "eligible", is the claim, not how it is put)."""
        text = segment.text
        for claim, match, _ in segment.triggers:
            if claim == bare:
                text = text[:match.start()] + " " * (match.end() - match.start()) + \
                    text[match.end():]
            elif inverse and self.lexicon.is_inverse(claim, match.group(), lang.code):
                # "we do not contest": its own negation (how it is put is read with it:
                # "we will not contest").
                text = text[:match.start()] + " " * (match.end() - match.start()) + \
                    text[match.end():]

        parts = [text]
        after = clause.segments[clause.segments.index(segment) + 1:]
        for other in after:
            if other.triggers or other.words() > 3:
                break
            parts.append(other.text)
        return " , ".join(parts)

    @staticmethod
    def _requested(claim: str, segment: _Segment, lang: Language) -> bool:
        """Whether the claim's word is what someone asks for ("a request to cancel", "the
        refund request"), not what is said to be so."""
        match = next(m for c, m, _ in segment.triggers if c == claim)
        before, after = segment.text[:match.start()], segment.text[match.end():]
        asked, asked_after = lang.cues["requested"].pattern, lang.cues["requested_after"].pattern
        return bool(re.search(rf"(?:{asked_after})$", match.group(), re.IGNORECASE)
                    or re.search(rf"(?:{asked})\s*(?:\S+\s+)?$", before, re.IGNORECASE)
                    or re.match(rf"\s*(?:{asked_after})", after, re.IGNORECASE))

    @staticmethod
    def _negated(text: str, lang: Language) -> bool:
        text = _CONTRAST.sub(" ", _IDIOMS.sub(" ", text))
        return lang.has("negation", text) or lang.has("denial", text)

    @staticmethod
    def _modality(scope: str, bare: str, lang: Language, asked: bool) -> Modality:
        """How a claim is put, read in its ``scope``; an obligation or ability only outside
        its own words (``bare``)."""
        text = _IDIOMS.sub(" ", scope)
        bare = _IDIOMS.sub(" ", bare)
        if asked or _asks(lang, text):
            return Modality.ASKED
        # A rule's own words may say when it holds ("以内であれば"): no condition of its.
        if lang.has("condition", bare) or lang.has("obligation", bare):
            return Modality.IF
        # A modal verb says what is possible even among a rule's words ("refunds can take
        # 5-10 days"); what the rule itself is ("eligible") does not.
        if lang.has("ability", bare) or lang.has("modal", text):
            return Modality.CAN

        if lang.has("future", text) and not lang.has("present", text):
            return Modality.WILL  # "wird derzeit blockiert" is so now
        return Modality.DONE

    @staticmethod
    def _sentence_hedge(sentence: str, lang: Language) -> str:
        """Why the whole sentence wavers ("" when it does not)."""
        plain = _IDIOMS.sub(" ", sentence)
        if lang.has("frame", plain):
            return "an uncertain wording"
        if re.search(rf"(?:{lang.cues['approximate'].pattern})\s*§|[§¤]\s*(?:"
                     rf"{lang.cues['approximate_after'].pattern})", plain, re.IGNORECASE):
            return "a value said approximately"
        if re.search(rf"[§¤]\s*(?:{lang.cues['alternative'].pattern})\s*(?:#?\d|[§¤])", plain,
                     re.IGNORECASE):
            return "two values, one or the other"
        return ""

    def _hedge(self, statement: Statement, masked: str, scope: str, lang: Language
               ) -> Statement:
        """Hedged: an uncertain wording, a value said approximately, or several values for
        one slot joined by "or" (``masked``: the whole text, entities blanked)."""
        if lang.has("hedge", _IDIOMS.sub(" ", scope)):
            return statement.but(hedged=True, why="an uncertain wording")
        # A rule's bound is exact ("refunds over $500 need approval"); any other is not.
        rule = statement.claim is not None and self.lexicon.claims[statement.claim].act == "policy"
        cues = ("approximate",) if rule else ("approximate", "bound")
        approximate = re.compile("|".join(f"(?:{lang.cues[cue].pattern})\\s*$" for cue in cues),
                                 re.IGNORECASE)
        for entity in statement.entities:
            if entity.kind not in VALUES:
                continue
            before = masked[max(statement.start, entity.start - 16):entity.start]
            if approximate.search(before):
                return statement.but(hedged=True, why=f"{entity.text!r} said approximately")
        by_kind: dict[str, list[Entity]] = {}
        for entity in statement.entities:
            by_kind.setdefault(entity.kind, []).append(entity)
        for same in by_kind.values():
            for a, b in zip(same, same[1:], strict=False):
                between = masked[a.end:b.start]
                if lang.has("alternative", between) or "/" in between:
                    return statement.but(hedged=True, why=f"{a.text!r} or {b.text!r}")
        return statement


def _shifted(statement: Statement, by: int) -> Statement:
    """``statement`` of a part of a message, placed in the whole message."""
    if not by:
        return statement
    return statement.but(start=statement.start + by, end=statement.end + by, entities=tuple(
        replace(e, start=e.start + by, end=e.end + by) for e in statement.entities))


def sentences(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each sentence of ``text``."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if _ABBREVIATIONS.search(text[max(start, match.start() - 8):match.start()]):
            continue  # "e.g. ", "No. 5"
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _segments(sentence: str, lang: Language) -> list[tuple[int, int]]:
    """Spans of the sentence's segments: split at punctuation and before clause words (in
    Japanese, after them: "返信があり次第、", "発送する前に")."""
    bounds: list[tuple[int, int]] = []
    names = [m.span() for m in _NAMES_ONLY.finditer(sentence)]
    for match in _SEGMENT.finditer(sentence):
        mark = match.group().strip()
        if mark in (",", "，", ":") and _digits_around(sentence, match):
            continue  # 1,200; 10:30
        if mark in (",", "，", "、") and _between_names(sentence, match):
            continue  # "A-1, A-2 and A-3", "A-1、A-2のいずれか": one list
        if any(a <= match.end() and match.start() < b for a, b in names):
            continue  # "Ein Bug-Report (HELP-821) ist angelegt": the name goes with its noun
        bounds.append((match.start(), match.end()))
    for cue in ("clause", "temporal", "relative", "condition"):
        for match in lang.cues[cue].finditer(sentence):
            if cue == "temporal" and sentence[:match.start()].rstrip().endswith("§"):
                continue  # "14 jours après la livraison": a time, not a clause
            if match.start() > 0:

                at = match.end() if lang.code == "ja" else match.start()
                bounds.append((at, at))
    spans, start = [], 0
    for a, b in sorted(bounds):
        if a >= start:
            if a > start:
                spans.append((start, a))
            start = max(b, start)
    if start < len(sentence):
        spans.append((start, len(sentence)))
    return [(a, b) for a, b in spans if sentence[a:b].strip(" .!?。")]


def _between_names(text: str, match: re.Match[str]) -> bool:
    return text[:match.start()].rstrip().endswith(("§", "¤")) and \
        text[match.end():].lstrip().startswith(("§", "¤"))


def _digits_around(text: str, match: re.Match[str]) -> bool:
    return (match.start() > 0 and text[match.start() - 1].isdigit()
            and match.end() < len(text) and text[match.end()].isdigit())


def _asks(lang: Language, text: str, *, anywhere: bool = True) -> bool:
    """Whether ``text`` asks something: a request word (anywhere, or opening it) or an
    imperative opening it ("Confirm the address", not "the address you confirmed")."""
    request = lang.has("request", text) if anywhere else _starts_with(lang, "request", text)
    return request or _starts_with(lang, "imperative", text)


def _marks(lang: Language, cue: str, text: str) -> bool:
    """Whether the cue sets ``text`` apart: opening it, or in Japanese closing it too
    ("返信があり次第", "反映されるまでに")."""
    if _starts_with(lang, cue, text):
        return True
    return lang.code == "ja" and any(not text[m.end():].strip(" 、,。")
                                     for m in lang.cues[cue].finditer(text))


def _starts_with(lang: Language, cue: str, text: str) -> bool:
    found = lang.cues[cue].search(text)
    return found is not None and not text[:found.start()].strip(" ,.;:-\"'")


def _said_words(text: str, lang: Language) -> list[str]:
    """The words of a clause beyond its entities and the words that only point at a record
    ("Regarding your order", "Ticket Nr."): what it says of them."""
    if lang.code == "ja":
        rest = lang.cues["mention"].sub("", _BLANK.sub("", text))
        return [c for c in re.findall(r"[^\W\d_]+", rest) if len(c) > 1]
    return [w for w in _WORD.findall(_BLANK.sub(" ", text))
            if not lang.cues["mention"].fullmatch(w) and not w.isdigit()]


def _lead_in(clause: _Clause, after: _Clause, lang: Language) -> bool:
    """Whether the clause only names what the next one is about: a record or a value with
    nothing said of it before a claim ("Regarding your order A-1, ...", "Pedido A-1: ..."),
    a cleft's subject ("C'est le service financier qui décide ..."), a Japanese topic
    ("2025/05/10にご購入の商品は、"), or a time before a courtesy
    ("明日、改めてご連絡いたします")."""
    if len(clause.segments) != 1:
        return False
    # The next clause's claim, past lead-ins of its own ("Billingチームは、チケット601に
    # ついて、調査しております").
    segment = clause.segments[0]
    next_one = next((s for s in after.segments if s.triggers), after.segments[0])
    # A Japanese topic that only names things may name a claim's ("チャージバックについて、").
    topic = segment.naming and lang.code == "ja" and lang.has("topic", segment.text.rstrip(" 、,"))
    if (segment.triggers and not topic) or segment.condition or segment.subordinate \
            or segment.reported:
        return False
    if not next_one.triggers:
        return "§" in segment.text and "¤" not in segment.text and not _said_words(
            segment.text, lang) and lang.has("benign", next_one.text)
    if lang.has("topic", segment.text.rstrip(" 、,")) or (
            _starts_with(lang, "cleft", segment.text)
            and _starts_with(lang, "relative", next_one.text)):
        return True
    return bool(_BLANK.search(segment.text)) and not _said_words(segment.text, lang)


def _attributive(text: str, match: re.Match[str], lang: Language) -> bool:
    """Whether the claim word is a participle said of a noun: after a determiner ("the
    cancelled order", "die stornierte Bestellung"), or in French and Spanish after a
    determiner and its noun ("le paiement refusé", "el pedido cancelado")."""
    if not lang.cues["participle"].fullmatch(match.group()):
        return False
    before = re.findall(r"[\w'§¤]+", text[max(0, match.start() - 40):match.start()].lower())
    if lang.code in ("fr", "es"):
        return len(before) >= 2 and lang.cues["determiner"].fullmatch(before[-2]) is not None \
            and not any(lang.cues[cue].fullmatch(before[-1]) for cue in ("verbs", "copula"))
    return bool(before) and lang.cues["determiner"].fullmatch(before[-1]) is not None


def _verb_before(text: str, at: int, lang: Language, end: int | None = None) -> bool:
    """Whether the word before ``at`` makes the claim word there a verb ("we refund"), or
    (Japanese) what follows it does ("返金しました")."""
    if lang.code == "ja":  # "返金しました", "返金（￥4,500）を行います"
        after = _AFTER_NOUN.match(text, end) if end is not None else None
        return after is not None and lang.cues["verb_after"].match(text, after.end()) is not None
    before = re.findall(r"[\w']+", text[max(0, at - 20):at].lower())
    # "we'll refund": the contraction's auxiliary ('ll, 've, 'd) is the word before.
    last = re.sub(r"^\w+(?='(?:ll|ve|d|re)$)", "", before[-1]) if before else ""
    if last and (lang.cues["verb_before"].fullmatch(last) is not None
                 or lang.cues["verb_before"].fullmatch(before[-1]) is not None):
        return True
    # A verb that makes the noun after it an act ("issue a refund", "open a dispute",
    # "effectuer le remboursement", "realizar el reembolso").
    return re.search(rf"(?<![\w'])(?:{lang.cues['support'].pattern})\s+(?:[\w'§¤.,-]+\s+){{0,3}}$",
                     text[max(0, at - 60):at], re.IGNORECASE) is not None


def _of_named(triggers: list[tuple[str, re.Match[str], bool]], lexicon: Lexicon,
              named: set[str] | frozenset[str]) -> list[tuple[str, re.Match[str], bool]]:
    """Claim words, dropping those of an app the sentence names nothing of where they
    overlap words of an app it names ("I changed the status of SHOP-12": an issue's
    transition, not a ticket's status; "He pasado SHOP-12 a In Review": no escalation)."""
    if not named:
        return triggers
    return [(claim, match, denied) for claim, match, denied in triggers
            if lexicon.claims[claim].app in named or lexicon.claims[claim].act == "policy"
            or not any(lexicon.claims[other].app in named and o.start() < match.end()
                       and match.start() < o.end() and other not in lexicon.claims[claim].overrides
                       for other, o, _ in triggers)]



def _longest(triggers: list[tuple[str, re.Match[str], bool]], lexicon: Lexicon

             ) -> list[tuple[str, re.Match[str], bool]]:
    """Claim words, dropping any inside a longer one of another claim, unless its claim
    makes the other a mere part of it ("the Payments team is investigating the failed
    payment": the investigation, though "payments ... failed" spans it)."""
    kept: list[tuple[str, re.Match[str], bool]] = []
    for claim, match, denied in sorted(triggers, key=lambda t: -(t[1].end() - t[1].start())):
        if any(other.start() <= match.start() and match.end() <= other.end() and c != claim
               and c not in lexicon.claims[claim].overrides for c, other, _ in kept):
            continue
        kept.append((claim, match, denied))
    return sorted(kept, key=lambda t: t[1].start())
