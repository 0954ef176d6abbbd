"""The store's customer accounts: one per person (a guest checkout has none), the same person
as their Stripe customer, and the account actions of their history, with the mess: accounts
imported from the old shop (its sign-up dates in mixed formats), unverified emails, and email
changes started on the website and never verified."""

from __future__ import annotations

from datetime import UTC, datetime

from replicas.runtime.identity import ascii_fold

from .common import DAY, Generation, Row
from .customers import N_LEGACY

LEGACY_DATE_FORMATS = ("%m/%d/%Y", "%d/%m/%Y", "%Y.%m.%d", "%d %b %Y", "%Y%m%d",
                       "%b %d, %Y %I:%M %p", "%d.%m.%Y")
N_PENDING_EMAIL = 4
N_HISTORY = 50


def build(g: Generation) -> None:
    r = g.rng
    g.account_of = {}
    accounts: list[Row] = []
    for i, (person, customer) in enumerate(g.people):
        created = customer["created"]
        account = g.add("accounts", {
            "customer": customer["stripe_id"], "email": person.email, "name": person.name,
            "locale": person.locale, "email_verified": int(r.random() < 0.93),
            "two_factor_enabled": int(r.random() < 0.3), "pending_email": None,
            "created_at": g.iso(created),
            "updated_at": g.iso(min(g.unix, created + r.randint(0, 300) * DAY)),
            "legacy_id": None, "legacy_created": None})
        if i < N_LEGACY:  # MESS: the old shop's id and its sign-up date as it wrote it
            account["legacy_id"] = f"WC-C{1003 + 17 * i}"
            account["legacy_created"] = datetime.fromtimestamp(created, UTC).strftime(
                r.choice(LEGACY_DATE_FORMATS))
            account["email_verified"] = int(r.random() < 0.7)
        g.account_of[customer["stripe_id"]] = account["id"]
        accounts.append(account)
    actions: list[Row] = []
    # MESS: email changes the holder started on the website and never verified.
    for account in r.sample(accounts[N_LEGACY:], N_PENDING_EMAIL):
        first, _, last = account["name"].partition(" ")
        domain = r.choice(["fastmail.com", "proton.me"])
        account["pending_email"] = (f"{ascii_fold(first)}.{ascii_fold(last)}."
                                    f"{r.randint(10, 99)}@{domain}")
        at = g.unix_ago(r.uniform(1, 9))
        actions.append({"account_id": account["id"], "kind": "email_change",
                        "status": "pending", "verification_required": 1,
                        "verification_method": "code_to_new_email",
                        "new_email": account["pending_email"], "self_service": 1,
                        "created_at": g.iso(at), "completed_at": None})
    for account in r.sample(accounts, N_HISTORY):
        kind = r.choice(["password_reset", "password_reset", "2fa_reset"])
        at = g.unix_ago(r.uniform(5, 300))
        actions.append({"account_id": account["id"], "kind": kind, "status": "completed",
                        "verification_required": int(kind == "2fa_reset"),
                        "verification_method": r.choice(["security_questions", "id_document"])
                        if kind == "2fa_reset" else "verified_email_link",
                        "new_email": None, "self_service": int(kind == "password_reset"),
                        "created_at": g.iso(at), "completed_at": g.iso(at + 180)})
    for action in sorted(actions, key=lambda a: (a["created_at"], a["account_id"])):
        g.add("account_actions", action)
