"""The store's customer accounts (the same people as the Stripe customers): password resets
to verified addresses only, 2FA resets after identity verification, email changes that
complete only with the code sent to the new address and then move the Stripe customer too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from replicas.runtime.codes import email_change_code

from .conftest import Api

pytestmark = pytest.mark.anyio
MakeApi = Callable[..., Api]


async def _created(api: Api, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await api.request("POST", path, json=body)
    assert response.status_code == 201, response.text
    found: dict[str, Any] = response.json()
    return found


async def _account(api: Api, **where: Any) -> dict[str, Any]:
    found = await api.ok("GET", "/store/accounts", params={"limit": 100})
    account: dict[str, Any] = next(a for a in found["data"]
                                   if all(a[k] == v for k, v in where.items()))
    return account


async def test_accounts_are_the_stripe_customers(make_api: MakeApi) -> None:
    api = make_api()
    account = await _account(api, email_verified=True)
    customer = await api.ok("GET", f"/v1/customers/{account['customer']}")
    assert (customer["email"], customer["name"]) == (account["email"], account["name"])
    by_email = await api.ok("GET", "/store/accounts", params={
        "email": account["email"].upper()})
    assert [a["id"] for a in by_email["data"]] == [account["id"]]


async def test_a_password_reset_goes_to_a_verified_address_only(make_api: MakeApi) -> None:
    api = make_api()
    unverified = await _account(api, email_verified=False)
    await api.refused("POST", f"/store/accounts/{unverified['id']}/password-reset", 400,
                      "email_not_verified", json={})
    verified = await _account(api, email_verified=True)
    action = await _created(api, f"/store/accounts/{verified['id']}/password-reset", {})
    assert (action["kind"], action["status"], action["verification_method"]) == (
        "password_reset", "completed", "verified_email_link")


async def test_two_factor_is_reset_after_verifying_the_holder(make_api: MakeApi) -> None:
    api = make_api()
    enrolled = await _account(api, two_factor_enabled=True)
    path = f"/store/accounts/{enrolled['id']}/2fa-reset"
    await api.refused("POST", path, 400, "identity_verification_required", json={
        "identity_verified": False, "verification_method": "id_document"})
    action = await _created(api, path, {"identity_verified": True,
                                        "verification_method": "callback_phone_on_file"})
    assert (action["kind"], action["verification_method"]) == ("2fa_reset",
                                                               "callback_phone_on_file")
    assert (await api.ok("GET", f"/store/accounts/{enrolled['id']}"))[
        "two_factor_enabled"] is False
    await api.refused("POST", path, 400, "two_factor_not_enabled", json={
        "identity_verified": True, "verification_method": "id_document"})


async def test_an_email_change_completes_with_the_code_only(make_api: MakeApi) -> None:
    api = make_api()
    account, other = (await api.ok("GET", "/store/accounts", params={"limit": 2}))["data"]
    path = f"/store/accounts/{account['id']}/email-change"
    await api.refused("POST", path, 400, "email_unchanged", json={
        "new_email": account["email"].upper()})
    await api.refused("POST", path, 400, "email_in_use", json={"new_email": other["email"]})
    first = await _created(api, path, {"new_email": "first.try@fastmail.com"})
    action = await _created(api, path, {"new_email": "ada.new@fastmail.com"})
    assert (action["status"], action["new_email"]) == ("pending", "ada.new@fastmail.com")
    assert (await api.ok("GET", f"/store/account-actions/{first['id']}"))[
        "status"] == "cancelled"
    verify = f"/store/account-actions/{action['id']}/verify"
    await api.refused("POST", verify, 400, "invalid_verification_code",
                      json={"code": "000000"})
    assert (await api.ok("GET", f"/store/accounts/{account['id']}"))[
        "email"] == account["email"]
    secret = api.app.state.store.get(api.episode_id).secret
    code = email_change_code(secret, account["email"], "ada.new@fastmail.com")
    done = await api.ok("POST", verify, json={"code": code})
    assert done["status"] == "completed"
    after = await api.ok("GET", f"/store/accounts/{account['id']}")
    assert (after["email"], after["email_verified"], after["pending_email"]) == (
        "ada.new@fastmail.com", True, None)
    customer = await api.ok("GET", f"/v1/customers/{account['customer']}")
    assert customer["email"] == "ada.new@fastmail.com"
    await api.refused("POST", verify, 400, "action_not_pending", json={"code": code})
    pending = await api.ok("GET", "/store/account-actions", params={
        "account_id": account["id"], "kind": "email_change"})
    assert [a["status"] for a in pending["data"]] == ["cancelled", "completed"]
