"""The realiser's templates (replicas/<app>/say.yaml) read back by the statement reader.

Every template of every claim, language and key ("+done", "-can", ...) is said of sample
entities, once for each combination of its optional groups, and the sentence is read again
(with the world's names, as the reward engine reads): it must read as exactly that claim,
with that polarity and modality (a rule, act policy, is so now: "will" counts as "done"),
unhedged, nothing unreadable beside it, and with the entities it was said of.

The rate of sentences read back right is asserted to be no lower than the one measured when
the templates were written (the reader is being tuned: raise ``FLOOR`` as it improves).

    python -m tests.speech.test_realise        # the summary and every failure, by class
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import pytest

from replicas.catalog import lexicon, realiser
from workgym_core.speech import Entity, Kind, Modality, Polarity, Statement, reader
from workgym_core.speech.realise import LOCALES, SAYABLE, fill

LANGUAGES = tuple(LOCALES)
KEYS = ("+done", "-done", "+will", "-will", "+can", "-can")
ASKED = ("+asked", "-asked")
# Claims said again: the agent's acts, the world's and the rules; not how the writer went
# about it (note) nor what the customer says (customer).
SAID = ("agent", "world", "policy")
_MODALITY = {"done": Modality.DONE, "will": Modality.WILL, "can": Modality.CAN,
             "asked": Modality.ASKED}
_SLOT = re.compile(r"\{([a-z_]+)\}")
_GROUP = re.compile(r"\[([^\[\]]*)\]")

# The share of realisations read back right, all languages together and per language, as
# measured when the templates were written (4563 of 5552): the floor the test holds them to.
# Raise it as the reader is fixed (python -m tests.speech.test_realise lists what it misreads).
FLOOR = 0.821
FLOORS = {"en": 0.870, "de": 0.861, "es": 0.816, "fr": 0.807, "ja": 0.710}

# The world's names the sentences are read with (what the apps' `names` SQL would find in a
# seeded world; aliases come from the claim files).
WORLD = {
    "team": ["Support", "Billing", "Tier 2", "Trust & Safety", "Engineering"],
    "person": ["Dana Kim", "Priya Nair"],
    "version": ["web-2025.6", "web-2025.7", "app-5.4"],
    "issue_status": ["Backlog", "Selected for Development", "In Progress", "In Review", "QA",
                     "Blocked", "Done", "Open", "Reopened", "Resolved", "Closed"],
    "resolution": ["Done", "Won't Do", "Duplicate", "Cannot Reproduce"],
    "code": ["WELCOME10", "LAUNCH25", "SPRING15", "BREW20", "SUMMER10", "SORRY", "OLDSHOP5"],
    "product": ["Gooseneck Kettle", "Aero Burr Grinder", "Precision Coffee Scale"],
}

# Sample entities by kind: (value, text) as the reader gives them; more than one where a
# statement may name two (tickets merged, issues linked).
SAMPLES: dict[str, list[tuple[object, str]]] = {
    "order": [("A13006", "A-13006"), ("A13007", "A-13007")],
    "card": [("4242", "ending in 4242")],
    "date": [("2025-06-16", "June 16, 2025")],
    "charge": [("ch_3PqRsT9aBcDeFgH1", "ch_3PqRsT9aBcDeFgH1")],
    "ticket": [("601", "ticket #601"), ("602", "#602")],
    "issue": [("SHOP-12", "SHOP-12"), ("SHOP-9", "SHOP-9")],
    "version": [("web-2025.6", "web-2025.6")],
    "percent": [(10.0, "10%")],
    "team": [("Billing", "Billing")],
    "person": [("Dana Kim", "Dana Kim")],
    "code": [("WELCOME10", "WELCOME10")],
    "product": [("Gooseneck Kettle", "Gooseneck Kettle")],
    "ticket_status": [("hold", "on hold")],
    "issue_status": [("In Review", "In Review")],
    "resolution": [("Won't Do", "Won't Do")],
    "issue_priority": [("High", "High")],
    "urgency": [("urgent", "urgent")],
    "tier": [("gold", "gold")],
    "count": [((2, "payment"), "two payments")],
}
# Amounts in the currency a customer of the language pays in.
MONEY = {"en": (4500, "USD"), "de": (4500, "EUR"), "fr": (4500, "EUR"), "es": (4500, "EUR"),
         "ja": (4500, "JPY")}
# Durations as each claim's rule has them (a refund shows in 5-10 business days, a reset
# link works for an hour, time is logged in hours).
DURATIONS = {"refund_timing": (5, 10, "bd"), "reset_expiry": (1, 1, "h"),
             "worklog": (2, 2, "h")}


def entities(kinds: Counter[str], claim: str, language: str) -> list[Entity]:
    out = []
    for kind, n in sorted(kinds.items()):
        if kind == "money":
            samples: Sequence[tuple[object, str]] = [(MONEY[language], "")]
        elif kind == "duration":
            samples = [(DURATIONS.get(claim, (14, 14, "d")), "")]
        else:
            samples = SAMPLES[kind]
        out += [Entity(kind, value, text, 0, 0) for value, text in samples[:n]]
    return out


@cache
def world_names() -> dict[str, dict[str, str]]:
    """phrase -> name of each kind, as the reward engine reads a seeded world."""
    by_sql = {spec.sql: WORLD.get(kind, []) for kinds in lexicon().names.values()
              for kind, spec in kinds.items() if spec.sql}
    return lexicon().world_names(lambda _app, sql: by_sql.get(sql, []))


def combinations(template: str) -> list[Counter[str]]:
    """The entity kinds of each way the template can be said: its slots outside groups with
    each subset of its groups."""
    required = Counter(_SLOT.findall(_GROUP.sub("", template)))
    groups = [Counter(_SLOT.findall(g)) for g in _GROUP.findall(template)]
    seen: list[Counter[str]] = []
    for n in range(len(groups) + 1):
        for chosen in itertools.combinations(groups, n):
            kinds = required + sum(chosen, Counter())
            if kinds not in seen:
                seen.append(kinds)
    return seen


@dataclass(frozen=True)
class Case:
    claim: str
    language: str
    key: str
    template: str
    kinds: tuple[str, ...]
    text: str
    got: str  # the reading
    problem: str  # "" when read back right; else its class

    @property
    def ok(self) -> bool:
        return not self.problem


def _values(statement: Statement) -> Counter[tuple[str, str]]:
    return Counter((e.kind, repr(e.value)) for e in statement.entities)


def judge(claim: str, language: str, key: str, said: Sequence[Entity], text: str
          ) -> tuple[str, str]:
    """(the class of what was read wrong, "" if nothing; the reading)."""
    reading = reader(lexicon()).read(text, names=world_names())
    got = " | ".join(str(s) for s in reading.statements)
    policy = lexicon().claims[claim].act == "policy"
    polarity = Polarity(key[0])
    modality = _MODALITY[key[1:]]
    unreadable = [s for s in reading.statements if s.kind is Kind.UNREADABLE]
    claims = [s for s in reading.statements if s.kind is Kind.CLAIM]
    if not claims:
        if unreadable:
            return f"unreadable ({unreadable[0].why})", got
        kinds = sorted({s.kind.value for s in reading.statements})
        if modality is Modality.ASKED and any(s.modality is Modality.ASKED
                                              for s in reading.statements):
            return "no claim: request read as benign", got
        return f"no claim (read as {'/'.join(kinds)})", got
    mine = [s for s in claims if s.claim == claim]
    others = sorted({s.claim for s in claims if s.claim is not None and s.claim != claim})
    if not mine:
        return f"other claim ({'/'.join(others)})", got
    if others:
        return f"extra claim ({'/'.join(others)})", got
    if len(mine) > 1:
        return "claim read twice", got
    statement = mine[0]
    if unreadable:
        return f"unreadable beside it ({unreadable[0].why})", got
    read_modality = statement.modality
    if policy and read_modality is Modality.WILL:
        read_modality = Modality.DONE
    wanted = Modality.DONE if policy and modality is Modality.WILL else modality
    if statement.polarity is not polarity:
        return f"polarity {key[0]} read as {statement.polarity.value}", got
    if read_modality is not wanted:
        return f"modality {wanted.value} read as {read_modality.value}", got
    if statement.hedged:
        return f"hedged ({statement.why})", got
    wanted_values = Counter((e.kind, repr(e.value)) for e in said)
    found: Counter[tuple[str, str]] = Counter()
    for s in reading.statements:  # an id named in a lead-in is the claim's too
        if s is statement or s.kind is not Kind.CLAIM:
            found += _values(s)
    missing = wanted_values - found
    if missing:
        kinds = sorted({k for k, _ in missing})
        wrong = [k for k in kinds if any(f[0] == k for f in found)]
        if wrong:
            return f"entity read wrong ({'/'.join(wrong)})", got
        return f"entity missing ({'/'.join(kinds)})", got
    extra = _values(statement) - wanted_values
    if extra:
        return f"entity extra ({'/'.join(sorted({k for k, _ in extra}))})", got
    return "", got


@cache
def cases() -> tuple[Case, ...]:
    names = realiser().names
    out = []
    for claim, by_language in sorted(realiser().templates.items()):
        for language, forms in sorted(by_language.items()):
            for key, templates in sorted(forms.items()):
                for template in templates:
                    for kinds in combinations(template):
                        said = entities(kinds, claim, language)
                        text = fill(template, said, language, names)
                        if text is None:
                            continue  # a combination another template says
                        problem, got = judge(claim, language, key, said, text)
                        out.append(Case(claim, language, key, template,
                                        tuple(sorted(kinds.elements())), text, got, problem))
    return tuple(out)


def rates() -> dict[str, tuple[int, int]]:
    """language (and "all") -> (read back right, realisations)."""
    table: dict[str, list[int]] = {}
    for case in cases():
        for key in (case.language, "all"):
            row = table.setdefault(key, [0, 0])
            row[0] += case.ok
            row[1] += 1
    return {k: (v[0], v[1]) for k, v in table.items()}


def summary(failures: bool = False) -> str:
    lines = ["realisations read back right, by language:"]
    for language, (right, total) in sorted(rates().items(), key=lambda kv: kv[0] == "all"):
        lines.append(f"  {language:<4} {right:>5} / {total:<5} {right / total:7.2%}")
    templates: dict[str, dict[tuple[str, str, str], bool]] = {}
    for case in cases():
        seen = templates.setdefault(case.language, {})
        template = (case.claim, case.key, case.template)
        seen[template] = seen.get(template, True) and case.ok
    lines.append("templates whose every realisation reads back right: " + ", ".join(
        f"{language} {sum(t.values())}/{len(t)}" for language, t in sorted(templates.items())))
    wrong = [c for c in cases() if not c.ok]
    by_class = Counter(re.sub(r" \(.*", "", c.problem) for c in wrong)
    lines.append("read back wrongly, by class: " + ", ".join(
        f"{k} {v}" for k, v in by_class.most_common()))
    if failures:
        # Each failing template once, with how many of its realisations failed so and one
        # of them.
        grouped: dict[str, dict[tuple[str, str, str, str], list[Case]]] = {}
        for case in wrong:
            grouped.setdefault(case.problem, {}).setdefault(
                (case.claim, case.language, case.key, case.template), []).append(case)
        for problem, failed in sorted(grouped.items(),
                                      key=lambda kv: -sum(map(len, kv[1].values()))):
            lines.append(f"\n== {problem}: {sum(map(len, failed.values()))}")
            for (claim, language, key, _), group in failed.items():
                lines.append(f"  [{claim} {language} {key}] x{len(group)} {group[-1].text}\n"
                             f"      read: {group[-1].got}")
    return "\n".join(lines)


# --- the templates themselves -----------------------------------------------------------

def said_claims() -> list[str]:
    return sorted(name for name, claim in lexicon().claims.items() if claim.act in SAID)


@pytest.mark.parametrize("claim", said_claims())
def test_every_claim_is_said_in_every_language(claim: str) -> None:
    by_language = realiser().templates.get(claim, {})
    for language in LANGUAGES:
        forms = by_language.get(language, {})
        missing = [key for key in KEYS if not forms.get(key)]
        assert not missing, f"{claim}.{language}: no templates for {missing}"
        if language == "en":
            few = [key for key in KEYS if len(forms[key]) < 2]
            assert not few, f"{claim}.en: one template only for {few} (variant 1 is another)"
        for key in (*KEYS, *ASKED):
            for template in forms.get(key, ()):
                end = "。" if language == "ja" else "."
                if not key.endswith("asked"):
                    assert template.rstrip().endswith(end), f"{claim}.{language}.{key}: {template}"


@pytest.mark.parametrize("claim", said_claims())
def test_a_statement_of_no_entities_is_said(claim: str) -> None:
    for language in LANGUAGES:
        for key in KEYS:
            statement = Statement(text="", start=0, end=0, kind=Kind.CLAIM, claim=claim,
                                  polarity=Polarity(key[0]), modality=_MODALITY[key[1:]],
                                  language=language)
            assert realiser().say(statement, language), f"{claim}.{language}.{key}"


def test_slots_are_kinds_the_realiser_says() -> None:
    for claim, by_language in realiser().templates.items():
        assert claim in lexicon().claims, f"say.yaml: no claim {claim!r}"
        assert lexicon().claims[claim].act in SAID, f"say.yaml: {claim} is not said again"
        for language, forms in by_language.items():
            for key, templates in forms.items():
                for template in templates:
                    where = f"{claim}.{language}.{key}: {template}"
                    assert set(_SLOT.findall(template)) <= SAYABLE, where
                    assert template.count("[") == template.count("]"), where
                    # A group with no slot would never be said.
                    assert all(_SLOT.search(g) for g in _GROUP.findall(template)), where


# --- what the realiser does -------------------------------------------------------------

def _statement(claim: str, key: str, language: str, *kinds: str) -> Statement:
    return Statement(text="", start=0, end=0, kind=Kind.CLAIM, claim=claim,
                     polarity=Polarity(key[0]), modality=_MODALITY[key[1:]],
                     entities=tuple(entities(Counter(kinds), claim, language)),
                     language=language)


# The combinations of entities each claim's statements most often carry: every language says
# each of them, affirmed and denied, done, promised and possible (a mutant negates what the
# reference says; a paraphrase says it in the customer's language).
CORE = {
    "refund": ["", "money", "order", "money order", "order card", "money order card"],
    "charge": ["", "money", "order", "money order", "card", "money card", "money order card"],
    "keep": ["", "money", "order", "money order"],
    "authorize": ["", "money", "order", "card", "money order", "money card", "money order card"],
    "release_hold": ["", "money", "card", "money card"],
    "capture": ["", "money", "order", "money order"],
    "cancel": ["", "order"],
    "subscription_end": ["", "date"],
    "invoice_void": ["", "money"],
    "ship": ["", "order", "date", "order date"],
    "deliver": ["", "order", "order date"],
    "return_received": ["", "order"],
    "restock": ["", "order"],
    "dispute": ["", "order", "money order"],
    "dispute_accept": ["", "order", "money order"],
    "dispute_evidence": ["", "order"],
    "approve": ["", "order", "money order"],
    "store_credit": ["", "money"],
    "discount_off": ["", "order"],
    "code_valid": ["", "code"],
    "escalate": ["", "ticket", "team", "ticket team"],
    "assign": ["", "ticket", "person", "ticket person"],
    "ticket_status": ["", "ticket", "ticket_status", "ticket ticket_status"],
    "merge": ["", "ticket ticket"],
    "priority": ["", "ticket", "urgency", "ticket urgency"],
    "investigate": ["", "ticket", "team", "team ticket"],
    "window": ["", "duration"],
    "refund_timing": ["", "duration"],
    "needs_approval": ["", "money"],
    "eligible": ["", "order"],
    "reset_expiry": ["", "duration"],
    "known": ["", "issue"],
    "test_issue": ["", "issue"],
    "fix_verified": ["", "issue"],
    "duplicate": ["", "issue"],
    "still_happens": ["", "issue"],
    "reports": ["", "issue"],
    "fix": ["", "issue", "issue version"],
    "release": ["", "version", "issue", "issue version"],
    "link": ["", "issue", "ticket issue"],
    "block": ["issue", "issue issue"],
    "transition": ["issue", "issue issue_status"],
    "watch": ["", "issue", "person", "person issue"],
    "worklog": ["issue", "duration issue"],
    "sprint": ["", "issue"],
    "file": ["", "issue", "ticket"],
    "comment": ["", "issue"],
}


@pytest.mark.parametrize("claim", sorted(CORE))
def test_the_common_combinations_are_said(claim: str) -> None:
    missing = [f"{language}{key}:{combo or '-'}" for language in LANGUAGES for key in KEYS
               for combo in CORE[claim]
               if not realiser().say(_statement(claim, key, language, *combo.split()),
                                     language)]
    assert not missing, f"{claim}: nothing says {missing}"


def test_every_claim_has_its_common_combinations() -> None:
    assert set(CORE) == set(said_claims()) - {
        "account_change", "two_factor_off", "email_change", "password_reset", "code_sent",
        "contact_update", "verified"}  # said of no entity (an account, a profile)


def test_entities_are_said_as_the_language_writes_them() -> None:
    statement = _statement("refund", "+done", "de", "money", "order", "date")
    said = realiser().say(statement, "de")
    assert said is not None and "45,00" in said and "A-13006" in said and "Juni 2025" in said
    ticket = Entity("ticket", "601", "ticket #601", 0, 0)
    assert fill("ticket #{ticket}", [ticket], "en") == "ticket #601"
    percent = Entity("percent", 12.5, "12.5%", 0, 0)
    assert fill("{percent}", [percent], "de") == "12,5 %"
    assert fill("{percent}", [Entity("percent", 10.0, "10%", 0, 0)], "en") == "10%"
    status = Entity("ticket_status", "hold", "on hold", 0, 0)
    assert fill("{ticket_status}", [status], "ja", realiser().names) == "保留"


def test_a_date_not_known_is_not_said() -> None:
    """"Tomorrow" read without the episode's day has no date to say again."""
    statement = _statement("refund", "+will", "en", "order").but(
        entities=(Entity("order", "A13006", "A-13006", 0, 0),
                  Entity("date", None, "tomorrow", 0, 0)))
    assert realiser().say(statement, "en") is None


def test_a_negated_statement_is_said_the_other_way_round() -> None:
    statement = _statement("refund", "+done", "en", "money", "order")
    said = realiser().say(statement, "en", polarity=Polarity.NEGATIVE)
    assert said is not None
    problem, got = judge("refund", "en", "-done", statement.entities, said)
    assert not problem, (said, got)


# --- read back --------------------------------------------------------------------------

def test_realisations_read_back() -> None:
    print("\n" + summary())
    rows = rates()
    right, total = rows["all"]
    assert total > 0
    assert right / total >= FLOOR, summary()
    for language, floor in FLOORS.items():
        right, total = rows[language]
        assert right / total >= floor, f"{language}: {right}/{total}\n{summary()}"


if __name__ == "__main__":
    print(summary(failures=True))
