"""The scripted customer (``actors.customer``, see actors.py): answers what the agent's
public messages on one ticket ask them, in any wording.

After every successful write, each new public agent comment on the ticket may get one answer,
posted as the requester's public comment by email one (virtual) minute later, through the
ticket rules (a pending or solved ticket goes back to open, triggers fire, it is audited).
The message is read with the reward engine's reader: the things its questions and requests
name (:func:`asked_for`; their words are ``_ASKED_WORDS``) get what the customer knows of
each, in the requester's language and the persona's way; a message that asks nothing gets
nothing (thanks, once, after everything was told); one in a language they do not read (the
reader's guess, neither their locale's nor their ticket's) gets a request for theirs and no
data. A code exists only once another app mailed it (``episode.memory["mail"]``, delivered
by the proxy: replicas/runtime/internal.py). A message with a statement that
cannot be read with confidence (the reward engine's reader, :mod:`workgym_core.speech`: the
same reading it is scored by) is answered as a person would: they quote it and ask what it
means for them, so a clear agent can recover. Messages that come with the ticket solved get
no answer: the conversation is over (an answer would reopen it).
Everything is a function of the episode's writes and seed: what was told lives in
``episode.memory``; the persona is drawn from the episode's world. With the episode's ``user``
(a model, ``--user openai:MODEL``) the words of each answer are the model's
(customer_words.py); whether they answer and what they tell stay decided here.
"""

from __future__ import annotations

import copy
import random
import re
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from replicas.catalog import lexicon
from replicas.runtime import db as sql
from replicas.runtime.clock import parse_iso
from replicas.runtime.episode import Episode
from workgym_core.chat import UserModelUnavailable
from workgym_core.refs import resolve
from workgym_core.speech import Kind as Said
from workgym_core.speech import Modality, Reading, reader
from workgym_core.speech.cues import guess
from workgym_core.templates import render

from . import customer_words
from .actors import PERSONAS, PROOFS, Actors, Kind, Known, ScriptedCustomer
from .rules import tickets

_MEMORY = "helpdesk.customer"

