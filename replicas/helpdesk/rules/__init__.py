"""Business rules of the helpdesk: plain functions over the episode's sqlite3 connection.

Every function takes the connection first and everything else keyword-only;
writes take ``now`` (the episode's virtual clock). A refused request raises
:class:`RuleViolation` (422) naming the rule in ``code``, :class:`NotFound`
(404) or :class:`Conflict` (409); routes run inside one transaction, so a
refusal leaves the database untouched. One module per area: ``tickets``,
``customers`` (and ``common``); routes call them through this package. Money and
accounts are the checkout's rules (replicas/checkout/rules).
"""

from __future__ import annotations

from .customers import update_customer
from .tickets import add_comment, apply_macro, merge_tickets, update_ticket

__all__ = [
    "add_comment",
    "apply_macro",
    "merge_tickets",
    "update_customer",
    "update_ticket",
]
