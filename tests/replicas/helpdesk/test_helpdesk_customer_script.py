"""The scripted customer answers the agent's public messages on its ticket, whatever their
wording: what it knows, in its persona's way and its language, by email, through the ticket
rules (a pending ticket reopens, the answer is audited)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from replicas.runtime.codes import email_change_code
from tests.replicas.helpdesk.conftest import Api
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, ticket_setup

pytestmark = pytest.mark.anyio


def _script(*knows: dict[str, Any], persona: str = "cooperative") -> dict[str, Any]:
    return {"customer": {"ticket": "$ticket.id", "knows": list(knows), "persona": persona}}


ORDER = {"kind": "order_number", "value": "A-10423"}


async def _say(api: Api, tid: int, body: str, public: bool = True,
               **change: Any) -> dict[str, Any]:
    """Comment on the ticket as the agent; the last comment after it."""
    await api.ok("PUT", f"/api/v2/tickets/{tid}", {"ticket": {
        "comment": {"body": body, "public": public}, **change}})
    thread = (await api.ok("GET", f"/api/v2/tickets/{tid}/comments"))["comments"]
    last: dict[str, Any] = thread[-1]
    return last


async def test_any_public_message_gets_the_next_fact_then_thanks_once(
    episode: MakeEpisode,
) -> None:
    api = await episode(setup=ticket_setup("open"), script=_script(ORDER))
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    # An internal note is not a message to the customer: no answer.
    note = await _say(api, tid, "Internal: ask for the order", public=False)
    assert (note["author_id"], note["public"]) == (1, False)
    # No trigger word needed: any public message gets what they know; a reply and a status
    # change in one update, and the customer's answer reopens the pending ticket.
    asked = await _say(api, tid, "Hi! Which one was it?", status="pending")
    assert (asked["author_id"], asked["public"]) == (customer, True)
    assert asked["body"] == "Sure, my order number is A-10423."
    thread = (await api.ok("GET", f"/api/v2/tickets/{tid}/comments"))["comments"]
    assert thread[-2]["body"] == "Hi! Which one was it?"
    assert asked["created_at"] > thread[-2]["created_at"]
    assert (await api.ok("GET", f"/api/v2/tickets/{tid}"))["ticket"]["status"] == "open"
    # The answer came by email, as the requester: audited, the status change in it.
    audit = (await api.ok("GET", f"/api/v2/tickets/{tid}/audits"))["audits"][-1]
    assert (audit["author_id"], audit["via"]["channel"]) == (customer, "email")
    assert [(e["type"], e.get("value")) for e in audit["events"]] == [
        ("Comment", None), ("Change", "open")]

    assert (await _say(api, tid, "Refunding it now."))["body"] == "Thank you!"
    last = await _say(api, tid, "Anything else?")  # all said: silence
    assert (last["author_id"], last["body"]) == (1, "Anything else?")


async def test_no_script_no_reply(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    assert (await _say(api, tid, "What's your order number?"))["author_id"] == 1


async def test_another_tickets_messages_get_no_reply(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open") + ticket_setup(
        "open", bind="other", with_requester=False), script=_script(ORDER))
    other = api.vars["other"]["id"]
    assert (await _say(api, other, "Which order was it?"))["author_id"] == 1


async def test_a_wrong_first_customer_corrects_themselves(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"), script=_script(ORDER, persona="wrong_first"))
    tid = api.vars["ticket"]["id"]
    assert (await _say(api, tid, "Which order?"))["body"] == "I think my order number is A-10432."
    assert (await _say(api, tid, "That order isn't yours, could you check?"))["body"] == \
        "Sorry, I got that wrong: my order number is A-10423."


async def test_a_customer_who_cannot_verify_never_gives_proof(episode: MakeEpisode) -> None:
    script = _script({"kind": "card_last4", "value": "0173"}, persona="cannot_verify")
    api = await episode(setup=ticket_setup("open"), script=script)
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    for ask in ("What are the last four digits of your card?", "I need them to go on."):
        reply = await _say(api, tid, ask)
        assert reply["author_id"] == customer and "0173" not in reply["body"]
        assert "can't give you" in reply["body"]


async def test_the_customer_speaks_their_language(episode: MakeEpisode) -> None:
    setup = ticket_setup("open")
    setup[0]["values"]["locale"] = "de-DE"
    api = await episode(setup=setup, script=_script(ORDER))
    tid = api.vars["ticket"]["id"]
    assert (await _say(api, tid, "Welche Bestellung?"))["body"] == \
        "Gerne, meine Bestellnummer ist A-10423."


async def test_a_closed_ticket_gets_no_reply(episode: MakeEpisode) -> None:
    """A ticket the agent closes in the same update as the question: the customer's answer
    would be refused (closed tickets take no comments), so there is none."""
    api = await episode(setup=ticket_setup("solved"), script=_script(ORDER))
    tid = api.vars["ticket"]["id"]
    last = await _say(api, tid, "Closing this; which order was it, for our records?",
                      status="closed")
    assert last["author_id"] == 1
    assert (await api.ok("GET", f"/api/v2/tickets/{tid}"))["ticket"]["status"] == "closed"


async def test_the_code_is_the_one_the_checkout_sent_to_the_new_address(
        episode: MakeEpisode) -> None:
    """The customer gives the code the checkout emails to move their account to ``to``:
    the same code the checkout's verification takes (one world secret per seed, the
    addresses the apps share)."""
    api = await episode(setup=ticket_setup("open"), script=_script(
        {"kind": "verification_code", "to": "tess.new@example.com"}))
    tid = api.vars["ticket"]["id"]
    reply = await _say(api, tid, "Please share the verification code you got.")
    code = email_change_code(api.secret, api.vars["customer"]["email"], "tess.new@example.com")
    assert reply["author_id"] == api.vars["customer"]["id"]
    assert reply["body"] == f"Sure, the code I got is {code}."


@pytest.mark.parametrize(("script", "field"), [
    ({"customer": {"ticket": "$ticket.id", "knows": [{"kind": "shoe_size"}]}},
     "script.customer.knows.0.kind"),
    ({"customer": {"ticket": "$ticket.id", "persona": "grumpy"}}, "script.customer.persona"),
    ({"customer": {"ticket": "ticket 7"}}, "script.customer.ticket"),
    ({"shopper": {}}, "script.shopper"),
    ({"customer": {"ticket": "$ticket.id", "knows": [{"kind": "verification_code"}]}},
     "script.customer.knows.0"),
    ({"customer": {"ticket": "$ticket.id", "knows": [
        {"kind": "order_number", "value": "A-1", "to": "x@example.com"}]}},
     "script.customer.knows.0"),
])
async def test_a_script_the_actors_model_refuses_is_named(
    episode: MakeEpisode, script: dict[str, object], field: str
) -> None:
    # The internal route answers the gym in WorkGym's body, whatever the app's style.
    with pytest.raises(AssertionError, match=f'"message":"{re.escape(field)}: '):
        await episode(setup=ticket_setup("open"), script=script)