# What the customer says, by language (the requester's locale) and what they say it about.
_NAMES = {
    "en": {"order_number": "my order number", "verification_code": "the code I got",
           "card_last4": "the last four digits of my card",
           "phone_last4": "the last four digits of my phone number",
           "account_email": "my account email",
           "detail": "it"},
    "de": {"order_number": "meine Bestellnummer", "verification_code": "der Code",
           "card_last4": "die letzten vier Ziffern meiner Karte",
           "phone_last4": "die letzten vier Ziffern meiner Telefonnummer",
           "account_email": "meine Konto-E-Mail", "detail": "es"},
    "fr": {"order_number": "mon numéro de commande", "verification_code": "le code reçu",
           "card_last4": "les quatre derniers chiffres de ma carte",
           "phone_last4": "les quatre derniers chiffres de mon numéro de téléphone",
           "account_email": "l'e-mail de mon compte", "detail": "c'est"},
    "es": {"order_number": "mi número de pedido", "verification_code": "el código",
           "card_last4": "los últimos cuatro dígitos de mi tarjeta",
           "phone_last4": "los últimos cuatro dígitos de mi teléfono",
           "account_email": "el correo de mi cuenta", "detail": "eso"},
    "ja": {"order_number": "注文番号", "verification_code": "確認コード",
           "card_last4": "カードの下4桁", "phone_last4": "電話番号の下4桁",
           "account_email": "アカウントのメール", "detail": "それ"},
}
_SAYS = {
    "en": {"tell": "Sure, {name} is {value}.", "wrong": "I think {name} is {value}.",
           "correct": "Sorry, I got that wrong: {name} is {value}.",
           "cannot": "I'm sorry, I can't give you {name} right now.",
           "thanks": "Thank you!",
           "nothing_yet": "I haven't received anything yet.",
           "foreign": "Sorry, I don't understand. Could you write to me in English, please?",
           "unclear": 'Sorry, I don\'t understand what you mean by "{quote}". Could you tell '
                      "me plainly what has happened?",
           "unsure": 'You wrote "{quote}". Is that certain? Could you tell me plainly what '
                     "has happened?"},
    "de": {"tell": "Gerne, {name} ist {value}.", "wrong": "Ich glaube, {name} ist {value}.",
           "correct": "Entschuldigung, mein Fehler: {name} ist {value}.",
           "cannot": "Tut mir leid, {name} kann ich Ihnen gerade nicht geben.",
           "thanks": "Vielen Dank!",
           "nothing_yet": "Ich habe noch nichts bekommen.",
           "foreign": "Entschuldigung, das verstehe ich nicht. Können Sie mir bitte auf Deutsch "
                      "schreiben?",
           "unclear": "Entschuldigung, ich verstehe nicht, was Sie mit „{quote}“ meinen. "
                      "Können Sie mir klar sagen, was passiert ist?",
           "unsure": "Sie schreiben „{quote}“. Ist das sicher? Können Sie mir klar sagen, "
                     "was passiert ist?"},
    "fr": {"tell": "Bien sûr, {name} : {value}.", "wrong": "Je crois que {name} est {value}.",
           "correct": "Pardon, je me suis trompé : {name} est {value}.",
           "cannot": "Désolé, je ne peux pas vous donner {name} pour le moment.",
           "thanks": "Merci beaucoup !",
           "nothing_yet": "Je n'ai encore rien reçu.",
           "foreign": "Désolé, je ne comprends pas. Pouvez-vous m'écrire en français, s'il "
                      "vous plaît ?",
           "unclear": "Pardon, je ne comprends pas ce que vous voulez dire par « {quote} ». "
                      "Pouvez-vous me dire clairement ce qui s'est passé ?",
           "unsure": "Vous écrivez « {quote} ». Est-ce certain ? Pouvez-vous me dire "
                     "clairement ce qui s'est passé ?"},
    "es": {"tell": "Claro, {name} es {value}.", "wrong": "Creo que {name} es {value}.",
           "correct": "Perdón, me equivoqué: {name} es {value}.",
           "cannot": "Lo siento, ahora no puedo darle {name}.", "thanks": "¡Muchas gracias!",
           "nothing_yet": "Todavía no he recibido nada.",
           "foreign": "Perdone, no lo entiendo. ¿Puede escribirme en español, por favor?",
           "unclear": "Perdone, no entiendo qué quiere decir con «{quote}». ¿Puede decirme "
                      "claramente qué ha pasado?",
           "unsure": "Usted escribe «{quote}». ¿Es seguro? ¿Puede decirme claramente qué ha "
                     "pasado?"},
    "ja": {"tell": "{name}は{value}です。", "wrong": "{name}はたぶん{value}です。",
           "correct": "すみません、間違えました。{name}は{value}です。",
           "cannot": "申し訳ありませんが、{name}は今お伝えできません。",
           "thanks": "ありがとうございます！",
           "nothing_yet": "まだ何も届いていません。",
           "foreign": "すみません、よく分かりません。日本語で書いていただけますか。",
           "unclear": "すみません、「{quote}」とはどういう意味でしょうか。何があったのか、"
                      "はっきり教えていただけますか。",
           "unsure": "「{quote}」とのことですが、確かでしょうか。何があったのか、はっきり"
                     "教えていただけますか。"},
}


