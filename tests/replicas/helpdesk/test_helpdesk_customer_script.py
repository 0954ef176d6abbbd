"""The scripted customer answers what the agent's public messages on its ticket ask them
for, in any wording: what it knows of that, in its persona's way and its language, by
email, through the ticket rules (a pending ticket reopens, the answer is audited). A message
that asks nothing gets no data; one in a language they do not read gets a request for
theirs."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.replicas.helpdesk.conftest import SECRET, Api
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, ticket_setup
from workgym_core.internal import INTERNAL_HEADER

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


async def test_a_question_gets_what_it_asks_for_then_thanks_once(
    episode: MakeEpisode,
) -> None:
    api = await episode(setup=ticket_setup("open"), script=_script(ORDER))
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    # An internal note is not a message to the customer: no answer.
    note = await _say(api, tid, "Internal: ask for the order", public=False)
    assert (note["author_id"], note["public"]) == (1, False)
    # A question in any wording; a reply and a status change in one update, and the
    # customer's answer reopens the pending ticket.
    asked = await _say(api, tid, "Hi! Which order was it?", status="pending")
    assert (asked["author_id"], asked["public"]) == (customer, True)
    assert asked["body"] == "Sure, my order number is A-10423."
    thread = (await api.ok("GET", f"/api/v2/tickets/{tid}/comments"))["comments"]
    assert thread[-2]["body"] == "Hi! Which order was it?"
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


@pytest.mark.parametrize("message", [
    "I'm looking into your refund.",  # says something, asks nothing
    "Thanks for your patience, we'll update you soon.",
    "Is there anything else I can help you with?",  # asks, but nothing they know
    "Could you check it again?",  # asks, naming nothing
])
async def test_a_message_that_asks_nothing_they_know_gets_no_data(
        episode: MakeEpisode, message: str) -> None:
    api = await episode(setup=ticket_setup("open"), script=_script(ORDER))
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    assert (await _say(api, tid, message))["author_id"] == 1  # no answer: nothing asked
    asked = await _say(api, tid, "What's your order number, please?")
    assert (asked["author_id"], asked["body"]) == (customer, "Sure, my order number is A-10423.")


async def test_a_question_about_one_thing_gets_that_thing(episode: MakeEpisode) -> None:
    phone = {"kind": "phone_last4", "value": "4821"}
    api = await episode(setup=ticket_setup("open"), script=_script(ORDER, phone))
    tid = api.vars["ticket"]["id"]
    assert (await _say(api, tid, "To confirm it's you: what are the last four digits of the "
                       "phone number on your account?"))["body"] == \
        "Sure, the last four digits of my phone number is 4821."
    assert (await _say(api, tid, "Thanks. And which order is it about?"))["body"] == \
        "Sure, my order number is A-10423."
    # Both at once: both, in the order asked; asked again, said again.
    assert (await _say(api, tid, "Could you repeat your phone digits and the order number?")
            )["body"] == ("Sure, the last four digits of my phone number is 4821. "
                          "Sure, my order number is A-10423.")


async def test_what_they_do_not_know_they_cannot_give(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"), script=_script(ORDER))
    tid = api.vars["ticket"]["id"]
    reply = await _say(api, tid, "What are the last four digits of your card?")
    assert reply["body"] == "I'm sorry, I can't give you the last four digits of my card " \
        "right now."


async def test_addressed_in_another_language_they_ask_for_theirs(episode: MakeEpisode) -> None:
    """An English-speaking customer (their locale, their ticket) does not read German: they
    say so in English and give nothing until asked in English."""
    api = await episode(setup=ticket_setup("open"), script=_script(ORDER))
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    reply = await _say(api, tid, "Hallo! Welche Bestellnummer hat Ihre Bestellung?")
    assert (reply["author_id"], reply["body"]) == (
        customer, "Sorry, I don't understand. Could you write to me in English, please?")
    assert (await _say(api, tid, "Which order number is it?"))["body"] == \
        "Sure, my order number is A-10423."


async def test_they_read_their_language_and_the_one_they_wrote_in(
        episode: MakeEpisode) -> None:
    """A German customer who wrote their ticket in English reads both, answers in German,
    and does not read French."""
    setup = ticket_setup("open")
    setup[0]["values"]["locale"] = "de-DE"
    api = await episode(setup=setup, script=_script(ORDER))
    tid = api.vars["ticket"]["id"]
    assert (await _say(api, tid, "Quel est votre numéro de commande ?"))["body"] == \
        "Entschuldigung, das verstehe ich nicht. Können Sie mir bitte auf Deutsch schreiben?"
    assert (await _say(api, tid, "Which order number is it?"))["body"] == \
        "Gerne, meine Bestellnummer ist A-10423."


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
    # A message that asks nothing does not make them correct it; being asked again does.
    assert (await _say(api, tid, "Let me look that up."))["author_id"] == 1
    assert (await _say(api, tid, "That order number isn't yours, could you check it?")
            )["body"] == "Sorry, I got that wrong: my order number is A-10423."


@pytest.mark.parametrize("doubt", [
    "Hmm, I can't see that number on your account, could you double-check it for me?",
    "Could you check it again?",
])
async def test_a_wrong_first_customer_doubted_in_any_words_corrects_themselves(
        episode: MakeEpisode, doubt: str) -> None:
    """Asked to check "it" right after giving a wrong number, they check that number; before
    they gave one, or once corrected, a question that names nothing gets no number."""
    api = await episode(setup=ticket_setup("open"), script=_script(ORDER, persona="wrong_first"))
    tid = api.vars["ticket"]["id"]
    assert (await _say(api, tid, doubt))["author_id"] == 1
    assert (await _say(api, tid, "Which order?"))["body"] == "I think my order number is A-10432."
    assert (await _say(api, tid, doubt))["body"] == \
        "Sorry, I got that wrong: my order number is A-10423."
    assert "A-104" not in (await _say(api, tid, doubt))["body"]


async def test_a_customer_who_cannot_verify_never_gives_proof(episode: MakeEpisode) -> None:
    script = _script({"kind": "card_last4", "value": "0173"}, persona="cannot_verify")
    api = await episode(setup=ticket_setup("open"), script=script)
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    for ask in ("What are the last four digits of your card?",
                "I need your card's digits to go on. Could you check them?"):
        reply = await _say(api, tid, ask)
        assert reply["author_id"] == customer and "0173" not in reply["body"]
        assert "can't give you" in reply["body"]


async def test_the_customer_speaks_their_language(episode: MakeEpisode) -> None:
    setup = ticket_setup("open")
    setup[0]["values"]["locale"] = "de-DE"
    api = await episode(setup=setup, script=_script(ORDER))
    tid = api.vars["ticket"]["id"]
    assert (await _say(api, tid, "Welche Bestellung war es?"))["body"] == \
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


async def test_the_code_is_the_one_mailed_to_the_new_address_once_it_was(
        episode: MakeEpisode) -> None:
    """The customer gives the code another app mailed to ``to`` (delivered to this app as
    the proxy does, /_env/episodes/{id}/mail); before any was sent they have none."""
    api = await episode(setup=ticket_setup("open"), script=_script(
        {"kind": "verification_code", "to": "tess.new@example.com"}))
    tid, customer = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    ask = "Please share the verification code you got."
    reply = await _say(api, tid, ask)
    assert (reply["author_id"], reply["body"]) == (customer, "I haven't received anything yet.")

    async def mail(*sent: dict[str, str]) -> None:
        response = await api.client.post(f"/_env/episodes/{api.episode_id}/mail",
                                         json={"mail": list(sent)},
                                         headers={INTERNAL_HEADER: SECRET})
        assert response.status_code == 204, response.text

    await mail({"to": "someone.else@example.com", "about": "email_change", "code": "111111"})
    assert (await _say(api, tid, ask))["body"] == "I haven't received anything yet."
    await mail({"to": "Tess.New@example.com", "about": "email_change", "code": "204518"},
               {"to": "tess.new@example.com", "about": "email_change", "code": "730091"})
    assert (await _say(api, tid, ask))["body"] == "Sure, the code I got is 730091."  # the last


async def test_mail_the_internal_route_refuses_is_named(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    response = await api.client.post(f"/_env/episodes/{api.episode_id}/mail",
                                     json={"mail": []}, headers={INTERNAL_HEADER: SECRET})
    assert response.status_code == 422 and "mail" in response.text


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
