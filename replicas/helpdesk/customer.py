"""The scripted customer (``actors.customer``, see actors.py): answers the agent's public
messages on one ticket, whatever their wording.

After every successful write, each new public agent comment on the ticket gets one answer,
posted as the requester's public comment by email one (virtual) minute later, through the
ticket rules (a pending or solved ticket goes back to open, triggers fire, it is audited):
the next thing the customer knows that the agent still needs, in the requester's language
and the persona's way, or thanks once everything is told. A message with a statement that
cannot be read with confidence (the reward engine's reader, :mod:`workgym_core.speech`: the
same reading it is scored by) is answered as a person would: they quote it and ask what it
means for them, so a clear agent can recover. Messages that come with the ticket solved get
no answer: the conversation is over (an answer would reopen it).
Everything is a function of the episode's writes and seed: what was told lives in
``episode.memory``; the persona is drawn from the episode's world.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from replicas.catalog import lexicon
from replicas.runtime import db as sql
from replicas.runtime.clock import parse_iso
from replicas.runtime.codes import email_change_code
from replicas.runtime.episode import Episode
from workgym_core.refs import resolve
from workgym_core.speech import Kind, reader
from workgym_core.templates import render

from .actors import PERSONAS, PROOFS, Actors, Known, ScriptedCustomer
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
           "unclear": 'Sorry, I don\'t understand what you mean by "{quote}". Could you tell '
                      "me plainly what has happened?",
           "unsure": 'You wrote "{quote}". Is that certain? Could you tell me plainly what '
                     "has happened?"},
    "de": {"tell": "Gerne, {name} ist {value}.", "wrong": "Ich glaube, {name} ist {value}.",
           "correct": "Entschuldigung, mein Fehler: {name} ist {value}.",
           "cannot": "Tut mir leid, {name} kann ich Ihnen gerade nicht geben.",
           "thanks": "Vielen Dank!",
           "unclear": "Entschuldigung, ich verstehe nicht, was Sie mit „{quote}“ meinen. "
                      "Können Sie mir klar sagen, was passiert ist?",
           "unsure": "Sie schreiben „{quote}“. Ist das sicher? Können Sie mir klar sagen, "
                     "was passiert ist?"},
    "fr": {"tell": "Bien sûr, {name} : {value}.", "wrong": "Je crois que {name} est {value}.",
           "correct": "Pardon, je me suis trompé : {name} est {value}.",
           "cannot": "Désolé, je ne peux pas vous donner {name} pour le moment.",
           "thanks": "Merci beaucoup !",
           "unclear": "Pardon, je ne comprends pas ce que vous voulez dire par « {quote} ». "
                      "Pouvez-vous me dire clairement ce qui s'est passé ?",
           "unsure": "Vous écrivez « {quote} ». Est-ce certain ? Pouvez-vous me dire "
                     "clairement ce qui s'est passé ?"},
    "es": {"tell": "Claro, {name} es {value}.", "wrong": "Creo que {name} es {value}.",
           "correct": "Perdón, me equivoqué: {name} es {value}.",
           "cannot": "Lo siento, ahora no puedo darle {name}.", "thanks": "¡Muchas gracias!",
           "unclear": "Perdone, no entiendo qué quiere decir con «{quote}». ¿Puede decirme "
                      "claramente qué ha pasado?",
           "unsure": "Usted escribe «{quote}». ¿Es seguro? ¿Puede decirme claramente qué ha "
                     "pasado?"},
    "ja": {"tell": "{name}は{value}です。", "wrong": "{name}はたぶん{value}です。",
           "correct": "すみません、間違えました。{name}は{value}です。",
           "cannot": "申し訳ありませんが、{name}は今お伝えできません。",
           "thanks": "ありがとうございます！",
           "unclear": "すみません、「{quote}」とはどういう意味でしょうか。何があったのか、"
                      "はっきり教えていただけますか。",
           "unsure": "「{quote}」とのことですが、確かでしょうか。何があったのか、はっきり"
                     "教えていただけますか。"},
}


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
        state.update(last_seen=_initial_last_comment_id(episode), told=0, wrong_given=False,
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
    for comment in [] if done else new:
        says, _ = _phrases(db, ticket_id)
        parts = [_answer(episode, script, state, ticket_id),
                 _clarify(episode, str(comment["body"] or ""), says)]
        answer = " ".join(part for part in parts if part) or None
        if answer is not None:
            assert ticket is not None
            _post_reply(db, ticket, answer, parse_iso(comment["created_at"]))
    latest = sql.one(db, "SELECT coalesce(max(id), 0) AS n FROM comments")
    assert latest is not None
    state["last_seen"] = max(state["last_seen"], latest["n"])


def _answer(episode: Episode, script: ScriptedCustomer, state: dict[str, Any],
            ticket_id: int) -> str | None:
    """What the customer says to one more public message, or None (nothing left to say)."""
    says, names = _phrases(episode.db, ticket_id)
    kind = persona(episode, script)
    while state["told"] < len(script.knows):
        known = script.knows[state["told"]]
        value = _value(episode, known, ticket_id)
        if value is None:  # nothing to tell yet (no pending code): skip it for now
            return None
        name = names[known.kind]
        if kind == "cannot_verify" and known.kind in PROOFS:
            return says["cannot"].format(name=name)
        if kind == "wrong_first" and not state["wrong_given"]:
            state["wrong_given"] = True
            return says["wrong"].format(name=name, value=_wrong(episode, known, value))
        state["told"] += 1
        state["wrong_given"] = False
        template = "correct" if kind == "wrong_first" else "tell"
        return says[template].format(name=name, value=value)
    if script.thanks and not state["thanked"]:
        state["thanked"] = True
        return says["thanks"]
    return None


def _clarify(episode: Episode, body: str, says: dict[str, str]) -> str | None:
    """What a person asks back about the first statement of ``body`` that cannot be read
    with confidence (None when everything can): read as the reward engine reads it, with
    the claims of the episode's apps."""
    read = reader(lexicon().for_apps(episode.apps))
    for statement in read.read(body, names=_names(episode.db)).statements:
        if statement.kind is Kind.UNREADABLE or statement.hedged:
            quote = " ".join(statement.text.split()).strip(" ,;:.。")
            return says["unsure" if statement.hedged else "unclear"].format(quote=quote)
    return None


