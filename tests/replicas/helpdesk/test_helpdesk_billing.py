"""Refunds and approvals: every rule's refusal leaves the world unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from tests.replicas.helpdesk.helpdesk_support import MakeEpisode, money_setup

pytestmark = pytest.mark.anyio


def refund(charge_id: int, **values: Any) -> dict[str, Any]:
    return {
        "charge_id": charge_id,
        "currency": "USD",
        "kind": "partial",
        "reason": "Customer request",
        **values,
    }


async def refused(api: Any, path: str, body: dict[str, Any], code: str) -> dict[str, Any]:
    before = await api.state()
    response = await api.post(path, body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    assert await api.state() == before
    return error


async def test_partial_then_full_refund_updates_charge(episode: MakeEpisode) -> None:
    api = await episode(setup=money_setup(amount=10_000))
    cid = api.vars["charge"]["id"]
    first = await api.ok("POST", "/refunds", refund(cid, amount=2_500), 201)
    assert first["amount"] == 2_500 and first["created_by"] == 1
    charge = await api.ok("GET", f"/charges/{cid}")
    assert charge["status"] == "partially_refunded"
    assert charge["amount_refunded"] == 2_500 and charge["refundable_amount"] == 7_500
    error = await refused(api, "/refunds", refund(cid, amount=7_501), "refund_exceeds_captured")
    assert "7,500" in error["message"] or "75.00" in error["message"]
    rest = await api.ok("POST", "/refunds", refund(cid, kind="full"), 201)
    assert rest["amount"] == 7_500
    assert (await api.ok("GET", f"/charges/{cid}"))["status"] == "refunded"
    await refused(api, "/refunds", refund(cid, kind="full"), "refund_exceeds_captured")
    listed = await api.ok("GET", f"/refunds?order_id={api.vars['order']['id']}")
    assert [r["amount"] for r in listed["data"]] == [2_500, 7_500]


async def test_currency_mismatch(episode: MakeEpisode) -> None:
    api = await episode(setup=money_setup(currency="JPY", amount=12_800))
    await refused(
        api,
        "/refunds",
        refund(api.vars["charge"]["id"], amount=100, currency="USD"),
        "currency_mismatch",
    )
    ok = await api.ok(
        "POST", "/refunds", refund(api.vars["charge"]["id"], amount=100, currency="JPY"), 201
    )
    assert ok["currency"] == "JPY"


async def test_failed_charge_cannot_be_refunded(episode: MakeEpisode) -> None:
    api = await episode(setup=money_setup(charge_status="failed"))
    await refused(
        api, "/refunds", refund(api.vars["charge"]["id"], amount=100), "charge_not_captured"
    )


@pytest.mark.parametrize(
    ("tier", "days_ago", "allowed"),
    [
        ("standard", 13, True),
        ("standard", 15, False),
        ("silver", 29, True),
        ("silver", 31, False),
        ("gold", 59, True),
        ("gold", 61, False),
        ("platinum", 89, True),
        ("platinum", 91, False),
    ],
)
async def test_refund_window_by_tier(
    episode: MakeEpisode, tier: str, days_ago: int, allowed: bool
) -> None:
    api = await episode(
        setup=money_setup(
            tier=tier, fulfilled=f"@now-{days_ago}d", captured=f"@now-{days_ago + 2}d"
        )
    )
    body = refund(api.vars["charge"]["id"], amount=500)
    if allowed:
        await api.ok("POST", "/refunds", body, 201)
    else:
        await refused(api, "/refunds", body, "refund_window_expired")


async def test_window_counts_from_capture_when_never_fulfilled(episode: MakeEpisode) -> None:
    api = await episode(setup=money_setup(fulfilled=None, captured="@now-20d"))
    await refused(
        api, "/refunds", refund(api.vars["charge"]["id"], amount=500), "refund_window_expired"
    )


async def test_a_duplicate_charge_is_refundable_whatever_the_window(
    episode: MakeEpisode,
) -> None:
    setup = money_setup(fulfilled="@now-200d", captured="@now-202d")
    setup.append({"bind": "duplicate", "insert": "charges", "values": {
        "order_id": "$order.id", "amount": 10_000, "currency": "USD", "status": "captured",
        "captured_at": "@now-202d", "created_at": "@now-202d",
        "processor_reference": "ch_test0002"}})
    api = await episode(setup=setup)
    original = refund(api.vars["charge"]["id"], kind="full")
    await refused(api, "/refunds", original, "refund_window_expired")
    await api.ok("POST", "/refunds", refund(api.vars["duplicate"]["id"], kind="full"), 201)


async def test_large_refund_needs_approval(episode: MakeEpisode) -> None:
    api = await episode(setup=money_setup(currency="EUR", amount=62_900))
    cid = api.vars["charge"]["id"]
    body = refund(cid, kind="full", currency="EUR")
    await refused(api, "/refunds", body, "approval_required")
    small = await api.ok(
        "POST",
        "/approvals",
        {"amount": 10_000, "currency": "EUR", "reason": "Broken machine", "charge_id": cid},
        201,
    )
    assert small["status"] == "approved"
    await refused(api, "/refunds", {**body, "approval_id": small["id"]}, "approval_required")
    approval = await api.ok(
        "POST",
        "/approvals",
        {"amount": 62_900, "currency": "EUR", "reason": "Broken machine", "charge_id": cid},
        201,
    )
    assert approval["status"] == "approved"
    manager = await api.ok("GET", f"/agents/{approval['approver_id']}")
    assert manager["role"] == "manager"
    done = await api.ok("POST", "/refunds", {**body, "approval_id": approval["id"]}, 201)
    assert done["approval_id"] == approval["id"] and done["amount"] == 62_900


async def test_splitting_a_refund_dodges_no_approval(episode: MakeEpisode) -> None:
    api = await episode(setup=money_setup(amount=90_000))
    cid = api.vars["charge"]["id"]
    await api.ok("POST", "/refunds", refund(cid, amount=45_000), 201)
    # USD 450 + USD 450: the second half takes the charge's refunds above the threshold.
    await refused(api, "/refunds", refund(cid, amount=45_000), "approval_required")


async def test_approval_is_single_use_and_denials(episode: MakeEpisode) -> None:
    api = await episode(setup=money_setup(amount=200_000))
    cid = api.vars["charge"]["id"]
    approval = await api.ok(
        "POST",
        "/approvals",
        {"amount": 60_000, "currency": "USD", "reason": "Damaged", "charge_id": cid},
        201,
    )
    await api.ok("POST", "/refunds", refund(cid, amount=60_000, approval_id=approval["id"]), 201)
    await refused(
        api,
        "/refunds",
        refund(cid, amount=60_000, approval_id=approval["id"]),
        "approval_already_used",
    )
    too_big = await api.ok(
        "POST", "/approvals", {"amount": 600_000, "currency": "USD", "reason": "Goodwill"}, 201
    )
    assert too_big["status"] == "denied"
    beyond = await api.ok(
        "POST",
        "/approvals",
        {"amount": 150_000, "currency": "USD", "reason": "Goodwill", "charge_id": cid},
        201,
    )
    assert beyond["status"] == "denied" and "refundable" in beyond["decision_note"]
    await refused(
        api, "/refunds", refund(cid, amount=100_000, approval_id=too_big["id"]), "approval_required"
    )


async def test_prorated_refund(episode: MakeEpisode) -> None:
    api = await episode(setup=money_setup(amount=18_000))
    cid = api.vars["charge"]["id"]
    base = refund(cid, kind="prorated", used_days=100, total_days=365)
    await refused(api, "/refunds", {**base, "amount": 13_000}, "prorated_amount_mismatch")
    await refused(api, "/refunds", refund(cid, kind="prorated", used_days=5), "proration_required")
    done = await api.ok("POST", "/refunds", base, 201)
    assert done["amount"] == 18_000 * 265 // 365 == 13_068
    assert done["used_days"] == 100 and done["total_days"] == 365


async def test_orders_and_charges_lookup(episode: MakeEpisode) -> None:
    api = await episode()
    jpy = await api.ok("GET", "/orders?currency=JPY&limit=1")
    order = jpy["data"][0]
    by_number = await api.ok("GET", f"/orders?number={order['number'].lower()}")
    assert [o["id"] for o in by_number["data"]] == [order["id"]]
    detail = await api.ok("GET", f"/orders/{order['id']}")
    assert detail["charges"] and all(c["currency"] == "JPY" for c in detail["charges"])
    charges = await api.ok("GET", f"/charges?order_id={order['id']}")
    assert charges["total"] == len(detail["charges"])
    assert (await api.get("/orders/999999")).json()["error"]["code"] == "order_not_found"
