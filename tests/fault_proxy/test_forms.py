"""What the `stripe` library sends: a form body in bracket notation is recorded on the
trajectory as the JSON it stands for, so trajectory assertions read its parameters as they
read a JSON body's."""

from __future__ import annotations

from collections.abc import Callable

from workgym.local import LocalServer
from workgym.sdk import Env

from .conftest import auth

TASK = "checkout/refund-returned-order"


def test_a_form_body_is_recorded_as_json(make_env: Callable[..., Env],
                                         local: LocalServer) -> None:
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    sent = env._http.request(  # noqa: SLF001 - a raw form body, as the stripe library sends
        "POST", obs.apps["checkout"] + "/v1/customers",
        content=b"email=jo%40example.com&metadata[source]=form&expand[]=default_source",
        headers={**auth(env), "content-type": "application/x-www-form-urlencoded"})
    assert sent.status_code == 200, sent.text
    registry = local.server.registry
    assert registry is not None
    [step] = local.run(registry.trajectory(obs.episode_id))
    assert step.request_body == {"email": "jo@example.com", "metadata": {"source": "form"},
                                 "expand": ["default_source"]}
    assert step.request_text is None


def test_an_idempotency_key_goes_through_a_tool_and_is_recorded(
        make_env: Callable[..., Env], local: LocalServer) -> None:
    """A header parameter of the app's API (Stripe's Idempotency-Key) is a tool argument;
    the same key twice gets the first answer replayed, and each step records the key."""
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    arguments = {"email": "jo@example.com", "idempotency_key": "new-customer-jo"}
    first = env.call_tool("checkout_create_customer", arguments)
    again = env.call_tool("checkout_create_customer", arguments)
    assert first["status"] == again["status"] == 200
    assert again["body"]["id"] == first["body"]["id"]  # replayed: one customer
    registry = local.server.registry
    assert registry is not None
    steps = local.run(registry.trajectory(obs.episode_id))
    assert [s.idempotency_key for s in steps] == ["new-customer-jo"] * 2
    assert steps[0].request_body == {"email": "jo@example.com"}
