"""The apps' vocabulary: what their records are named by, what they count, what amounts are
of, and the claims that can be made about them, in every language; read from each app's
``claims.yaml`` (``replicas/<app>/claims.yaml``), so a new app or rule brings its claims with
it. The reader (:mod:`.reader`) reads with one lexicon of every app; the reward engine judges
each claim by the SQL its app gives (``facts``), never by words of its own.

A claim file::

    ids:          # how records are named: kind -> {pattern, normal: key | lower | exact}
      order: {pattern: '(?:[A-Z]|WC)-\\d{4,6}', normal: key}
    countable:    # what counts and ordinals go with: kind -> {language: regex}
      payment: {en: 'payments?|charges?', de: 'Zahlung(?:en)?', ...}
    labels:       # what an amount is said to be of: label -> {language: regex}
      total: {en: 'total', ...}
    names:        # the world's names an entity can be: kind -> SQL over the app's state,
      team:       # or {sql, aliases: {name: [other ways to say it]}}
        sql: SELECT name FROM groups
        aliases: {Billing: [billing team]}
    views:        # named SELECTs the app's facts may use (WITH name AS (...))
      payments: SELECT ...
    amounts: SELECT ...  # the true amounts of its records: customer, order, label, amount, currency
    about:        # what a message on one of its records is about, when it names nothing:
      ticket_id: SELECT order_number AS "order" FROM tickets WHERE id = :ticket_id
    actions:      # verbs of change that no claim of the app's covers: a clause with one
      en: [...]   # cannot be read with confidence
    claims:
      refund:
        act: agent          # agent (the agent's own act: a promise of it counts as done),
        labels: [discount]  # what the amounts said with it are of ("a discount of $5");
                            # '*': any part of the money ("refunded the $9 shipping").
                            # An amount labelled otherwise is judged as a value of its own
        kinds:              # rows of a kind (fact column `kind`) for statements with its
          fix: {en: fix|bug}  # words; the rest judged against rows of no kind
        overrides: [authorize]  # in a clause with this claim, those are only its parts
                                # ("the hold on your card will be released": a release)
        episode: true       # said of no record, it means this episode's act ("we refunded
                            # it"), not one of the past (unless "already", a date ...)
                            # world (others': the shop, the bank, finance, engineers),
                            # customer (theirs: acknowledged, never judged), policy,
                            # note (how the writer went about it: "I checked", never judged)
        words: {en: [...], de: [...], fr: [...], es: [...], ja: [...]}
        denied: {en: [...]}  # words that say it did not happen ("declined")
        context: {en: ...}   # the claim's words count only in a sentence that has this
        unless: {en: [...]}  # phrases its words are not the claim in ("refund policy")
        inverse: {en: [...]} # words with a negation in them that affirm it ("we do not
                             # contest it" accepts a dispute)
        nouns: {en: [...]}   # its words that are nouns ("refund"): alone, they claim
                             # something only with a verb that says it happened ("the refund
                             # was issued", "no refund") and are dropped beside another
                             # claim's verb ("the rest of the authorization is released")
        facts: SELECT ...    # rows that make it true (see workgym_reward.truth)
    also:         # facts this app's state adds to another app's claim
      escalate: {facts: SELECT ...}
    writes:       # where the agent writes text: every message there is judged, every task
      comments:   # table
        text: body
        by: {author_id: 1}   # the rows that are the agent's
        records: {ticket_id: ticket_id}  # what a message is on: context key -> column
        out:      # those of them that go outside the company (disclosure is judged there)
          where: {public: true}
          party: SELECT ...  # who hears it (a lower-cased email); parameters: the columns
          heard: SELECT ...  # what that party has said themselves (one text column)
    params:       # values of the app's world (world.yaml beside this file) its SQL may use
      approval_above: refund_policy.approval_above  # as :approval_above
    sensitive:    # what may be told only to its owner
      proofs: [phone]  # kinds identity is proved with: told to no one, not even the owner
      sql: SELECT ...  # owner (a lower-cased email), kind (email, phone, address, card), value
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml

from .cues import LANGUAGES, alternation
from .entities import Finder, IdPattern, key

Act = Literal["agent", "world", "customer", "policy", "note"]
_NORMAL: dict[str, Callable[[str], str]] = {
    "key": key, "lower": str.lower, "exact": str, "upper": str.upper,
    "digits": lambda text: re.sub(r"\D", "", text)}


@dataclass(frozen=True, eq=False)
class Names:
    """The names of one kind an app's world has: read from its state (``sql``, one column)
    and other ways to say some of them (``aliases``: name -> phrases)."""

    sql: str | None = None
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def surfaces(self, found: Iterable[str]) -> dict[str, str]:
        """phrase -> the name it says: each name found, and each alias."""
        out = {str(name): str(name) for name in found if name}
        for name, phrases in self.aliases.items():
            out[name] = name
            out.update((phrase, name) for phrase in phrases)
        return out


@dataclass(frozen=True, eq=False)
class ClaimType:
    """One kind of claim: its words in every language and how its truth is read."""

    name: str
    app: str
    act: Act
    words: Mapping[str, re.Pattern[str]]
    denied: Mapping[str, re.Pattern[str]]
    context: Mapping[str, re.Pattern[str]]
    unless: Mapping[str, re.Pattern[str]] = field(default_factory=dict)  # not a claim there
    nouns: Mapping[str, re.Pattern[str]] = field(default_factory=dict)  # its words as nouns
    inverse: Mapping[str, re.Pattern[str]] = field(default_factory=dict)  # negated, affirm it
    facts: Mapping[str, str] = field(default_factory=dict)  # app -> SQL over its state
    values: tuple[str, ...] = ()  # entity kinds that say what it became ("to urgent")
    episode: bool = False  # said of no record, it is this episode's act ("we refunded it")
    overrides: tuple[str, ...] = ()  # claims its words make mere parts of it, in one clause
    kinds: Mapping[str, Mapping[str, re.Pattern[str]]] = field(default_factory=dict)
    labels: tuple[str, ...] = ()  # what its amounts are of; '*': any part of the money
    joins: bool = False  # records made one: counted as those joined in, all, or the one


@dataclass(frozen=True)
class Out:
    """The messages of a write that go outside the company (a ticket's public replies)."""

    where: Mapping[str, Any]  # a filter selecting them among the agent's
    party: str  # SQL: who hears a message (a lower-cased email); parameters: its columns
    heard: str  # SQL: what that party has said themselves (one text column)


@dataclass(frozen=True)
class Write:
    """Where the agent writes text (a ticket's comments, an issue's description)."""

    table: str
    text: str  # the column of the message text
    by: Mapping[str, Any]  # a filter selecting the agent's rows
    on: Mapping[str, str]  # the records a message is on: context key (ticket_id) -> column
    out: Out | None = None


@dataclass(frozen=True)
class Sensitive:
    """An app's data that may be told only to its owner."""

    sql: str  # owner (a lower-cased email), kind, value
    proofs: tuple[str, ...] = ()  # kinds identity is proved with: told to no one


@dataclass(frozen=True, eq=False)
class Lexicon:
    """Every app's vocabulary together."""

    claims: Mapping[str, ClaimType]
    ids: tuple[IdPattern, ...]
    countable: Mapping[str, Mapping[str, str]]  # kind -> language -> regex
    labels: Mapping[str, Mapping[str, re.Pattern[str]]]
    names: Mapping[str, Mapping[str, Names]]  # app -> kind -> how to read them
    views: Mapping[str, Mapping[str, str]]  # app -> name -> SELECT
    amounts: Mapping[str, str]  # app -> SELECT of the true amounts of its records
    about: Mapping[str, Mapping[str, str]]  # app -> message column -> SELECT of what it is about
    actions: Mapping[str, re.Pattern[str]]
    finder: Finder = field(compare=False)
    writes: Mapping[str, tuple[Write, ...]] = field(default_factory=dict)  # app -> ...
    sensitive: Mapping[str, Sensitive] = field(default_factory=dict)  # app -> its data
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # app -> name -> value
    owners: Mapping[str, frozenset[str]] = field(default_factory=dict)  # kind -> its apps
    restricted: dict[frozenset[str], Lexicon] = field(default_factory=dict, compare=False,
                                                      repr=False)

    def apps_named(self, kinds: Iterable[str], text: str, language: str,
                   among: Iterable[str]) -> set[str]:
        """The apps whose records a sentence names, of the kinds ``among``: by its entities
        (an issue key, a ticket's status) and the things it counts ("ticket", "issue"); a
        word two apps share names neither."""
        among = set(among)
        found: set[str] = set()
        for kind in kinds:
            if kind in among and len(self.owners.get(kind, ())) == 1:
                found |= self.owners[kind]
        nouns: dict[tuple[int, int], set[str]] = {}  # "ticket": a helpdesk's, and in French
        for kind, apps in self.owners.items():      # a tracker's too
            if kind in among and len(apps) == 1 and kind in self.countable:
                for code in dict.fromkeys((language, "en")):
                    pattern = self.countable[kind].get(code)
                    for m in re.finditer(rf"(?<!\w)(?:{pattern})(?!\w)", text,
                                         re.IGNORECASE) if pattern else ():
                        nouns.setdefault(m.span(), set()).update(apps)
        for spans_apps in nouns.values():
            if len(spans_apps) == 1:
                found |= spans_apps
        return found

    def for_apps(self, apps: Iterable[str]) -> Lexicon:
        """The lexicon an episode of ``apps`` reads with: the claims those apps can judge
        (their own, and those they give facts of), and how any writer goes about their work
        ("the call timed out", "I checked"). In a helpdesk episode "it depends on your tier"
        is no tracker link."""
        key = frozenset(apps)
        found = self.restricted.get(key)
        if found is None:
            claims = {name: claim for name, claim in self.claims.items()
                      if claim.app in key or key & set(claim.facts) or claim.act == "note"}
            found = self.restricted[key] = replace(self, claims=claims, restricted={})
        return found

    def triggers(self, text: str, language: str) -> list[tuple[str, re.Match[str], bool]]:
        """(claim, where its word is, whether the word denies it) of every claim word in
        ``text``, in the language and in English (the business words people borrow)."""
        found = []
        for claim in self.claims.values():
            for code in dict.fromkeys((language, "en")):
                unless = claim.unless.get(code)
                spans = [m.span() for m in unless.finditer(text)] if unless else []
                for pattern, denied in ((claim.words.get(code), False),
                                        (claim.inverse.get(code), False),
                                        (claim.denied.get(code), True)):
                    if pattern is not None:
                        found += [(claim.name, m, denied) for m in pattern.finditer(text)
                                  if not any(a <= m.start() < b for a, b in spans)]
        return found

    def is_inverse(self, claim: str, word: str, language: str) -> bool:
        """Whether ``word`` is one of the claim's words that carry their own negation."""
        return any(p.fullmatch(word) for code, p in self.claims[claim].inverse.items()
                   if code in (language, "en"))

    def names_a(self, kind: str, text: str, language: str) -> bool:
        """Whether ``text`` names a thing the apps count as ``kind`` ("attempt", "item"), in
        its language or in English."""
        by_language = self.countable.get(kind, {})
        return any(re.search(rf"(?<!\w)(?:{by_language[code]})(?!\w)", text, re.IGNORECASE)
                   for code in dict.fromkeys((language, "en")) if code in by_language)

    def kind_of(self, claim: str, text: str, language: str) -> str | None:
        """The kind of record a statement of ``claim`` is about, by its words (None: any)."""
        for kind, by_language in self.claims[claim].kinds.items():
            if any(p.search(text) for code, p in by_language.items()
                   if code in (language, "en")):
                return kind
        return None

    def is_noun(self, claim: str, word: str, language: str) -> bool:
        """Whether ``word`` (a claim word as found) is one of the claim's nouns."""
        nouns = self.claims[claim].nouns
        return any(pattern.fullmatch(word) for code, pattern in nouns.items()
                   if code in (language, "en"))

    def in_context(self, claim: str, sentence: str, language: str) -> bool:
        """Whether the sentence has what the claim's words need around them (in its own
        language's terms; a language the claim gives none for needs nothing)."""
        pattern = self.claims[claim].context.get(language)
        return pattern is None or pattern.search(sentence) is not None

    def world_names(self, read: Callable[[str, str], Iterable[Any]]
                    ) -> dict[str, dict[str, str]]:
        """kind -> {phrase: name}: the world's names (teams, people, versions ...), each
        app's read by ``read(app, sql)`` (nothing for an app not at hand), and every other
        way the apps give to say them."""
        out: dict[str, dict[str, str]] = {}
        for app, kinds in self.names.items():
            for kind, spec in kinds.items():
                found = [str(name) for name in read(app, spec.sql) if name is not None] \
                    if spec.sql else []
                out.setdefault(kind, {}).update(spec.surfaces(found))
        return out

    def label(self, text: str, language: str) -> list[tuple[str, re.Match[str]]]:
        return [(label, m) for label, by_language in self.labels.items()
                for code in dict.fromkeys((language, "en"))
                if (pattern := by_language.get(code)) is not None
                for m in pattern.finditer(text)]


def _phrases(raw: Mapping[str, Any] | None, where: str, *, words: bool = True
             ) -> dict[str, re.Pattern[str]]:
    """language -> one compiled alternation of its phrases (a list, or one regex), as whole
    words unless ``words`` is false (stems: "authori[sz]")."""
    compiled = {}
    for code, phrases in (raw or {}).items():
        if code not in LANGUAGES:
            raise ValueError(f"{where}: unknown language {code!r} (languages: {LANGUAGES})")
        items = [phrases] if isinstance(phrases, str) else list(phrases)
        compiled[code] = re.compile(alternation(items, words=words and code != "ja"),
                                    re.IGNORECASE)
    return compiled


def _world_value(world: Mapping[str, Any], path: str, where: str) -> Any:
    """The value at a dotted ``path`` of the app's world data."""
    value: Any = world
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise ValueError(f"{where}: the app's world.yaml has no {path!r}")
        value = value[part]
    return value


def _load(app: str, raw: Mapping[str, Any], into: dict[str, Any],
          world: Mapping[str, Any]) -> None:
    for kind, spec in (raw.get("ids") or {}).items():
        normal = _NORMAL[spec.get("normal", "key")]
        into["ids"].append(IdPattern(kind, re.compile(spec["pattern"]), normal))
        into["owners"].setdefault(kind, set()).add(app)
    for kind, by_language in (raw.get("countable") or {}).items():
        into["countable"][kind] = dict(by_language)
        into["owners"].setdefault(kind, set()).add(app)
    for kind in raw.get("names") or {}:
        into["owners"].setdefault(kind, set()).add(app)
    for label, by_language in (raw.get("labels") or {}).items():
        into["labels"][label] = _phrases(by_language, f"{app}: labels.{label}")
    into["names"][app] = {
        kind: Names(sql=spec) if isinstance(spec, str) else Names(
            sql=spec.get("sql"), aliases={str(k): tuple(map(str, v))
                                          for k, v in (spec.get("aliases") or {}).items()})
        for kind, spec in (raw.get("names") or {}).items()}
    into["views"][app] = dict(raw.get("views") or {})
    if raw.get("amounts"):
        into["amounts"][app] = raw["amounts"]
    into["about"][app] = dict(raw.get("about") or {})
    for code, pattern in _phrases(raw.get("actions"), f"{app}: actions").items():
        into["actions"].setdefault(code, []).append(pattern.pattern)
    for name, spec in (raw.get("claims") or {}).items():
        where = f"{app}: claims.{name}"
        if name in into["claims"]:
            raise ValueError(f"{where}: claim {name!r} is also {into['claims'][name].app}'s")
        unknown = set(spec) - {"act", "words", "denied", "context", "unless", "nouns",
                               "inverse", "facts", "values", "episode", "overrides",
                               "kinds", "labels", "joins"}
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
        if spec.get("words") and (missing := set(LANGUAGES) - set(spec["words"])):
            # A key written between a list's languages takes the ones after it.
            raise ValueError(f"{where}.words: no words in {sorted(missing)}")
        into["claims"][name] = ClaimType(
            name=name, app=app, act=spec.get("act", "agent"),
            words=_phrases(spec.get("words"), where),
            denied=_phrases(spec.get("denied"), f"{where}.denied"),
            context=_phrases(spec.get("context"), f"{where}.context", words=False),
            unless=_phrases(spec.get("unless"), f"{where}.unless"),
            nouns=_phrases(spec.get("nouns"), f"{where}.nouns"),
            inverse=_phrases(spec.get("inverse"), f"{where}.inverse"),
            facts={app: spec["facts"]} if spec.get("facts") else {},
            values=tuple(spec.get("values", ())), episode=bool(spec.get("episode")),
            overrides=tuple(spec.get("overrides", ())), labels=tuple(spec.get("labels", ())),
            joins=bool(spec.get("joins")),
            kinds={kind: _phrases(words, f"{where}.kinds.{kind}", words=False)
                   for kind, words in (spec.get("kinds") or {}).items()})
    for name, spec in (raw.get("also") or {}).items():
        into["also"].append((app, name, spec))
    into["writes"][app] = tuple(
        Write(table=table, text=spec["text"], by=dict(spec.get("by") or {}),
              on=dict(spec.get("records") or {}),
              out=Out(where=dict(spec["out"].get("where") or {}), party=spec["out"]["party"],
                      heard=spec["out"]["heard"]) if spec.get("out") else None)
        for table, spec in (raw.get("writes") or {}).items())
    if raw.get("params"):
        into["params"][app] = {name: _world_value(world, path, f"{app}: params.{name}")
                               for name, path in raw["params"].items()}
    if raw.get("sensitive"):
        spec = raw["sensitive"]
        into["sensitive"][app] = Sensitive(sql=spec["sql"],
                                           proofs=tuple(spec.get("proofs", ())))


@cache
def load(files: tuple[tuple[str, Path], ...]) -> Lexicon:
    """The lexicon of ``files`` ((app, its claims.yaml) pairs), parsed once per process."""
    parts: dict[str, Any] = {"ids": [], "countable": {}, "labels": {}, "names": {},
                             "views": {}, "amounts": {}, "about": {}, "actions": {}, "claims": {},
                             "also": [], "writes": {}, "sensitive": {}, "params": {},
                             "owners": {}}
    for app, path in files:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        unknown = set(raw) - {"ids", "countable", "labels", "names", "views", "amounts",
                              "about", "actions", "claims", "also", "writes", "sensitive",
                              "params"}
        if unknown:
            raise ValueError(f"{path}: unknown keys {sorted(unknown)}")
        world_file = path.with_name("world.yaml")
        world = yaml.safe_load(world_file.read_text(encoding="utf-8")) or {} \
            if world_file.is_file() else {}
        _load(app, raw, parts, world)
    for claim in parts["claims"].values():
        if missing := [name for name in claim.overrides if name not in parts["claims"]]:
            raise ValueError(f"{claim.app}: claims.{claim.name}.overrides: no claim {missing}")
    for app, name, spec in parts["also"]:
        claim = parts["claims"].get(name)
        if claim is None:
            raise ValueError(f"{app}: also.{name}: no app declares the claim {name!r}")
        parts["claims"][name] = replace(
            claim, facts={**claim.facts, **({app: spec["facts"]} if spec.get("facts") else {})})
    actions = {code: re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
               for code, patterns in parts["actions"].items()}
    return Lexicon(claims=parts["claims"], ids=tuple(parts["ids"]),
                   countable=parts["countable"], labels=parts["labels"], names=parts["names"],
                   views=parts["views"], amounts=parts["amounts"], about=parts["about"],
                   actions=actions, writes=parts["writes"], sensitive=parts["sensitive"],
                   params=parts["params"],
                   owners={kind: frozenset(apps) for kind, apps in parts["owners"].items()},

                   finder=Finder(parts["ids"], {
                       kind: "|".join(f"(?:{p})" for p in by_language.values())
                       for kind, by_language in parts["countable"].items()}))


def of(files: Iterable[tuple[str, Path]]) -> Lexicon:
    return load(tuple(sorted((app, Path(path)) for app, path in files)))
