"""The shop's refund approval policy, enforced by the checkout: refunds of one charge totalling
above the threshold (counting earlier refunds: splitting dodges nothing) need an approved
manager's approval for that charge, named in metadata[approval], each covering one refund;
a manager denies what is above their limit or what is left. Refusals change nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from replicas.catalog import spec
from replicas.checkout.rules.approvals import needed, usd_cents
from replicas.checkout.rules.common import World
from replicas.runtime.snapshots import SnapshotCache, load

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]
# An espresso machine (USD 649.00) and beans: above the threshold in every currency.
BIG = [{"factory": "customer", "bind": "customer"},
       {"factory": "order", "bind": "order", "customer": "$customer.stripe_id",
        "items": "ES-900:1,BN-1K:1", "shipped": 2}]


async def _charge(api: Api) -> tuple[dict[str, Any], int]:
    """The order's charge, and what its espresso machine cost."""
    order = await api.ok("GET", f"/store/orders/{api.vars['order']['id']}")
    found: dict[str, Any] = (await api.ok("GET", "/v1/charges", params={
        "payment_intent": order["payment"]["intent"]}))["data"][0]
    return found, next(i["unit_amount"] for i in order["items"] if i["sku"] == "ES-900")


async def _approval(api: Api, charge: str, amount: int) -> dict[str, Any]:
    response = await api.request("POST", "/store/refund_approvals", json={
        "charge": charge, "amount": amount, "reason": "Returned the machine", "ticket": 7})
    assert response.status_code == 201, response.text
    found: dict[str, Any] = response.json()
    return found


def test_the_threshold_counts_in_us_cents_at_the_fixed_rates() -> None:
    assert usd_cents(46297, "eur") == 50000 and not needed(46297, "eur")
    assert needed(46298, "eur") and needed(50001, "usd") and not needed(50000, "usd")
    assert needed(74628, "jpy") is (usd_cents(74628, "jpy") > 50000)


async def test_a_large_refund_needs_an_approved_approval_of_its_charge(
        make_api: MakeApi) -> None:
    api = make_api(setup=BIG)
    charge, amount = await _charge(api)
    refused = await api.refused("POST", "/v1/refunds", 400, "approval_required",
                                json={"charge": charge["id"], "amount": amount})
    assert refused["param"] == "metadata[approval]"
    # Splitting dodges nothing: small refunds pass until their total crosses the threshold.
    small = await api.ok("POST", "/v1/refunds", json={"charge": charge["id"], "amount": 1000})
    assert small["status"] == "succeeded"
    await api.refused("POST", "/v1/refunds", 400, "approval_required",
                      json={"charge": charge["id"], "amount": amount - 1000})
    denied = await _approval(api, charge["id"], charge["amount"] * 10)
    assert denied["status"] == "denied" and "still refundable" in denied["decision_note"]
    await api.refused("POST", "/v1/refunds", 400, "approval_invalid", json={
        "charge": charge["id"], "amount": amount - 1000,
        "metadata": {"approval": str(denied["id"])}})
    approved = await _approval(api, charge["id"], amount - 1000)
    assert (approved["status"], approved["refund"], approved["ticket"]) == (
        "approved", None, 7)
    await api.refused("POST", "/v1/refunds", 400, "approval_invalid", json={
        "charge": charge["id"], "amount": amount, "metadata": {"approval": str(approved["id"])}})
    refund = await api.ok("POST", "/v1/refunds", json={
        "charge": charge["id"], "amount": amount - 1000,
        "metadata": {"approval": str(approved["id"])}})
    assert refund["metadata"] == {"approval": str(approved["id"])}
    used = await api.ok("GET", f"/store/refund_approvals/{approved['id']}")
    assert used["refund"] == refund["id"]
    listed = await api.ok("GET", "/store/refund_approvals", params={"charge": charge["id"]})
    assert [a["status"] for a in listed["data"]] == ["denied", "approved"]
    await api.refused("POST", "/v1/refunds", 400, "approval_already_used", json={
        "charge": charge["id"], "amount": 100, "metadata": {"approval": str(approved["id"])}})


async def test_an_approval_is_for_one_charge_and_a_manager_denies_above_the_limit(
        make_api: MakeApi) -> None:
    api = make_api(setup=[*BIG, {"factory": "order", "bind": "other",
                                 "customer": "$customer.stripe_id", "items": "ES-900:1"}])
    charge, _ = await _charge(api)
    other = await api.ok("GET", f"/store/orders/{api.vars['other']['id']}")
    approval = await _approval(api, charge["id"], 60000)
    await api.refused("POST", "/v1/refunds", 400, "approval_invalid", json={
        "payment_intent": other["payment"]["intent"],
        "metadata": {"approval": str(approval["id"])}})
    await api.refused("POST", "/v1/refunds", 400, "resource_missing", json={
        "charge": charge["id"], "metadata": {"approval": "9999"}})
    assert (await api.ok("GET", "/v1/refunds", params={"charge": charge["id"]}))["data"] == []
    huge = await api.request("POST", "/store/refund_approvals", json={
        "charge": charge["id"], "amount": 99_999_999, "reason": "x"})
    assert huge.json()["status"] == "denied"
    # Nine machines: above a manager's limit in every currency, whatever is refundable.
    api = make_api(setup=[{"factory": "order", "bind": "order", "items": "ES-900:9"}])
    charge, _ = await _charge(api)
    limit = await api.request("POST", "/store/refund_approvals", json={
        "charge": charge["id"], "amount": charge["amount"], "reason": "Nine machines back"})
    assert (limit.json()["status"], "manager approval limit" in limit.json()["decision_note"]) == (
        "denied", True)
    await api.refused("POST", "/store/refund_approvals", 400, "resource_missing",
                      json={"charge": "ch_nope", "amount": 100, "reason": "x"})


def _intent_id(stripe_id: str) -> Callable[[World], int]:
    """The row id of the payment intent ``stripe_id``, read from the episode's world."""
    return lambda w: w.db.execute("SELECT id FROM payment_intents WHERE stripe_id = ?",
                                  (stripe_id,)).fetchone()["id"]


async def test_the_rows_a_factory_makes_besides_its_own_sit_at_seeded_gaps(
        make_api: MakeApi, tmp_path: Path) -> None:
    """A new customer's store account and an order's payment are made in the factory's
    ``after``: they too sit past the world's rows by a gap drawn from the seed (before, the
    account was 321 in every instance), so no agent learns a task's ids by heart."""
    pristine = SnapshotCache(spec("checkout"), tmp_path, 4)
    worlds = [load(pristine.pristine(seed)) for seed in (1, 2, 3, 4)]
    lasts = [(w.execute("SELECT max(id) AS n FROM accounts").fetchone()["n"],
              w.execute("SELECT max(id) AS n FROM payment_intents").fetchone()["n"])
             for w in worlds]
    made = [make_api(seed=seed, setup=BIG) for seed in (1, 2, 3, 4)]
    gaps = []
    for api, (accounts, intents) in zip(made, lasts, strict=True):
        account = (await api.ok("GET", "/store/accounts", params={
            "email": api.vars["customer"]["email"]}))["data"][0]["id"]
        intent = await api.world(_intent_id(api.vars["order"]["payment_intent"]))
        assert accounts < account <= accounts + 41 and intents < intent <= intents + 41
        gaps.append((account - accounts, intent - intents))
    assert len(set(gaps)) > 1
