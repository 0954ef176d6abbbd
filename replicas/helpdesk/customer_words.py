"""The customer's words by a model (the episode's ``user``, ``openai:MODEL``: ``workgym run
--user``), as tau2-bench's user simulator plays a customer: any OpenAI-compatible
chat-completions endpoint (``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` of the replica's process),
through :mod:`workgym_core.chat`.

The scripted customer (customer.py) still decides everything a reply does: whether they
answer at all (an answer reopens the ticket), what they tell (the facts asked for, as their
persona gives them: a wrong number first, a code only once it was mailed, nothing that proves
who they are when they cannot), and in which language. The model only words it: it gets who
they are (their name, their persona), their language, what they know (each fact, or that a
code has not come yet), the ticket they wrote, the public conversation since (the agent's
messages as ``user`` turns, theirs as ``assistant`` ones) and what this reply must say (the
script's own words); ``temperature`` 0 and the episode's seed as ``seed``.

Guards: a reply that drops a value the script's reply tells (exactly: an order number, a
code), says a figure (two digits or more) or a value they know that neither the script's
reply nor the conversation so far says (an invented order number, the right one before a
wrong_first customer's correction, a code a cannot_verify customer keeps), or is not in
their language, is replaced by the script's words (and logged). So what the verifiers read of
the customer (that they named the order) is what the script decided, and the reward's reader
of what the agent told them is the same deterministic one.

The same request gets the same reply within a process (:data:`CACHE_SIZE` requests kept), so
a request replayed (the proxy's duplicate delivery) or a fork's answer to the same message does
not ask twice. An endpoint that fails (unreachable, refused, retries spent: within the proxy's
30 s for the request) raises :class:`UserModelUnavailable`, a 503 naming the endpoint: the
agent's write is refused whole (``runtime/deps.py``) and the gym reports the episode's
``infra_error``, never the agent's zero.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson

from replicas.runtime import db as sql
from workgym_core import chat
from workgym_core.chat import ModelEndpointError, UserModelUnavailable
from workgym_core.errors import ConfigError, WorkGymError
from workgym_core.speech.cues import guess

log = logging.getLogger(__name__)

# Requests whose replies are kept, per process (oldest forgotten first).
CACHE_SIZE = 4096
# Per request and retries: a reply is written while the proxy waits (30 s) for the write.
TIMEOUT_S = 8.0
RETRIES = 2
LANGUAGES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish",
             "ja": "Japanese"}
PERSONAS = {
    "cooperative": "You are cooperative and to the point.",
    "wrong_first": "You are in a hurry and do not always remember details right the first "
                   "time.",
    "cannot_verify": "You cannot prove who you are: you have no card, phone or code at hand.",
}
# A figure: a run of letters, digits and hyphens with two digits or more (order numbers,
# codes, card digits).
_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")

_cache: OrderedDict[str, str] = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True)
class Customer:
    """Who writes: ``knows`` is what they can tell (what it is, in English -> the value, None
    for a code not received yet); ``values``: every value of theirs a reply may give (right
    ones and a wrong_first customer's wrong ones)."""

    name: str
    persona: str
    language: str
    knows: dict[str, str | None]
    values: frozenset[str]


def words(user: str, seed: int, customer: Customer, db: sqlite3.Connection, ticket_id: int,
          upto: int, said: str) -> str:
    """The reply ``said`` (the script's words, answering comment ``upto`` of the ticket) in
    the words of the model ``user`` (openai:MODEL), or ``said`` itself when the model's
    fails a guard."""
    opening, turns = _conversation(db, ticket_id, upto)
    messages = [{"role": "system", "content": _system(customer, opening, said)}, *turns]
    model = user.partition(":")[2]
    reply = _complete(model, seed, messages)
    heard = " ".join([opening, *(t["content"] for t in turns)])
    wrong = _unfit(reply, said, heard, customer)
    if wrong:
        log.info("the customer model %s's reply was not used (%s): %r", model, wrong, reply)
        return said
    return reply


def _system(customer: Customer, opening: str, said: str) -> str:
    language = LANGUAGES.get(customer.language, "English")
    known = "\n".join(f"- {what}: {value if value is not None else '(not received yet)'}"
                      for what, value in customer.knows.items()) or "- nothing more"
    return (
        f"You are {customer.name}, a customer of an online shop, writing to its support team "
        f"by email about your ticket. {PERSONAS.get(customer.persona, '')} Write in "
        f"{language}, as a person writes an email reply: short, plain text, no greeting "
        "lines or signature.\n\n"
        f"Your ticket:\n{opening}\n\n"
        f"What you know:\n{known}\n\n"
        f"Your reply must say this, in your own words, and nothing more: {said}\n"
        "Keep every number, code and address exactly as written there. Do not give any other "
        "detail you know, and never make one up.")


def _conversation(db: sqlite3.Connection, ticket_id: int,
                  upto: int) -> tuple[str, list[dict[str, str]]]:
    """The ticket as the requester opened it (subject and first messages, up to the agent's
    first), and the public conversation since, up to comment ``upto``: the agent's messages
    as ``user`` turns, the requester's as ``assistant`` ones (one turn per run of either)."""
    rows = sql.rows(db, "SELECT c.body, c.author_id = t.requester_id AS theirs, t.subject "
                    "FROM comments c JOIN tickets t ON t.id = c.ticket_id "
                    "LEFT JOIN users u ON u.id = c.author_id WHERE c.ticket_id = ? AND "
                    "c.public AND c.id <= ? AND (c.author_id = t.requester_id OR "
                    "u.role != 'end-user') ORDER BY c.id", (ticket_id, upto))
    opening: list[str] = [str(rows[0]["subject"] or "")] if rows else []
    turns: list[dict[str, str]] = []
    for row in rows:
        role, body = "assistant" if row["theirs"] else "user", str(row["body"] or "")
        if not turns and role == "assistant":
            opening.append(body)
        elif turns and turns[-1]["role"] == role:
            turns[-1]["content"] += "\n\n" + body
        else:
            turns.append({"role": role, "content": body})
    return "\n\n".join(part for part in opening if part), turns


def _complete(model: str, seed: int, messages: list[dict[str, Any]]) -> str:
    """The model's reply to ``messages`` (the one kept, for a request asked before)."""
    key = orjson.dumps([model, seed, messages]).decode()
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    try:
        client = chat.client("the customer's model (--user openai:MODEL)",
                             max_retries=RETRIES, timeout=TIMEOUT_S)
    except ConfigError as exc:  # no client, no key: this server cannot ask it
        raise _unavailable(exc) from exc
    try:
        with chat.answering(client, f"model {model!r}"):
            create: Any = client.chat.completions.create
            response = create(model=model, messages=messages, temperature=0, seed=seed)
    except ModelEndpointError as exc:
        raise _unavailable(exc) from exc
    finally:
        client.close()
    choices = getattr(response, "choices", None)
    reply = str(choices[0].message.content or "").strip() if choices else ""
    with _lock:
        _cache[key] = reply
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return reply


def _unavailable(exc: WorkGymError) -> UserModelUnavailable:
    return UserModelUnavailable(f"the customer's model failed: {exc.message}",
                                retry_after_s=5)


def _figures(text: str) -> set[str]:
    return {run.strip("-") for run in _RUN.findall(text) if sum(c.isdigit() for c in run) >= 2}


def _unfit(reply: str, said: str, heard: str, customer: Customer) -> str | None:
    """What is wrong with the model's ``reply`` to say ``said``, after the conversation
    ``heard``; None when nothing is."""
    if not reply:
        return "empty"
    told = [value for value in customer.values if value in said]
    if dropped := [value for value in told if value not in reply]:
        return f"drops {', '.join(sorted(dropped))}"
    known = _figures(said) | _figures(heard)
    if new := sorted(_figures(reply) - known) + sorted(
            value for value in customer.values
            if value in reply and value not in said and value not in heard):
        return f"says {', '.join(new)}"
    if (language := guess(reply, default=customer.language)) != customer.language:
        return f"in {language}, not {customer.language}"
    return None