def _names(db: sqlite3.Connection) -> dict[str, dict[str, str]]:
    """The world's names as the reward engine reads with them (kind -> {phrase: name}): the
    helpdesk's from its state, every app's other ways to say them."""
    return lexicon().world_names(lambda app, query: [
        next(iter(row.values())) for row in sql.rows(db, query)] if app == "helpdesk" else [])


def _phrases(db: sqlite3.Connection, ticket_id: int) -> tuple[dict[str, str], dict[str, str]]:
    """The requester's language's phrases and names (English when it has none)."""
    found = sql.one(db, "SELECT u.locale FROM users u JOIN tickets t "
                    "ON t.requester_id = u.id WHERE t.id = ?", (ticket_id,))
    language = str(found["locale"] if found else "en")[:2]
    return _SAYS.get(language, _SAYS["en"]), _NAMES.get(language, _NAMES["en"])


def _value(episode: Episode, known: Known, ticket_id: int) -> str | None:
    if known.to is not None:
        return _sent_code(episode, ticket_id, render(known.to, episode.vars, episode.others))
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


def _sent_code(episode: Episode, ticket_id: int, new_email: str) -> str | None:
    """The code sent to ``new_email`` to move the requester's account there."""
    found = sql.one(episode.db, "SELECT u.email FROM users u JOIN tickets t ON "
                    "t.requester_id = u.id WHERE t.id = ?", (ticket_id,))
    return email_change_code(episode.secret, found["email"], new_email) if found else None


def _post_reply(db: sqlite3.Connection, ticket: dict[str, Any], body: str,
                after: datetime) -> None:
    tickets.update(db, ticket["id"], tickets.Change(
        comment={"body": body, "public": True}, author_id=ticket["requester_id"],
        channel="email"), after + timedelta(minutes=1))