# What an agent names when it asks them for each thing, in any of their languages: the
# things a question or request is about ("Which order was it?", "la carte", "注文番号").
_ASKED_WORDS: dict[Kind, list[str]] = {
    "order_number": [r"\border(?:[ -]?(?:number|no\b|nr\b|id\b)|\s*#)",
                     r"\b(?:which|what) (?:order|purchase)",
                     r"bestell(?:ung)?s?-?(?:nummer|nr\b)", r"\bwelche (?:bestellung|lieferung)",
                     r"\bauftragsnummer", r"num[ée]ro de (?:la |votre |ta )?commande",
                     r"\bquelle commande", r"n[°º] de commande",
                     r"n[úu]mero de (?:su |tu |la )?(?:pedido|orden)", r"\bqu[ée] pedido",
                     r"\bcu[áa]l (?:es el )?pedido", r"注文番号", r"どの(?:ご)?注文"],
    "verification_code": [r"\bcodes?\b", r"\bc[óo]digos?\b", r"コード", r"確認番号", r"認証番号"],
    "card_last4": [r"\bcard\b", r"\bkarte\b", r"\bcarte\b", r"\btarjeta\b", r"カード"],
    "phone_last4": [r"\b(?:tele)?phone\b", r"\bmobile\b", r"\btelefon", r"\bhandy",
                    r"\bt[ée]l[ée]phone", r"\bportable\b", r"\btel[ée]fono", r"\bm[óo]vil\b",
                    r"\bcelular\b", r"電話"],
    "account_email": [r"\b(?:account|login|sign-in|current|registered) e-?mail",
                      r"\be-?mail (?:address )?(?:on|of|for) (?:your|the) account",
                      r"\bkonto-?e-?mail", r"e-?mail (?:de|du) (?:votre |ton )?compte",
                      r"correo (?:de|electr[óo]nico de) (?:su |tu )?cuenta", r"アカウントのメール"],
    "detail": [r"\bwhat (?:exactly )?(?:happened|went wrong)", r"\bmore (?:details?|information)\b",
               r"\bwas (?:genau )?(?:ist )?passiert", r"\bce qui s'est pass[ée]",
               r"\bqu[ée] (?:ha )?pas(?:ó|ado)", r"何があった", r"詳細"],
}
_ASKED = {kind: re.compile("|".join(words), re.IGNORECASE)
          for kind, words in _ASKED_WORDS.items()}


def _initial_last_comment_id(episode: Episode) -> int:
    """The highest comment id of the episode's starting state (seed + task setup)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(episode.initial)
        row = conn.execute("SELECT coalesce(max(id), 0) FROM comments").fetchone()
        return int(row[0])
    finally:
        conn.close()


def persona(episode: Episode, script: ScriptedCustomer) -> str:
    """The customer's persona: the one given, or drawn from the episode's world."""
    if isinstance(script.persona, str) and script.persona.startswith("$"):
        drawn = resolve(script.persona, episode.vars, episode.others)
        if drawn not in PERSONAS:
            raise ValueError(f"persona {script.persona} is {drawn!r}, not one of "
                             f"{sorted(PERSONAS)}")
        return str(drawn)
    if isinstance(script.persona, str):
        return script.persona
    return random.Random(f"persona:{episode.snapshot_key}").choice(script.persona)


def after_write(episode: Episode) -> None:
    actors = episode.actors
    if not isinstance(actors, Actors) or actors.customer is None:
        return
    script = actors.customer
    state: dict[str, Any] = episode.memory.setdefault(_MEMORY, {})
    if "last_seen" not in state:
        state.update(last_seen=_initial_last_comment_id(episode), told=[], wrong_given=[],
                     thanked=False)
    ticket_id = int(resolve(script.ticket, episode.vars))
    db = episode.db
    new = sql.rows(db, "SELECT * FROM comments WHERE id > ? AND ticket_id = ? AND "
                   "author_id IN (SELECT id FROM users WHERE role != 'end-user') AND public "
                   "ORDER BY id",
                   (state["last_seen"], ticket_id))
    ticket = sql.one(db, "SELECT * FROM tickets WHERE id = ?", (ticket_id,))
    # A message that came with the ticket solved closes the conversation: the customer does
    # not write back (a reply would reopen it).
    done = ticket is None or ticket["status"] in ("solved", "closed")
    before = copy.deepcopy(state)
    try:
        for comment in [] if done else new:
            answer = _reply(episode, script, state, ticket_id, str(comment["body"] or ""))
            if answer is not None:
                assert ticket is not None
                if episode.user is not None:
                    answer = _worded(episode, script, ticket_id, int(comment["id"]), answer)
                _post_reply(db, ticket, answer, parse_iso(comment["created_at"]))
    except UserModelUnavailable:
        episode.memory[_MEMORY] = before  # the write is refused whole: nothing was said
        raise
    latest = sql.one(db, "SELECT coalesce(max(id), 0) AS n FROM comments")
    assert latest is not None
    state["last_seen"] = max(state["last_seen"], latest["n"])


def _reply(episode: Episode, script: ScriptedCustomer, state: dict[str, Any], ticket_id: int,
           body: str) -> str | None:
    """The customer's answer to one public message, or None (it asks them nothing)."""
    own = _language(episode.db, ticket_id)
    says = _SAYS.get(own, _SAYS["en"])
    if "spoken" not in state:
        state["spoken"] = sorted(_spoken(episode, ticket_id, own))
    # A message in a language they do not speak: they say so, in theirs, and tell nothing.
    if guess(body, default=own) not in state["spoken"]:
        return says["foreign"]
    reading = reader(lexicon().for_apps(episode.apps)).read(body, names=_names(episode.db))
    asked = asked_for(reading) or _doubted(episode, script, state, reading)
    parts = [_answer(episode, script, state, ticket_id, asked), _clarify(reading, says)]
    return " ".join(part for part in parts if part) or None


