"""Disputes (docs.stripe.com/api/disputes): evidence is staged and submitted while the
dispute awaits a response (``needs_response``, or an inquiry's ``warning_needs_response``)
and before ``evidence_details.due_by``; submitting puts it under review; closing it accepts
the loss (an inquiry: closes it) and cannot be undone. The bank decides the rest (won,
lost, warning_closed): the world's, not the API's."""

from __future__ import annotations

from typing import Any

import orjson

from ..errors import InvalidRequestError
from ..render import Row
from ..schemas.requests import DisputeEvidence
from .common import World, dumps, metadata

OPEN = {"needs_response": "under_review", "warning_needs_response": "warning_under_review"}
CLOSED_BY_MERCHANT = {"needs_response": "lost", "warning_needs_response": "warning_closed"}


def _awaiting_response(w: World, row: Row, action: str) -> None:
    if row["status"] not in OPEN:
        raise InvalidRequestError(
            f"This dispute cannot be {action}: it has a status of {row['status']}; only a "
            "dispute with a status of needs_response or warning_needs_response can be.",
            code="dispute_unexpected_state")
    if w.now > row["due_by"]:
        raise InvalidRequestError(
            f"The deadline to respond to this dispute passed (evidence_details.due_by, "
            f"{row['due_by']}).", code="dispute_past_due")


def update(w: World, row: Row, *, evidence: DisputeEvidence | None, submit: bool | None,
           meta: Any) -> Row:
    values: dict[str, Any] = {"metadata": metadata(row["metadata"], meta)}
    if evidence is not None or submit:
        _awaiting_response(w, row, "updated")
    if evidence is not None:
        staged = {**orjson.loads(row["evidence"]), **evidence.model_dump(exclude_unset=True)}
        values |= {"evidence": dumps({k: v for k, v in staged.items() if v}),
                   "has_evidence": int(any(staged.values()))}
    if submit:
        values |= {"status": OPEN[row["status"]],
                   "submission_count": row["submission_count"] + 1}
    row = w.update("disputes", row, values)
    w.emit("charge.dispute.updated", "disputes", row)
    return row


def close(w: World, row: Row) -> Row:
    if row["status"] not in CLOSED_BY_MERCHANT:
        raise InvalidRequestError(
            f"This dispute cannot be closed: it has a status of {row['status']}; only a "
            "dispute awaiting a response (needs_response, warning_needs_response) can be.",
            code="dispute_unexpected_state")
    row = w.update("disputes", row, {"status": CLOSED_BY_MERCHANT[row["status"]],
                                     "is_charge_refundable": 0})
    w.emit("charge.dispute.closed", "disputes", row)
    return row
