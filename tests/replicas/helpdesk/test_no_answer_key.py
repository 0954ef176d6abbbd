"""No answer key in the agent's view: the policy values tasks test (refund windows by tier,
the approval threshold and the managers' limit) live in the help center's articles, never
in the helpdesk's tool descriptions or schemas (the OpenAPI document the tools derive from).
The checkout's side: tests/replicas/checkout/test_no_answer_key.py."""

from __future__ import annotations

from fastapi import FastAPI

from tests.replicas.policy import ARTICLE, WINDOWS, policy_values, strings


def test_the_articles_state_the_policy() -> None:
    """The check finds the values where they belong (else it could never fail)."""
    assert set(WINDOWS) == {"standard", "silver", "gold", "platinum"}
    stated = policy_values(ARTICLE["body"])
    assert {f"{days} days" for days in WINDOWS.values()} <= set(stated)
    assert any(value.startswith("USD ") for value in stated)


def test_no_tool_description_or_schema_states_a_policy_value(app: FastAPI) -> None:
    leaks = {text: values for text in strings(app.openapi()) if (values := policy_values(text))}
    assert leaks == {}
