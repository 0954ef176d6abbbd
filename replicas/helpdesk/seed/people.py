"""The people the helpdesk serves: organizations and end users (the seed's identity: its
companies and its first people, replicas/runtime/identity.py), with the helpdesk's
deliberate mess made on top (legacy imports, stale contact data, near-duplicates); then
every user's identities (email, phone). The accounts they sign in with are the checkout's.
End users' ids follow the staff's (one users table, as Zendesk's)."""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta

from replicas.runtime.clock import iso
from replicas.runtime.identity import WORLD_COMPANIES, ascii_fold, phone

from ..world import TIER_WEIGHTS
from .common import LEGACY_DATE_FORMATS, Generation, Row

N_CUSTOMERS = 292  # the identity's first people; plus N_DUPLICATES near-duplicates after them
N_DUPLICATES = 8
N_LEGACY_CUSTOMERS = 30  # the first 30 end users were imported from Desk.com
N_STALE_CONTACT = 12


def build(g: Generation) -> None:
    build_organizations(g)
    customers = build_customers(g)
    stale_contacts(g, customers)
    customers += near_duplicates(g, customers)
    g.customers = customers
    g.tables["users"] += customers
    g.tables["user_identities"] = identities(g.tables["users"])


def build_organizations(g: Generation) -> None:
    """The identity's world companies, in order: organization ``i`` is company ``i - 1``."""
    g.tables["organizations"] = [
        {
            "id": i,
            "name": company.name,
            "domain": company.domain,
            "created_at": iso(g.ago(days=g.rng.randint(200, 2000))),
            "notes": "",
        }
        for i, company in enumerate(g.identity.companies(WORLD_COMPANIES), start=1)
    ]


def build_customers(g: Generation) -> list[Row]:
    """End user ``first + i`` is the identity's person ``i``: name, email, locale, phone
    and organization are theirs; the rest is the helpdesk's."""
    r = g.rng
    people = g.identity.people(N_CUSTOMERS)
    g.emails.update(person.email for person in people)  # the mess never reuses one
    customers: list[Row] = []
    first = len(g.tables["users"])
    for i, person in enumerate(people, start=1):
        legacy = i <= N_LEGACY_CUSTOMERS
        created = (
            datetime(2019, 1, 1, tzinfo=g.now.tzinfo)
            + timedelta(days=r.randint(0, 700), minutes=r.randint(0, 1439))
            if legacy
            else g.ago(days=r.randint(10, 1500), hours=r.random() * 24)
        )
        customer = {
            "id": first + i,
            "name": person.name,
            "email": person.email,
            "phone": person.phone if r.random() < 0.85 else None,
            "role": "end-user",
            "organization_id": None if person.company is None else person.company + 1,
            "default_group_id": None,
            "tier": r.choices(list(TIER_WEIGHTS), list(TIER_WEIGHTS.values()))[0],
            "locale": person.locale,
            "active": 1,
            "notes": "",
            "created_at": iso(created),
            "updated_at": iso(min(g.now, created + timedelta(days=r.randint(0, 400)))),
            "legacy_id": None,
            "legacy_created": None,
        }
        if legacy:
            # MESS: legacy date text in mixed formats; created_at stays canonical ISO.
            customer["legacy_id"] = f"DK-{10000 + i * 37}"
            customer["legacy_created"] = created.strftime(r.choice(LEGACY_DATE_FORMATS))
            customer["notes"] = (
                f"Imported from Desk.com ({customer['legacy_id']}); "
                f"original signup {customer['legacy_created']}."
            )
        customers.append(customer)
    return customers


def stale_contacts(g: Generation, customers: list[Row]) -> None:
    """MESS: stale contact data in notes contradicting the profile."""
    r, domains = g.rng, g.identity_data["email_domains"]
    for c in r.sample(customers[N_LEGACY_CUSTOMERS:], N_STALE_CONTACT):
        if r.random() < 0.5 and c["phone"]:
            old = phone(r, c["locale"])
            c["notes"] = (
                f"{iso(g.ago(days=r.randint(300, 900)))[:10]}: customer asked us "
                f"to call {old} for callbacks."
            )
        else:
            old_local = ascii_fold(c["name"].split(" ")[0]) + str(r.randint(70, 99))
            c["notes"] = f"Prefers contact at {old_local}@{r.choice(domains)} (per phone call)."


def near_duplicates(g: Generation, customers: list[Row]) -> list[Row]:
    """MESS: near-duplicate customers (nickname / accents / middle initial), with the ids
    after the identity's people."""
    r, nicknames = g.rng, g.identity_data["nicknames"]
    domains = g.identity_data["email_domains"]
    candidates = customers[N_LEGACY_CUSTOMERS:N_CUSTOMERS]
    duplicates: list[Row] = []
    for i in range(N_DUPLICATES):
        orig = (
            r.choice([c for c in candidates if c["name"].split(" ")[0] in nicknames]
                     or candidates)
            if i % 2 == 0
            else r.choice(candidates)
        )
        first, last = orig["name"].split(" ", 1)
        if first in nicknames:
            name = f"{nicknames[first]} {last}"
        elif ascii_fold(orig["name"]) != orig["name"].lower():
            name = unicodedata.normalize("NFKD", orig["name"]).encode("ascii", "ignore").decode()
        else:
            name = f"{first} {r.choice('ABCDEJKLMRS')}. {last}"
        created = g.ago(days=r.randint(5, 300))
        duplicates.append({
            **orig,
            "id": customers[0]["id"] + N_CUSTOMERS + i,
            "name": name,
            "email": g.unique_email(f"{ascii_fold(first)}.{ascii_fold(last)}.{r.randint(1, 9)}",
                                    r.choice(domains)),
            "tier": "standard",
            "organization_id": None,
            "notes": "",
            "created_at": iso(created),
            "updated_at": iso(created),
            "legacy_id": None,
            "legacy_created": None,
        })
    return duplicates


def identities(users: list[Row]) -> list[Row]:
    """Each user's identities: their email (primary) and phone, verified."""
    rows: list[Row] = []
    for user in users:
        for kind, value in (("email", user["email"]), ("phone_number", user["phone"])):
            if value:
                rows.append({"id": len(rows) + 1, "user_id": user["id"], "type": kind,
                             "value": value, "is_primary": 1, "verified": 1,
                             "created_at": user["created_at"]})
    return rows