def _worded(episode: Episode, script: ScriptedCustomer, ticket_id: int, upto: int,
            said: str) -> str:
    """``said`` (the script's answer to comment ``upto``) in the words of the episode's
    model (customer_words), which knows what the customer knows."""
    assert episode.user is not None
    knows: dict[str, str | None] = {}
    values: set[str] = set()
    for known in script.knows:
        value = _value(episode, known)
        knows[_NAMES["en"][known.kind]] = value
        if value is not None:
            values |= {value, _wrong(episode, known, value)}
    found = sql.one(episode.db, "SELECT u.name FROM users u JOIN tickets t "
                    "ON t.requester_id = u.id WHERE t.id = ?", (ticket_id,))
    customer = customer_words.Customer(
        name=str(found["name"] if found else ""), persona=persona(episode, script),
        language=_language(episode.db, ticket_id), knows=knows, values=frozenset(values))
    return customer_words.words(episode.user, episode.seed, customer, episode.db, ticket_id,
                                upto, said)


def _spoken(episode: Episode, ticket_id: int, own: str) -> set[str]:
    """The languages the requester reads: their own (their locale's) and the one they wrote
    the ticket in."""
    first = sql.one(episode.db, "SELECT c.body FROM comments c JOIN tickets t ON "
                    "t.id = c.ticket_id AND c.author_id = t.requester_id WHERE t.id = ? "
                    "ORDER BY c.id LIMIT 1", (ticket_id,))
    return {own} | ({guess(str(first["body"] or ""), default=own)} if first else set())


def asked_for(reading: Reading) -> list[Kind]:
    """What a message asks its reader for, in the order it names it: the things named in
    its questions and requests (statements the reader reads as asked), or, when those name
    nothing ("Could you check it again?"), in the whole message; nothing when it asks
    nothing."""
    asked = [s for s in reading.statements if s.modality is Modality.ASKED]
    if not asked:
        return []
    for texts in ([s.text for s in asked], [reading.text]):
        found = sorted((match.start(), n, kind) for n, text in enumerate(texts)
                       for kind, pattern in _ASKED.items() for match in pattern.finditer(text))
        kinds = list(dict.fromkeys(kind for _, _, kind in sorted(
            found, key=lambda f: (f[1], f[0]))))
        if kinds:
            return kinds
    return []


def _doubted(episode: Episode, script: ScriptedCustomer, state: dict[str, Any],
             reading: Reading) -> list[Kind]:
    """What a question that names nothing ("Could you double-check it for me?") asks a
    wrong_first customer for: the thing they gave wrong and have not corrected yet, as a
    person who just gave it would take it; nothing otherwise."""
    if persona(episode, script) != "wrong_first" or not any(
            s.modality is Modality.ASKED for s in reading.statements):
        return []
    return [script.knows[index].kind for index in state["wrong_given"][-1:]
            if index not in state["told"]]


def _answer(episode: Episode, script: ScriptedCustomer, state: dict[str, Any],
            ticket_id: int, asked: list[Kind]) -> str | None:
    """What the customer says to what a message asks them for; thanks once, to a message
    that asks nothing after they told everything; else None."""
    says, names = _phrases(episode.db, ticket_id)
    if not asked:
        if script.thanks and not state["thanked"] and script.knows and \
                len(state["told"]) == len(script.knows):
            state["thanked"] = True
            return says["thanks"]
        return None
    return " ".join(_tell(episode, script, state, ticket_id, kind, says, names[kind])
                    for kind in asked)


