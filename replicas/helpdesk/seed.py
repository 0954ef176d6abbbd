"""The seeded helpdesk world: schema from models.py, rows from world.yaml + ``Random(seed)``.

Deterministic per seed: the only randomness is ``random.Random(seed)``, the only
time is ``now``. The deliberate mess (README.md, "The mess") is generated here;
each defect is marked where it is made.
"""

from __future__ import annotations

import random
import sqlite3
import unicodedata
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import yaml
from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateIndex, CreateTable

from replicas.runtime.clock import iso

from .models import METADATA
from .rules import (
    REFUND_APPROVAL_THRESHOLD_USD,
    format_money,
    usd_equivalent,
)

N_CUSTOMERS = 292  # plus N_DUPLICATES near-duplicates appended after them
N_DUPLICATES = 8
N_LEGACY_CUSTOMERS = 30  # customers 1..30 were imported from Desk.com
N_ORDERS = 480
N_TICKETS = 560
N_LEGACY_TICKETS = 15
N_DOUBLE_CHARGED = 6
N_CANCELLED_AND_FULFILLED = 5
N_FULFILLED_WITH_CANCELLED_AT = 2
N_STALE_CONTACT = 12
N_PENDING_EMAIL = 3

PRIORITY_HOURS = {"urgent": 4, "high": 8, "normal": 24, "low": 72}
LEGACY_DATE_FORMATS = (
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%Y.%m.%d",
    "%d %b %Y",
    "%Y%m%d",
    "%b %d, %Y %I:%M %p",
    "%d.%m.%Y",
)
TAG_VARIANTS = {
    "refund": ["Refund", "REFUND"],
    "billing": ["Billing"],
    "vip": ["VIP", "Vip"],
    "shipping": ["Shipping"],
    "2fa": ["2FA"],
}


@cache
def world() -> dict[str, Any]:
    text = (Path(__file__).parent / "world.yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # type: ignore[no-any-return]


@cache
def ddl() -> tuple[str, ...]:
    dialect = sqlite.dialect()
    statements: list[str] = []
    for table in METADATA.sorted_tables:
        statements.append(str(CreateTable(table).compile(dialect=dialect)))
        for index in sorted(table.indexes, key=lambda i: i.name or ""):
            statements.append(str(CreateIndex(index).compile(dialect=dialect)))
    return tuple(statements)


def create_schema(conn: sqlite3.Connection) -> None:
    for statement in ddl():
        conn.execute(statement)


def _insert_many(conn: sqlite3.Connection, table: str, rows: Sequence[dict[str, Any]]) -> None:
    if not rows:
        return
    cols = list(rows[0])
    marks = ", ".join("?" for _ in cols)
    conn.executemany(
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})",
        [tuple(row[c] for c in cols) for row in rows],
    )


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def _unwrap(text: str) -> str:
    """Join hard-wrapped lines of YAML prose; list items ('- ') keep their own line."""
    out: list[str] = []
    for line in text.strip().splitlines():
        if (
            out
            and not line.startswith("- ")
            and not out[-1].startswith("- ")
            and not out[-1].endswith(":")
        ):
            out[-1] += " " + line
        else:
            out.append(line)
    return "\n".join(out)


