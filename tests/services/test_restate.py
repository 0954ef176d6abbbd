"""The gate's mutants and paraphrases of what a reference says (workgym.restate): each change
does what it says to a message, finds the messages in any app's request bodies, and is read
by the same reader the score uses."""

from __future__ import annotations

from workgym import restate
from workgym.restate import Message, Rewrite

REPLY = Message("Hi Ada, we have refunded USD 45.00 for order A-13006 to your card ending "
                "4242. Thanks for your patience.", True)


def test_negated_claims_are_said_the_other_way_round() -> None:
    changed = restate.negate(REPLY)
    assert changed is not None and "not" in changed.text, changed
    assert "USD 45.00" in changed.text.replace("$45.00", "USD 45.00")


def test_values_are_swapped_for_others() -> None:
    order = restate.MUTANTS["order swapped"](REPLY)
    assert order is not None and "A-13007" in order.text
    card = restate.MUTANTS["card swapped"](REPLY)
    assert card is not None and "4242" not in card.text and "5353" in card.text
    amount = restate.MUTANTS["amount swapped"](REPLY)
    assert amount is not None and "45.00" not in amount.text and "46.37" in amount.text
    currency = restate.MUTANTS["currency swapped"](REPLY)
    assert currency is not None and "€45.00" in currency.text


def test_a_hedge_goes_before_the_claim() -> None:
    changed = restate.hedge(REPLY)
    assert changed is not None and "I think we have refunded" in changed.text


def test_a_public_reply_made_internal_and_a_phone_told() -> None:
    assert restate.internal(REPLY) == Message(REPLY.text, False)
    assert restate.internal(Message("A note.", False)) is None
    told = restate.disclose("+1 212 555 0120")(REPLY)
    assert told is not None and told.text.endswith("+1 212 555 0120.")


def test_paraphrases_keep_the_facts() -> None:
    polite = restate.polite(0)(REPLY)
    assert polite is not None and polite.text.startswith("Hello,") and "A-13006" in polite.text
    german = restate.reword("de", 0)(REPLY)
    assert german is not None and "erstattet" in german.text and "A-13006" in german.text


def test_messages_are_found_in_any_app_s_request_body() -> None:
    rewrite = Rewrite(restate.internal, target=0)
    body = rewrite.body({"ticket": {"status": "solved", "comment": {"body": REPLY.text,
                                                                   "public": True}}})
    assert body["ticket"]["comment"]["public"] is False and rewrite.applied == 1
    recorded = Rewrite()
    document = {"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [
        {"type": "text", "text": "Blocked by SHOP-12 until it is fixed."}]}]}
    assert recorded.body({"fields": {"description": document}})["fields"]["description"] \
        == document
    assert recorded.answer("Three issues: SHOP-1, SHOP-2, SHOP-3.") is not None
    assert [m.text for m in recorded.seen] == ["Blocked by SHOP-12 until it is fixed.",
                                               "Three issues: SHOP-1, SHOP-2, SHOP-3."]
