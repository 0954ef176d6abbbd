"""No answer key in the agent's view, in the checkout that enforces the refund approval
policy: its tool descriptions and schemas, its refusals and its managers' decisions never
state the threshold or the limit (those are the help center's articles)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi import FastAPI

from tests.replicas.policy import policy_values, strings

from .conftest import Api
from .test_checkout_approvals import BIG, _charge

pytestmark = pytest.mark.anyio


def test_no_tool_description_or_schema_states_a_policy_value(app: FastAPI) -> None:
    leaks = {text: values for text in strings(app.openapi()) if (values := policy_values(text))}
    assert leaks == {}


async def test_approval_refusals_and_decisions_state_no_limit(
        make_api: Callable[..., Api]) -> None:
    api = make_api(setup=BIG)
    charge, machine = await _charge(api)
    error = await api.refused("POST", "/v1/refunds", 400, "approval_required",
                              json={"charge": charge["id"], "amount": machine})
    assert policy_values(error["message"]) == []
    for amount in (charge["amount"], charge["amount"] * 20):
        decided = await api.request("POST", "/store/refund_approvals", json={
            "charge": charge["id"], "amount": amount, "reason": "Damaged"})
        assert policy_values(decided.json()["decision_note"]) == []