class _World:
    """One generation run; attributes are the tables being built, as lists of dicts."""

    def __init__(self, seed: int, now: datetime) -> None:
        self.rng = random.Random(seed)
        self.now = now
        self.w = world()
        self.emails: set[str] = set()
        self.tables: dict[str, list[dict[str, Any]]] = {}

    # -- helpers ---------------------------------------------------------
    def ago(self, days: float = 0.0, hours: float = 0.0) -> datetime:
        return self.now - timedelta(days=days, hours=hours)

    def ref(self, prefix: str, n: int = 24) -> str:
        return prefix + "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def unique_email(self, local: str, domain: str) -> str:
        email, n = f"{local}@{domain}", 1
        while email in self.emails:
            n += 1
            email = f"{local}{n}@{domain}"
        self.emails.add(email)
        return email

    def phone(self, locale: str) -> str:
        r = self.rng
        prefix = self.w["locales"][locale][2]
        if locale == "en-US":
            area = r.choice(["415", "212", "312", "646", "206"])
            return f"{prefix}{area} 555 {r.randint(100, 199):04d}"
        if locale == "en-GB":
            return f"{prefix}20 7946 {r.randint(0, 999):04d}"
        if locale == "ja-JP":
            return f"{prefix}3 {r.randint(1000, 9999)} {r.randint(1000, 9999)}"
        return f"{prefix}{r.randint(10, 99)} {r.randint(100, 999)} {r.randint(1000, 9999)}"

    def tag(self, tag: str) -> str:
        # MESS: inconsistent tag case ("refund" / "Refund" / "REFUND").
        if tag in TAG_VARIANTS and self.rng.random() < 0.15:
            return self.rng.choice(TAG_VARIANTS[tag])
        return tag

    # -- directory ------------------------------------------------------
    def build_directory(self) -> None:
        r, w = self.rng, self.w
        self.tables["groups"] = [
            {"id": i, "name": name, "description": desc}
            for i, (name, desc) in enumerate(w["groups"], start=1)
        ]
        group_ids = {g["name"]: g["id"] for g in self.tables["groups"]}
        self.tables["organizations"] = [
            {
                "id": i,
                "name": name,
                "domain": domain,
                "created_at": iso(self.ago(days=r.randint(200, 2000))),
                "notes": "",
            }
            for i, (name, domain) in enumerate(w["organizations"], start=1)
        ]
        agents = [
            {
                "id": 1,
                "name": "AI Agent",
                "email": "ai.agent@helpdesk.example",
                "role": "agent",
                "group_id": group_ids["Support"],
                "active": 1,
                "created_at": iso(self.ago(days=30)),
            }
        ]
        us_first, us_last = w["first_names"]["en-US"], w["last_names"]["en-US"]
        roster = [
            (g, role)
            for g, spec in w["agent_roster"].items()
            for role, count in spec
            for _ in range(count)
        ]
        roster += [("Support", "agent")] * w["inactive_agents"]
        for index, (group, role) in enumerate(roster):
            first, last = r.choice(us_first), r.choice(us_last)
            agents.append(
                {
                    "id": len(agents) + 1,
                    "name": f"{first} {last}",
                    "email": self.unique_email(
                        f"{_ascii(first)}.{_ascii(last)}", "helpdesk.example"
                    ),
                    "role": role,
                    "group_id": group_ids[group],
                    "active": 0 if index >= len(roster) - w["inactive_agents"] else 1,
                    "created_at": iso(self.ago(days=r.randint(60, 1500))),
                }
            )
        self.tables["agents"] = agents
        self.group_ids = group_ids
        self.group_agents: dict[int, list[int]] = {}
        for a in agents:
            if a["active"] and a["role"] != "manager" and a["id"] != 1:
                self.group_agents.setdefault(a["group_id"], []).append(a["id"])
        self.billing_manager = next(
            a["id"] for a in agents if a["role"] == "manager" and a["group_id"] == 2
        )

    # -- customers -------------------------------------------------------
    def build_customers(self) -> None:
        r, w = self.rng, self.w
        locales = list(w["locales"])
        weights = [w["locales"][loc][1] for loc in locales]
        customers: list[dict[str, Any]] = []
        for i in range(1, N_CUSTOMERS + 1):
            locale = r.choices(locales, weights)[0]
            first, last = r.choice(w["first_names"][locale]), r.choice(w["last_names"][locale])
            org = None
            if r.random() < 0.3:
                org = r.randint(1, len(w["organizations"]))
            domain = w["organizations"][org - 1][1] if org else r.choice(w["email_domains"])
            local = r.choice(
                [
                    f"{_ascii(first)}.{_ascii(last)}",
                    f"{_ascii(first)}{_ascii(last)[0]}",
                    f"{_ascii(first)[0]}{_ascii(last)}{r.randint(1, 99)}",
                ]
            )
            legacy = i <= N_LEGACY_CUSTOMERS
            created = (
                datetime(2019, 1, 1, tzinfo=self.now.tzinfo)
                + timedelta(days=r.randint(0, 700), minutes=r.randint(0, 1439))
                if legacy
                else self.ago(days=r.randint(10, 1500), hours=r.random() * 24)
            )
            tier = r.choices(["standard", "silver", "gold", "platinum"], [55, 25, 14, 6])[0]
            customer = {
                "id": i,
                "name": f"{first} {last}",
                "email": self.unique_email(local, domain),
                "phone": self.phone(locale) if r.random() < 0.85 else None,
                "tier": tier,
                "organization_id": org,
                "locale": locale,
                "email_verified": 1 if r.random() < 0.93 else 0,
                "two_factor_enabled": 1 if r.random() < 0.3 else 0,
                "pending_email": None,
                "notes": "",
                "created_at": iso(created),
                "updated_at": iso(min(self.now, created + timedelta(days=r.randint(0, 400)))),
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

        # MESS: stale contact data in notes contradicting the profile.
        for c in r.sample(customers[N_LEGACY_CUSTOMERS:], N_STALE_CONTACT):
            if r.random() < 0.5 and c["phone"]:
                old = self.phone(c["locale"])
                c["notes"] = (
                    f"{iso(self.ago(days=r.randint(300, 900)))[:10]}: customer asked us "
                    f"to call {old} for callbacks."
                )
            else:
                old_local = _ascii(c["name"].split(" ")[0]) + str(r.randint(70, 99))
                c["notes"] = (
                    f"Prefers contact at {old_local}@{r.choice(w['email_domains'])} "
                    "(per phone call)."
                )

        # MESS: near-duplicate customers (nickname / accents / middle initial).
        for i in range(N_DUPLICATES):
            orig = (
                r.choice(
                    [
                        c
                        for c in customers[N_LEGACY_CUSTOMERS:N_CUSTOMERS]
                        if c["name"].split(" ")[0] in w["nicknames"]
                    ]
                    or customers[N_LEGACY_CUSTOMERS:N_CUSTOMERS]
                )
                if i % 2 == 0
                else r.choice(customers[N_LEGACY_CUSTOMERS:N_CUSTOMERS])
            )
            first, last = orig["name"].split(" ", 1)
            if first in w["nicknames"]:
                name = f"{w['nicknames'][first]} {last}"
            elif _ascii(orig["name"]) != orig["name"].lower():
                name = (
                    unicodedata.normalize("NFKD", orig["name"]).encode("ascii", "ignore").decode()
                )
            else:
                name = f"{first} {r.choice('ABCDEJKLMRS')}. {last}"
            created = self.ago(days=r.randint(5, 300))
            dup = dict(orig)
            dup.update(
                {
                    "id": N_CUSTOMERS + i + 1,
                    "name": name,
                    "email": self.unique_email(
                        f"{_ascii(first)}.{_ascii(last)}.{r.randint(1, 9)}",
                        r.choice(w["email_domains"]),
                    ),
                    "tier": "standard",
                    "organization_id": None,
                    "notes": "",
                    "created_at": iso(created),
                    "updated_at": iso(created),
                    "pending_email": None,
                    "legacy_id": None,
                    "legacy_created": None,
                }
            )
            customers.append(dup)

        # Pending email changes (started by customers via self-service).
        actions: list[dict[str, Any]] = []
        for c in r.sample(customers[N_LEGACY_CUSTOMERS:N_CUSTOMERS], N_PENDING_EMAIL):
            new_email = self.unique_email(
                _ascii(c["name"].replace(" ", ".")) + ".new", r.choice(w["email_domains"])
            )
            c["pending_email"] = new_email
            created = self.ago(days=r.randint(1, 6))
            actions.append(
                {
                    "customer_id": c["id"],
                    "kind": "email_change",
                    "status": "pending",
                    "verification_required": 1,
                    "verification_method": "code_to_new_email",
                    "new_email": new_email,
                    "requested_by": None,
                    "created_at": iso(created),
                    "completed_at": None,
                }
            )
        for c in r.sample(customers, 40):
            kind = r.choice(["password_reset", "password_reset", "2fa_reset"])
            created = self.ago(days=r.randint(7, 400), hours=r.random() * 24)
            agent = r.choice(self.group_agents[self.group_ids["Support"]])
            actions.append(
                {
                    "customer_id": c["id"],
                    "kind": kind,
                    "status": "completed",
                    "verification_required": 1 if kind == "2fa_reset" else 0,
                    "verification_method": r.choice(["security_questions", "id_document"])
                    if kind == "2fa_reset"
                    else "verified_email_link",
                    "new_email": None,
                    "requested_by": agent,
                    "created_at": iso(created),
                    "completed_at": iso(created + timedelta(minutes=3)),
                }
            )
        actions.sort(key=lambda a: (a["created_at"], a["customer_id"]))
        self.tables["account_actions"] = [{"id": i, **a} for i, a in enumerate(actions, start=1)]
        self.tables["customers"] = customers
        self.currency = {c["id"]: w["locales"][c["locale"]][0] for c in customers}

    # -- orders, charges, refunds, approvals ----------------------------
    def build_orders(self) -> None:
        r, w = self.rng, self.w
        products = w["products"]
        skus = list(products)
        sku_weights = [3 if s.startswith(("BN", "FL", "PO")) else 1 for s in skus]
        customers = self.tables["customers"]
        placed = sorted(
            self.ago(days=r.random() * 200, hours=r.random() * 24) for _ in range(N_ORDERS)
        )
        orders: list[dict[str, Any]] = []
        for i, placed_at in enumerate(placed, start=1):
            customer = r.choice(customers)
            currency = self.currency[customer["id"]]
            items = []
            for sku in dict.fromkeys(r.choices(skus, sku_weights, k=r.choice([1, 1, 2, 3]))):
                name, prices = products[sku]
                items.append(
                    {
                        "sku": sku,
                        "name": name,
                        "quantity": r.choice([1, 1, 1, 2]),
                        "unit_price": prices[currency],
                    }
                )
            age = (self.now - placed_at).days
            if age < 2:
                status = "placed"
            else:
                status = r.choices(
                    ["fulfilled", "cancelled", "returned", "placed"],
                    [75, 10, 8, 7 if age < 10 else 0],
                )[0]
            fulfilled = cancelled = None
            if status in ("fulfilled", "returned"):
                fulfilled = placed_at + timedelta(days=r.randint(1, 4), hours=r.random() * 8)
                if fulfilled > self.now:
                    fulfilled = self.now - timedelta(hours=1)
            if status == "cancelled":
                cancelled = placed_at + timedelta(hours=r.randint(1, 20))
            orders.append(
                {
                    "id": i,
                    "number": f"A-{10000 + i * 3 + r.randint(0, 2)}",
                    "customer_id": customer["id"],
                    "currency": currency,
                    "total": sum(it["quantity"] * it["unit_price"] for it in items),
                    "status": status,
                    "items": orjson.dumps(items, option=orjson.OPT_SORT_KEYS).decode(),
                    "placed_at": iso(placed_at),
                    "fulfilled_at": iso(fulfilled) if fulfilled else None,
                    "cancelled_at": iso(cancelled) if cancelled else None,
                }
            )
        old_enough = [
            o
            for o in orders
            if (self.now - datetime.fromisoformat(o["placed_at"].replace("Z", "+00:00"))).days > 10
        ]
        # MESS: orders both cancelled and fulfilled.
        cf = r.sample(
            [o for o in old_enough if o["status"] == "fulfilled"],
            N_CANCELLED_AND_FULFILLED + N_FULFILLED_WITH_CANCELLED_AT,
        )
        for index, o in enumerate(cf):
            fulfilled_at = datetime.fromisoformat(o["fulfilled_at"].replace("Z", "+00:00"))
            o["cancelled_at"] = iso(fulfilled_at + timedelta(hours=r.randint(2, 30)))
            if index < N_CANCELLED_AND_FULFILLED:
                o["status"] = "cancelled"
        self.cancelled_and_fulfilled = [o["id"] for o in cf]
        cf_ids = set(self.cancelled_and_fulfilled)
        self.tables["orders"] = orders

        charges: list[dict[str, Any]] = []
        refunds: list[dict[str, Any]] = []
        approvals: list[dict[str, Any]] = []
        billing = self.group_agents[self.group_ids["Billing"]]
        double = set(
            o["id"]
            for o in r.sample(
                [o for o in old_enough if o["status"] == "fulfilled" and o["id"] not in cf_ids],
                N_DOUBLE_CHARGED,
            )
        )
        self.double_charged = sorted(double)

        def charge(
            o: dict[str, Any], at: datetime, status: str, reason: str | None = None
        ) -> dict[str, Any]:
            row = {
                "id": len(charges) + 1,
                "order_id": o["id"],
                "amount": o["total"],
                "currency": o["currency"],
                "status": status,
                "captured_at": None if status == "failed" else iso(at),
                "created_at": iso(at),
                "processor_reference": self.ref("ch_"),
                "failure_reason": reason,
            }
            charges.append(row)
            return row

        def refund(c: dict[str, Any], amount: int, kind: str, reason: str, at: datetime) -> None:
            approval_id = None
            agent = r.choice(billing)
            if usd_equivalent(amount, c["currency"]) > REFUND_APPROVAL_THRESHOLD_USD:
                approvals.append(
                    {
                        "id": len(approvals) + 1,
                        "subject_type": "refund",
                        "charge_id": c["id"],
                        "ticket_id": None,
                        "amount": amount,
                        "currency": c["currency"],
                        "reason": reason,
                        "requested_by": agent,
                        "approver_id": self.billing_manager,
                        "status": "approved",
                        "decision_note": "Approved: within the manager approval limit.",
                        "created_at": iso(at - timedelta(minutes=20)),
                        "decided_at": iso(at - timedelta(minutes=20)),
                    }
                )
                approval_id = approvals[-1]["id"]
            refunds.append(
                {
                    "id": len(refunds) + 1,
                    "charge_id": c["id"],
                    "amount": amount,
                    "currency": c["currency"],
                    "kind": kind,
                    "reason": reason,
                    "used_days": None,
                    "total_days": None,
                    "approval_id": approval_id,
                    "ticket_id": None,
                    "created_by": agent,
                    "created_at": iso(at),
                }
            )
            total = sum(x["amount"] for x in refunds if x["charge_id"] == c["id"])
            c["status"] = "refunded" if total >= c["amount"] else "partially_refunded"

        for o in orders:
            at = datetime.fromisoformat(o["placed_at"].replace("Z", "+00:00")) + timedelta(
                seconds=r.randint(2, 40)
            )
            if r.random() < 0.06:
                charge(
                    o,
                    at,
                    "failed",
                    r.choice(["card_declined", "insufficient_funds", "expired_card"]),
                )
                at += timedelta(minutes=r.randint(2, 30))
            c = charge(o, at, "captured")
            if o["id"] in double:
                # MESS: the same order captured twice, a minute or two apart.
                charge(o, at + timedelta(minutes=r.randint(1, 3)), "captured")
            if o["status"] == "cancelled" and o["id"] not in cf_ids:
                when = datetime.fromisoformat(o["cancelled_at"].replace("Z", "+00:00"))
                refund(
                    c,
                    c["amount"],
                    "full",
                    "Order cancelled before shipping",
                    when + timedelta(minutes=5),
                )
            elif o["status"] == "returned":
                ful = datetime.fromisoformat(o["fulfilled_at"].replace("Z", "+00:00"))
                when = min(self.now - timedelta(hours=2), ful + timedelta(days=r.randint(3, 12)))
                if r.random() < 0.3:
                    refund(
                        c,
                        c["amount"] * 85 // 100,
                        "partial",
                        "Returned item, 15% restocking fee",
                        when,
                    )
                else:
                    refund(c, c["amount"], "full", "Item returned", when)
            elif o["status"] == "fulfilled" and r.random() < 0.04 and o["id"] not in double:
                ful = datetime.fromisoformat(o["fulfilled_at"].replace("Z", "+00:00"))
                when = min(self.now - timedelta(hours=2), ful + timedelta(days=r.randint(2, 8)))
                refund(
                    c, max(1, c["amount"] // 5), "partial", "Goodwill credit: late delivery", when
                )
        # A few denied approvals in the history (above the manager limit).
        for _ in range(3):
            c = r.choice(charges)
            at = self.ago(days=r.randint(5, 150))
            approvals.append(
                {
                    "id": len(approvals) + 1,
                    "subject_type": "refund",
                    "charge_id": c["id"],
                    "ticket_id": None,
                    "amount": c["amount"] * 12,
                    "currency": c["currency"],
                    "reason": "Customer requests compensation for business losses",
                    "requested_by": r.choice(billing),
                    "approver_id": self.billing_manager,
                    "status": "denied",
                    "decision_note": (
                        f"Denied: {format_money(c['amount'] * 12, c['currency'])} is "
                        "above what the charge allows."
                    ),
                    "created_at": iso(at),
                    "decided_at": iso(at + timedelta(minutes=45)),
                }
            )
        self.tables["charges"] = charges
        self.tables["approvals"] = sorted(approvals, key=lambda a: a["id"])
        self.tables["refunds"] = refunds

    # -- tickets, comments, ratings --------------------------------------
    def build_tickets(self) -> None:
        r, w = self.rng, self.w
        customers = self.tables["customers"]
        orders_of: dict[int, list[dict[str, Any]]] = {}
        for o in self.tables["orders"]:
            orders_of.setdefault(o["customer_id"], []).append(o)
        topics = w["topics"]
        names = list(topics)
        weights = [topics[n]["weight"] for n in names]
        tickets: list[dict[str, Any]] = []
        comments: list[dict[str, Any]] = []
        ratings: list[dict[str, Any]] = []

        def lang(customer: dict[str, Any]) -> str:
            code = customer["locale"][:2]
            # MESS: mixed-language subjects (half of non-English customers write natively).
            return code if code != "en" and r.random() < 0.5 else "en"

        plans: list[tuple[str, dict[str, Any], dict[str, Any] | None, datetime | None]] = []
        for order_id in self.double_charged:
            o = self.tables["orders"][order_id - 1]
            plans.append(
                (
                    "double_charge",
                    customers[o["customer_id"] - 1],
                    o,
                    self.ago(hours=r.randint(2, 60)),
                )
            )
        for order_id in self.cancelled_and_fulfilled[:3]:
            o = self.tables["orders"][order_id - 1]
            plans.append(("refund", customers[o["customer_id"] - 1], o, None))
        while len(plans) < N_TICKETS - N_LEGACY_TICKETS:
            topic = r.choices(names, weights)[0]
            if topic == "double_charge":
                continue
            customer = r.choice(customers)
            order = None
            if topics[topic]["order"]:
                mine = orders_of.get(customer["id"])
                if not mine:
                    continue
                order = r.choice(mine)
            plans.append((topic, customer, order, None))
        for _ in range(N_LEGACY_TICKETS):
            plans.append(("legacy", r.choice(customers[:N_LEGACY_CUSTOMERS]), None, None))

        convos: list[list[tuple[Any, ...]]] = []
        for tid, (topic_name, customer, order, created) in enumerate(plans, start=1):
            first = customer["name"].split(" ")[0]
            legacy = topic_name == "legacy"
            topic = (
                topics[r.choice(["login", "product_question", "feedback"])]
                if legacy
                else topics[topic_name]
            )
            item = orjson.loads(order["items"])[0]["name"] if order else "order"
            fill = {"order": order["number"] if order else "", "item": item, "name": first}
            subject = r.choice(topic["subjects"][lang(customer)]).format(**fill)
            description = r.choice(topic["descriptions"]).format(**fill)
            if created is None:
                if legacy:
                    created = datetime(2019, 6, 1, tzinfo=self.now.tzinfo) + timedelta(
                        days=r.randint(0, 550), minutes=r.randint(0, 1439)
                    )
                else:
                    created = self.ago(days=(r.random() ** 2) * 180, hours=r.random() * 6)
                if order is not None:
                    placed = datetime.fromisoformat(order["placed_at"].replace("Z", "+00:00"))
                    if created < placed:
                        created = min(
                            self.now - timedelta(minutes=30),
                            placed + timedelta(days=r.randint(1, 10)),
                        )
            age = (self.now - created).total_seconds() / 86400
            if legacy:
                status = "closed"
            elif topic_name == "double_charge":
                status = r.choice(["new", "open"])
            elif age < 2:
                status = r.choices(["new", "open", "pending", "on-hold"], [35, 45, 15, 5])[0]
            elif age < 14:
                status = r.choices(
                    ["new", "open", "pending", "on-hold", "solved"], [5, 25, 20, 5, 45]
                )[0]
            else:
                status = r.choices(
                    ["open", "pending", "on-hold", "solved", "closed"], [5, 3, 2, 25, 65]
                )[0]
            priority = r.choices(["low", "normal", "high", "urgent"], [15, 60, 20, 5])[0]
            if topic_name in ("fraud", "double_charge") and priority in ("low", "normal"):
                priority = "high"
            hours = PRIORITY_HOURS[priority]
            group_id = self.group_ids[topic["group"]]
            if status == "new" and r.random() < 0.3:
                group_id = None
            assignee = None
            if status != "new" or r.random() < 0.2:
                if group_id is None:
                    group_id = self.group_ids["Support"]
                assignee = r.choice(self.group_agents[group_id])
            tags = [self.tag(t) for t in topic["tags"]]
            if customer["tier"] == "platinum":
                tags.append(self.tag("vip"))
            if legacy:
                tags.append("legacy_import")
            tags = list(dict.fromkeys(tags))

            # SLA: next reply due; paused for pending/on-hold; MESS: some already breached.
            updated = min(self.now, created + timedelta(hours=r.random() * max(1.0, age * 24)))
            sla_due: datetime | None = created + timedelta(hours=hours)
            solved_at = None
            if status in ("new", "open"):
                if r.random() < 0.3 or topic_name == "double_charge":
                    updated = max(created, self.now - timedelta(hours=hours + r.uniform(0.5, 48)))
                    sla_due = updated + timedelta(hours=hours)
                    if sla_due >= self.now:
                        sla_due = self.now - timedelta(minutes=r.randint(10, 300))
                else:
                    updated = max(created, self.now - timedelta(hours=r.uniform(0, hours * 0.8)))
                    sla_due = updated + timedelta(hours=hours)
            elif status in ("pending", "on-hold"):
                sla_due = None
            elif status in ("solved", "closed"):
                solved_at = updated
            ticket = {
                "id": tid,
                "subject": subject,
                "description": description,
                "status": status,
                "priority": priority,
                "type": topic["type"],
                "channel": r.choices(["email", "chat", "phone", "web"], [50, 20, 10, 20])[0],
                "tags": orjson.dumps(tags).decode(),
                "requester_id": customer["id"],
                "assignee_id": assignee,
                "group_id": group_id,
                "organization_id": customer["organization_id"],
                "order_id": order["id"] if order else None,
                "merged_into_id": None,
                "sla_due_at": iso(sla_due) if sla_due else None,
                "created_at": iso(created),
                "updated_at": iso(updated),
                "solved_at": iso(solved_at) if solved_at else None,
                "legacy_id": None,
                "legacy_created": None,
            }
            if legacy:
                # MESS: legacy ticket dates as raw text in mixed formats.
                ticket["legacy_id"] = f"DK-T-{40000 + tid * 11}"
                ticket["legacy_created"] = created.strftime(r.choice(LEGACY_DATE_FORMATS))
            tickets.append(ticket)

            # Conversation: the description is the first public comment.
            convo = [("customer", customer["id"], description, True, created)]
            t = created
            if status != "new":
                steps = r.randint(1, 3)
                for step in range(steps):
                    t = min(updated, t + timedelta(hours=r.uniform(0.2, hours)))
                    reply = r.choice(w["agent_replies"]).format(name=first)
                    convo.append(("agent", assignee, reply, True, t))
                    if r.random() < 0.2:
                        convo.append(("agent", assignee, r.choice(w["internal_notes"]), False, t))
                    if step < steps - 1 or status in ("open",):
                        t = min(updated, t + timedelta(hours=r.uniform(0.5, 20)))
                        follow = r.choice(w["customer_followups"]).format(**fill)
                        convo.append(("customer", customer["id"], follow, True, t))
                if status in ("solved", "closed"):
                    convo.append(
                        (
                            "agent",
                            assignee,
                            r.choice(w["solve_replies"]).format(name=first),
                            True,
                            updated,
                        )
                    )
            convos.append(convo)
            if status in ("solved", "closed") and r.random() < 0.4 and not legacy:
                ratings.append(
                    {
                        "id": len(ratings) + 1,
                        "ticket_id": tid,
                        "score": "good" if r.random() < 0.8 else "bad",
                        "comment": r.choice(w["csat_comments"]),
                        "created_at": iso(
                            min(self.now, updated + timedelta(hours=r.uniform(1, 30)))
                        ),
                    }
                )
        # Ticket ids grow with creation time, as in a real helpdesk: renumber.
        by_time = sorted(range(len(tickets)), key=lambda i: (tickets[i]["created_at"], i))
        new_id = {tickets[i]["id"]: n for n, i in enumerate(by_time, start=1)}
        for row in tickets:
            row["id"] = new_id[row["id"]]
        for rating in ratings:
            rating["ticket_id"] = new_id[rating["ticket_id"]]
        tickets.sort(key=lambda row: row["id"])
        for old_id, convo in enumerate(convos, start=1):
            for author_type, author_id, body, public, when in convo:
                comments.append(
                    {
                        "ticket_id": new_id[old_id],
                        "author_type": author_type,
                        "author_id": author_id,
                        "body": body,
                        "public": int(public),
                        "created_at": iso(when),
                    }
                )
        ratings.sort(key=lambda x: x["ticket_id"])
        for i, rating in enumerate(ratings, start=1):
            rating["id"] = i
        comments.sort(key=lambda c: (c["created_at"], c["ticket_id"]))
        self.tables["comments"] = [{"id": i, **c} for i, c in enumerate(comments, start=1)]
        self.tables["tickets"] = tickets
        self.tables["satisfaction_ratings"] = ratings

    def build_content(self) -> None:
        self.tables["articles"] = [
            {
                "id": i,
                "title": a["title"],
                "body": _unwrap(a["body"]),
                "category": a["category"],
                "locale": a["locale"],
                "created_at": a["created_at"],
                "updated_at": a["updated_at"],
            }
            for i, a in enumerate(self.w["articles"], start=1)
        ]
        self.tables["macros"] = [
            {
                "id": i,
                "title": m["title"],
                "description": m["description"],
                "actions": orjson.dumps(m["actions"]).decode(),
                "active": int(m["active"]),
                "updated_at": m["updated_at"],
            }
            for i, m in enumerate(self.w["macros"], start=1)
        ]


INSERT_ORDER = (
    "groups",
    "organizations",
    "agents",
    "customers",
    "account_actions",
    "orders",
    "charges",
    "approvals",
    "refunds",
    "tickets",
    "comments",
    "satisfaction_ratings",
    "articles",
    "macros",
)


def seed(conn: sqlite3.Connection, seed: int, now: datetime) -> None:
    """Create the schema and write the world of ``seed`` as of ``now`` into ``conn``."""
    gen = _World(seed, now)
    gen.build_directory()
    gen.build_customers()
    gen.build_orders()
    gen.build_tickets()
    gen.build_content()
    conn.execute("BEGIN")
    try:
        create_schema(conn)
        for table in INSERT_ORDER:
            _insert_many(conn, table, gen.tables[table])
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
