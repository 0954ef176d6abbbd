"""Customers and account actions: contact updates, password/2FA resets, email change."""

from __future__ import annotations

from typing import Any

import pytest

from replicas.helpdesk.rules import email_verification_code
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode

pytestmark = pytest.mark.anyio


def customer(**values: Any) -> list[dict[str, Any]]:
    return [
        {
            "bind": "customer",
            "insert": "customers",
            "values": {
                "name": "Ada Account",
                "email": "ada@example.com",
                "tier": "gold",
                "locale": "en-GB",
                "created_at": "@now-300d",
                "updated_at": "@now-300d",
                **values,
            },
        }
    ]


async def refused(api: Any, path: str, body: Any, code: str) -> None:
    before = await api.state()
    response = await api.post(path, body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == code
    assert await api.state() == before


async def test_search_and_filter_customers(episode: MakeEpisode) -> None:
    api = await episode()
    some = (await api.ok("GET", "/customers?offset=40&limit=1"))["data"][0]
    by_email = await api.ok("GET", f"/customers?email={some['email'].upper()}")
    assert [c["id"] for c in by_email["data"]] == [some["id"]]
    by_name = await api.ok("GET", f"/customers?q={some['name'].split()[-1]}&limit=100")
    assert some["id"] in {c["id"] for c in by_name["data"]}
    gold = await api.ok("GET", "/customers?tier=gold&limit=100")
    assert gold["total"] > 0 and all(c["tier"] == "gold" for c in gold["data"])


async def test_update_customer_contact(episode: MakeEpisode) -> None:
    api = await episode(setup=customer())
    cid = api.vars["customer"]["id"]
    body = await api.ok("PATCH", f"/customers/{cid}", {"phone": "+44 20 7946 0999"})
    assert body["phone"] == "+44 20 7946 0999" and body["email"] == "ada@example.com"
    before = await api.state()
    response = await api.patch(f"/customers/{cid}", {"email": "new@example.com"})
    assert response.status_code == 422 and response.json()["error"]["field"] == "email"
    response = await api.patch(f"/customers/{cid}", {"phone": "call me maybe"})
    assert response.status_code == 422 and response.json()["error"]["field"] == "phone"
    assert await api.state() == before


async def test_email_change_needs_the_code(episode: MakeEpisode) -> None:
    api = await episode(setup=customer())
    cid = api.vars["customer"]["id"]
    taken = (await api.ok("GET", "/customers?limit=1"))["data"][0]["email"]
    await refused(api, f"/customers/{cid}/email-change", {"new_email": taken}, "email_in_use")
    await refused(
        api, f"/customers/{cid}/email-change", {"new_email": "ADA@example.com"}, "email_unchanged"
    )
    action = await api.ok(
        "POST", f"/customers/{cid}/email-change", {"new_email": "ada.new@example.com"}, 201
    )
    assert action["status"] == "pending" and "verification_code" not in action
    pending = await api.ok("GET", f"/customers/{cid}")
    assert pending["email"] == "ada@example.com"
    assert pending["pending_email"] == "ada.new@example.com"
    code = email_verification_code(api.secret, cid, "ada.new@example.com")
    wrong = "000000" if code != "000000" else "111111"
    await refused(
        api, f"/account-actions/{action['id']}/verify", {"code": wrong}, "invalid_verification_code"
    )
    done = await api.ok("POST", f"/account-actions/{action['id']}/verify", {"code": code})
    assert done["status"] == "completed"
    changed = await api.ok("GET", f"/customers/{cid}")
    assert changed["email"] == "ada.new@example.com" and changed["pending_email"] is None
    await refused(
        api, f"/account-actions/{action['id']}/verify", {"code": code}, "action_not_pending"
    )


async def test_two_factor_reset_requires_verified_identity(episode: MakeEpisode) -> None:
    api = await episode(setup=customer(two_factor_enabled=True))
    cid = api.vars["customer"]["id"]
    path = f"/customers/{cid}/2fa-reset"
    await refused(
        api,
        path,
        {"identity_verified": False, "verification_method": "security_questions"},
        "identity_verification_required",
    )
    action = await api.ok(
        "POST", path, {"identity_verified": True, "verification_method": "id_document"}, 201
    )
    assert action["kind"] == "2fa_reset" and action["status"] == "completed"
    assert (await api.ok("GET", f"/customers/{cid}"))["two_factor_enabled"] is False
    await refused(
        api,
        path,
        {"identity_verified": True, "verification_method": "id_document"},
        "two_factor_not_enabled",
    )


async def test_password_reset_needs_verified_email(episode: MakeEpisode) -> None:
    api = await episode(setup=customer(email_verified=False))
    cid = api.vars["customer"]["id"]
    await refused(api, f"/customers/{cid}/password-reset", None, "email_not_verified")
    ok = await episode(setup=customer())
    action = await ok.ok(
        "POST", f"/customers/{ok.vars['customer']['id']}/password-reset", None, 201
    )
    assert action["kind"] == "password_reset"
