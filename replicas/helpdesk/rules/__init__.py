"""Business rules of the helpdesk: plain functions over the episode's sqlite3 connection.

Every function takes the connection first and everything else keyword-only;
writes take ``now`` (the episode's virtual clock). A refused request raises
:class:`RuleViolation` (422) naming the rule in ``code``, :class:`NotFound`
(404) or :class:`Conflict` (409); routes run inside one transaction, so a
refusal leaves the database untouched. One module per area: ``tickets``,
``billing``, ``accounts`` (and ``common``); routes call them through this package.
"""

from __future__ import annotations

from .accounts import (
    email_verification_code,
    request_email_change,
    request_password_reset,
    reset_two_factor,
    update_customer,
    verify_account_action,
)
from .billing import create_approval, create_refund
from .tickets import add_comment, apply_macro, merge_tickets, update_ticket

__all__ = [
    "add_comment",
    "apply_macro",
    "create_approval",
    "create_refund",
    "email_verification_code",
    "merge_tickets",
    "request_email_change",
    "request_password_reset",
    "reset_two_factor",
    "update_customer",
    "update_ticket",
    "verify_account_action",
]