def _tell(episode: Episode, script: ScriptedCustomer, state: dict[str, Any], ticket_id: int,
          kind: Kind, says: dict[str, str], name: str) -> str:
    """What the customer says when asked for ``kind``: what they know of it, in their
    persona's way; that they cannot give it (they do not know it, or cannot prove who they
    are); or that nothing came yet (a code not sent)."""
    found = next(((n, k) for n, k in enumerate(script.knows) if k.kind == kind), None)
    if found is None or (persona(episode, script) == "cannot_verify" and kind in PROOFS):
        return says["cannot"].format(name=name)
    index, known = found
    value = _value(episode, known)
    if value is None:
        return says["nothing_yet"]
    if persona(episode, script) == "wrong_first" and index not in state["wrong_given"]:
        state["wrong_given"].append(index)
        return says["wrong"].format(name=name, value=_wrong(episode, known, value))
    corrects = persona(episode, script) == "wrong_first" and index not in state["told"]
    if index not in state["told"]:
        state["told"].append(index)
    return says["correct" if corrects else "tell"].format(name=name, value=value)


def _clarify(reading: Reading, says: dict[str, str]) -> str | None:
    """What a person asks back about the first statement of a message that cannot be read
    with confidence (None when everything can): read as the reward engine reads it, with
    the claims of the episode's apps."""
    for statement in reading.statements:
        if statement.kind is Said.UNREADABLE or statement.hedged:
            quote = " ".join(statement.text.split()).strip(" ,;:.。")
            return says["unsure" if statement.hedged else "unclear"].format(quote=quote)
    return None


def _names(db: sqlite3.Connection) -> dict[str, dict[str, str]]:
    """The world's names as the reward engine reads with them (kind -> {phrase: name}): the
    helpdesk's from its state, every app's other ways to say them."""
    return lexicon().world_names(lambda app, query: [
        next(iter(row.values())) for row in sql.rows(db, query)] if app == "helpdesk" else [])


def _language(db: sqlite3.Connection, ticket_id: int) -> str:
    """The requester's language (their locale's; English when it is none the customer
    speaks)."""
    found = sql.one(db, "SELECT u.locale FROM users u JOIN tickets t "
                    "ON t.requester_id = u.id WHERE t.id = ?", (ticket_id,))
    language = str(found["locale"] if found else "en")[:2]
    return language if language in _SAYS else "en"


def _phrases(db: sqlite3.Connection, ticket_id: int) -> tuple[dict[str, str], dict[str, str]]:
    """The requester's language's phrases and names."""
    language = _language(db, ticket_id)
    return _SAYS.get(language, _SAYS["en"]), _NAMES.get(language, _NAMES["en"])


def _value(episode: Episode, known: Known) -> str | None:
    if known.to is not None:
        return _sent_code(episode, render(known.to, episode.vars, episode.others))
    if known.value is None:
        return None
    return render(known.value, episode.vars, episode.others)


def _wrong(episode: Episode, known: Known, value: str) -> str:
    """A wrong_first customer's first answer: the task's, else two digits of the right one
    swapped (a slip of the finger), else the right one with a digit changed."""
    if known.wrong is not None:
        return render(known.wrong, episode.vars, episode.others)
    digits = [i for i, c in enumerate(value) if c.isdigit()]
    chars = list(value)
    for a, b in zip(digits[::-1][1:], digits[::-1], strict=False):
        if chars[a] != chars[b]:
            chars[a], chars[b] = chars[b], chars[a]
            return "".join(chars)
    if digits:
        last = digits[-1]
        chars[last] = str((int(chars[last]) + 1) % 10)
    return "".join(chars)


def _sent_code(episode: Episode, address: str) -> str | None:
    """The code the world last sent to ``address`` (mail another app delivered: an email
    change the checkout started); None before any was sent."""
    codes = [str(m["code"]) for m in episode.memory.get("mail", [])
             if str(m.get("to", "")).lower() == address.lower() and m.get("code")]
    return codes[-1] if codes else None


def _post_reply(db: sqlite3.Connection, ticket: dict[str, Any], body: str,
                after: datetime) -> None:
    tickets.update(db, ticket["id"], tickets.Change(
        comment={"body": body, "public": True}, author_id=ticket["requester_id"],
        channel="email"), after + timedelta(minutes=1))
