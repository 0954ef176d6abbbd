"""The scripted customer answers public agent replies on its ticket."""

from __future__ import annotations

import pytest

from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, ticket_setup

pytestmark = pytest.mark.anyio

SCRIPT = {
    "customer": {
        "ticket": "$ticket.id",
        "replies": [
            {"when_any": ["order number", "order #"], "reply": "Sure - it's order A-10423."},
            {"when_any": [""], "reply": "Thanks!"},
        ],
    }
}


async def test_customer_replies_once_per_rule(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"), script=SCRIPT)
    tid = api.vars["ticket"]["id"]
    await api.ok(
        "POST",
        f"/tickets/{tid}/comments",
        {"body": "Internal: check order #", "public": False},
        201,
    )
    assert (await api.ok("GET", f"/tickets/{tid}/comments"))["total"] == 1
    await api.ok("PATCH", f"/tickets/{tid}", {"status": "pending"})
    asked = await api.ok(
        "POST", f"/tickets/{tid}/comments", {"body": "Could you send your ORDER NUMBER?"}, 201
    )
    comments = (await api.ok("GET", f"/tickets/{tid}/comments"))["data"]
    reply = comments[-1]
    assert reply["author_type"] == "customer"
    assert reply["author_id"] == api.vars["customer"]["id"]
    assert reply["body"] == "Sure - it's order A-10423." and reply["public"]
    assert reply["created_at"] > asked["created_at"]
    assert (await api.ok("GET", f"/tickets/{tid}"))["status"] == "open"

    await api.ok("POST", f"/tickets/{tid}/comments", {"body": "Found it, refunding now."}, 201)
    assert (await api.ok("GET", f"/tickets/{tid}/comments"))["data"][-1]["body"] == "Thanks!"
    await api.ok("POST", f"/tickets/{tid}/comments", {"body": "Anything else?"}, 201)
    last = (await api.ok("GET", f"/tickets/{tid}/comments"))["data"][-1]
    assert last["author_type"] == "agent"


async def test_no_script_no_reply(episode: MakeEpisode) -> None:
    api = await episode(setup=ticket_setup("open"))
    tid = api.vars["ticket"]["id"]
    await api.ok("POST", f"/tickets/{tid}/comments", {"body": "What's your order number?"}, 201)
    assert (await api.ok("GET", f"/tickets/{tid}/comments"))["data"][-1]["author_type"] == "agent"


CODE_SCRIPT = {
    "customer": {
        "ticket": "$ticket.id",
        "replies": [
            {"when_any": ["code"], "reply": "It's {verification_code}"},
            {"when_any": [""], "reply": "Thanks!"},
        ],
    }
}


async def test_reply_gives_the_pending_email_change_code(episode: MakeEpisode) -> None:
    from replicas.helpdesk.rules import email_verification_code

    api = await episode(setup=ticket_setup("open"), script=CODE_SCRIPT)
    tid, cid = api.vars["ticket"]["id"], api.vars["customer"]["id"]
    # No email change pending yet: the code reply is not eligible, the next one answers.
    await api.ok("POST", f"/tickets/{tid}/comments", {"body": "What code did you get?"}, 201)
    assert (await api.ok("GET", f"/tickets/{tid}/comments"))["data"][-1]["body"] == "Thanks!"

    await api.ok("POST", f"/customers/{cid}/email-change", {"new_email": "t1@example.com"}, 201)
    action = await api.ok(
        "POST", f"/customers/{cid}/email-change", {"new_email": "tess.new@example.com"}, 201
    )
    await api.ok("POST", f"/tickets/{tid}/comments", {"body": "Please send the code."}, 201)
    reply = (await api.ok("GET", f"/tickets/{tid}/comments"))["data"][-1]
    code = email_verification_code(api.secret, cid, "tess.new@example.com")
    assert reply["author_type"] == "customer" and reply["body"] == f"It's {code}"
    done = await api.ok("POST", f"/account-actions/{action['id']}/verify", {"code": code})
    assert done["status"] == "completed"


@pytest.mark.parametrize(("script", "field"), [
    ({"customer": {"ticket": "$ticket.id", "replies": [{"when_any": ["x"]}]}},
     "script.customer.replies.0.reply"),
    ({"customer": {"ticket": "ticket 7"}}, "script.customer.ticket"),
    ({"shopper": {}}, "script.shopper"),
])
async def test_a_script_the_actors_model_refuses_is_named(
    episode: MakeEpisode, script: dict[str, object], field: str
) -> None:
    with pytest.raises(AssertionError, match=f'"field":"{field}"'):
        await episode(setup=ticket_setup("open"), script=script)
