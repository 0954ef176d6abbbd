"""No answer key in the agent's view: the policy values tasks test (refund windows by tier,
the approval threshold and the managers' limit) live in the help center's articles, never
in the tool descriptions or schemas (the OpenAPI document the tools derive from) nor in the
rules' error messages and decisions. Read with the reward engine's fact checker, so "14
days", "fourteen days", "two weeks", "$500" and "EUR 463" all count."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from replicas.helpdesk.rules.billing import (
    MANAGER_APPROVAL_LIMIT_USD,
    REFUND_APPROVAL_THRESHOLD_USD,
    REFUND_WINDOW_DAYS,
    usd_equivalent,
)
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, money_setup
from workgym_reward.facts import extract

pytestmark = pytest.mark.anyio

WINDOWS = set(REFUND_WINDOW_DAYS.values())
THRESHOLDS = (REFUND_APPROVAL_THRESHOLD_USD, MANAGER_APPROVAL_LIMIT_USD)
# "standard 14, silver 30": a tier named with a number
_TIER_NUMBER = re.compile(rf"\b(?:{'|'.join(REFUND_WINDOW_DAYS)})\b\W{{0,3}}\d+", re.IGNORECASE)


def policy_values(text: str) -> list[str]:
    """The policy values ``text`` states."""
    facts = extract(text)
    found = [f"{days} days" for days in sorted(facts.durations & WINDOWS)]
    found += [f"{m.currency} {m.amount}" for m in facts.money for limit in THRESHOLDS
              if abs(usd_equivalent(m.amount, m.currency) - limit) <= limit // 100]
    return found + _TIER_NUMBER.findall(text)


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def test_the_articles_state_the_policy() -> None:
    """The check finds the values where they belong (else it could never fail)."""
    from replicas.helpdesk.world import data

    article = next(a for a in data()["articles"] if "loyalty tier" in a["title"])
    stated = policy_values(article["body"])
    assert {f"{days} days" for days in WINDOWS} <= set(stated)
    assert any(value.startswith("USD ") for value in stated)


def test_no_tool_description_or_schema_states_a_policy_value(app: FastAPI) -> None:
    leaks = {text: values for text in _strings(app.openapi()) if (values := policy_values(text))}
    assert leaks == {}


@pytest.mark.parametrize("tier", sorted(REFUND_WINDOW_DAYS))
async def test_the_window_error_names_the_rule_not_the_window(
    episode: MakeEpisode, tier: str
) -> None:
    days = REFUND_WINDOW_DAYS[tier] + 3
    api = await episode(setup=money_setup(tier=tier, fulfilled=f"@now-{days}d",
                                          captured=f"@now-{days + 2}d"))
    response = await api.post("/refunds", {"charge_id": api.vars["charge"]["id"],
                                           "currency": "USD", "kind": "full",
                                           "reason": "Return"})
    error = response.json()["error"]
    assert error["code"] == "refund_window_expired" and error["rule"] == "refund_window_by_tier"
    assert policy_values(error["message"]) == []


async def test_approval_errors_and_decisions_state_no_limit(episode: MakeEpisode) -> None:
    api = await episode(setup=money_setup(amount=900_000))
    cid = api.vars["charge"]["id"]
    response = await api.post("/refunds", {"charge_id": cid, "currency": "USD",
                                           "kind": "partial", "amount": 60_000,
                                           "reason": "Damaged"})
    error = response.json()["error"]
    assert error["code"] == "approval_required"
    assert policy_values(error["message"]) == []
    denied = await api.ok("POST", "/approvals", {"amount": 800_000, "currency": "USD",
                                                 "reason": "Damaged", "charge_id": cid}, 201)
    assert denied["status"] == "denied"
    assert policy_values(denied["decision_note"]) == []


async def test_the_proration_error_gives_the_formula_not_the_amount(
    episode: MakeEpisode,
) -> None:
    api = await episode(setup=money_setup(amount=18_000))
    response = await api.post("/refunds", {
        "charge_id": api.vars["charge"]["id"], "currency": "USD", "kind": "prorated",
        "used_days": 100, "total_days": 365, "amount": 13_000, "reason": "Cancelled"})
    error = response.json()["error"]
    assert error["code"] == "prorated_amount_mismatch"
    assert "13068" not in error["message"].replace(",", "")  # floor(18000 * 265 / 365)
