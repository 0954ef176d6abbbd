"""Mail between apps: what one app's write sent the world's people (the code an email change
sends to the new address) reaches the episode's other apps through the proxy, so a scripted
customer can give a code only once it was sent, and then the one that was."""

from __future__ import annotations

import re
from collections.abc import Callable

from workgym.local import LocalServer
from workgym.sdk import Env

from .conftest import registry

TASK = "helpdesk/email-change"
HOLDER = 1  # a seed where the requester is the account holder (the code goes to them)


def test_the_customer_has_a_code_only_once_the_checkout_sent_it(
        make_env: Callable[..., Env], local: LocalServer) -> None:
    env = make_env(TASK, HOLDER)
    obs = env.reset()
    record = local.run(registry(local).get(obs.episode_id))
    ticket = record.vars["helpdesk"]["ticket"]["id"]
    requester = record.vars["helpdesk"]["customer"]["id"]
    account = record.vars["checkout"]["account"]["id"]
    new_email = record.vars["checkout"]["new"]["email"]

    def ask() -> str:
        env.call("PUT", f"/api/v2/tickets/{ticket}", app="helpdesk", json={"ticket": {
            "comment": {"body": "Could you reply with the verification code we sent?",
                        "public": True}}})
        comments = env.call("GET", f"/api/v2/tickets/{ticket}/comments", app="helpdesk"
                            ).json()["comments"]
        assert comments[-1]["author_id"] == requester
        return str(comments[-1]["body"])

    # Asked before any change was started: they have no code to give.
    assert not re.search(r"\d{6}", ask())
    started = env.call("POST", f"/store/accounts/{account}/email-change", app="checkout",
                       json={"new_email": new_email})
    assert started.status_code == 201, started.text
    assert not [h for h in started.headers if h.startswith("x-workgym-")]  # never the agent's
    code = re.findall(r"\d{6}", ask())
    assert len(code) == 1
    verified = env.call("POST", f"/store/account-actions/{started.json()['id']}/verify",
                        app="checkout", json={"code": code[0]})
    assert verified.status_code == 200, verified.text
