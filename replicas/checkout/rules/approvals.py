"""The shop's refund approvals (ours, not Stripe's). Refunds of one charge that total more than
the approval threshold (counting the charge's earlier refunds: splitting a refund dodges
nothing) are issued only with a manager's approval, named in the refund's
``metadata[approval]``. A manager decides a request when it is made: approved when it is
within their limit and what is still refundable on the charge, else denied (a record, not an
error). Each approval covers one refund, of its charge, up to its amount."""

from __future__ import annotations

from typing import Any

from replicas.runtime import db as sql
from workgym_core.money import format_money

from ..render import Row
from ..world import data
from .common import World, refused

PARAM = "metadata[approval]"


def _policy() -> dict[str, Any]:
    found: dict[str, Any] = data()["refund_policy"]
    return found


def usd_cents(amount: int, currency: str) -> int:
    """``amount`` (minor units of ``currency``) in US cents, at the shop's fixed rates."""
    rate: int = _policy()["usd_cents_per_100"][currency]
    return amount * rate // 100


def needed(total: int, currency: str) -> bool:
    """Whether refunds of a charge totalling ``total`` need a manager's approval."""
    above: int = _policy()["approval_above"]
    return usd_cents(total, currency) > above


def request(w: World, charge: Row, *, amount: int, left: int, reason: str,
            ticket: int | None) -> Row:
    """A manager's decision on refunding ``amount`` of ``charge`` (``left`` still
    refundable on it)."""
    money = charge["currency"]
    if amount > left:
        note = (f"Denied: {format_money(amount, money)} exceeds the "
                f"{format_money(left, money)} still refundable on charge {charge['stripe_id']}.")
    elif usd_cents(amount, money) > _policy()["manager_limit"]:
        note = (f"Denied: {format_money(amount, money)} is above the manager approval limit; "
                "refunds this large go to Finance.")
    else:
        note = ""
    approval_id = sql.insert(w.db, "refund_approvals", {
        "charge": charge["stripe_id"], "amount": amount, "currency": money, "reason": reason,
        "ticket": ticket, "status": "denied" if note else "approved",
        "decision_note": note or "Approved: within the manager approval limit.",
        "refund": None, "created_at": w.stamp})
    return sql.get_row(w.db, "refund_approvals", approval_id)


def cover(w: World, charge: Row, amount: int, named: str | None) -> Row | None:
    """The approval a refund of ``amount`` on ``charge`` (named in its metadata) goes out
    under: none when the charge's refunds stay within the threshold; refused when one is
    needed and ``named`` is no approved, unused approval of this charge for at least
    ``amount``."""
    if named is None:
        return None
    if not named.isdigit() or (approval := sql.one(
            w.db, "SELECT * FROM refund_approvals WHERE id = ?", (int(named),))) is None:
        raise refused(f"No such refund approval: '{named}'.", "resource_missing", PARAM)
    money = format_money(amount, charge["currency"])
    if approval["status"] != "approved":
        problem = f"was {approval['status']}: {approval['decision_note']}"
    elif approval["charge"] != charge["stripe_id"]:
        problem = f"is for charge {approval['charge']}, not {charge['stripe_id']}"
    elif approval["amount"] < amount:
        problem = f"covers {format_money(approval['amount'], approval['currency'])}, not {money}"
    elif approval["refund"] is not None:
        raise refused(f"Refund approval {approval['id']} was already used by refund "
                      f"{approval['refund']}; each approval covers one refund.",
                      "approval_already_used", PARAM)
    else:
        return approval
    raise refused(f"Refund approval {approval['id']} {problem.rstrip('.')}.", "approval_invalid",
                  PARAM)


def check(w: World, charge: Row, amount: int, earlier: int, named: str | None) -> Row | None:
    """The approval covering a refund of ``amount`` on ``charge`` (``earlier``: what its
    refunds already total), refused when the policy needs one and none is named."""
    if needed(earlier + amount, charge["currency"]) and named is None:
        raise refused(
            f"Refunds of charge {charge['stripe_id']} would total "
            f"{format_money(earlier + amount, charge['currency'])}: above the approval "
            "threshold, a refund needs a manager's approval (create_refund_approval), named "
            "in metadata[approval].", "approval_required", PARAM)
    return cover(w, charge, amount, named)


def used(w: World, approval: Row | None, refund: Row) -> None:
    if approval is not None:
        sql.update(w.db, "refund_approvals", approval["id"], {"refund": refund["stripe_id"]})
