"""The dashboard's disputes::

    GET  /dashboard/disputes                  disputes, newest first (?status=)
    GET  /dashboard/disputes/{dp}             one dispute: amount, reason, status, deadline,
                                              its payment, the evidence form
    POST /dashboard/disputes/{dp}/evidence    the evidence fields of ``POST /v1/disputes/{id}``
                                              (``evidence[...]``), saved as a draft or
                                              submitted (``action``: save or submit)
    POST /dashboard/disputes/{dp}/close       accept it (the API's close)

Each write is the API route's rule (``rules/disputes``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from replicas.runtime import db as sql
from replicas.runtime.pages import performs, redirect, sends

from ..deps import WorldDep
from ..render import Row, loads
from ..rules import disputes
from ..rules.common import World, refused
from ..schemas.requests import DisputeEvidence
from .dashboard import DashboardRoute, Form, ObjectPath, Text, page, write

router = APIRouter(route_class=DashboardRoute, include_in_schema=False)
STATUSES = ("needs_response", "warning_needs_response", "under_review",
            "warning_under_review", "won", "lost", "warning_closed")
# The evidence fields, long ones (a textarea) and short ones, as the API's schema has them.
FIELDS = {name: (field.description or name) for name, field in
          DisputeEvidence.model_fields.items()}
LONG = {"access_activity_log", "cancellation_policy_disclosure", "cancellation_rebuttal",
        "duplicate_charge_explanation", "product_description", "refund_policy_disclosure",
        "refund_refusal_explanation", "uncategorized_text", "billing_address",
        "shipping_address"}


@router.get("/dashboard/disputes")
async def disputes_page(request: Request, w: WorldDep, status: Text = "") -> Response:
    if status and status not in STATUSES:
        raise refused(f"Status must be one of: {', '.join(STATUSES)}.", "parameter_invalid",
                      "status")
    found = sql.rows(w.db, "SELECT * FROM disputes WHERE ? = '' OR status = ? "
                     "ORDER BY created DESC, id DESC", (status, status))
    return page(request, "disputes.html", disputes=found, status=status, statuses=STATUSES)


def _dispute(w: World, dispute_id: str) -> Row:
    return w.objects.row("disputes", dispute_id, kind="dispute")


@router.get("/dashboard/disputes/{dispute_id}")
async def dispute_page(request: Request, w: WorldDep, dispute_id: ObjectPath,
                       done: Text = "") -> Response:
    row = _dispute(w, dispute_id)
    return page(request, "dispute.html", dispute=row, evidence=loads(row["evidence"]) or {},
                fields=FIELDS, long=LONG, open=row["status"] in disputes.OPEN,
                due_passed=w.now > row["due_by"], done=done[:120])


@router.post("/dashboard/disputes/{dispute_id}/evidence")
@performs("update_dispute", dispute="dispute_id")
async def evidence(request: Request, w: WorldDep, dispute_id: ObjectPath,
                   form: Form) -> Response:
    """The API's update: the fields given replace those staged (an emptied one is
    removed); ``action=submit`` submits them to the bank."""
    row = _dispute(w, dispute_id)
    action = form.get("action")
    if action not in ("save", "submit"):
        raise refused("Choose Save as draft or Submit evidence.", "parameter_invalid", "action")
    given: Any = form.get("evidence") or {}
    sends(request, {"evidence": given, "submit": action == "submit"})
    staged = DisputeEvidence.model_validate(given)
    write(w, lambda: disputes.update(w, row, evidence=staged, submit=action == "submit",
                                     meta=None))
    said = "Evidence submitted to the bank." if action == "submit" else "Draft saved."
    return redirect(request, f"/dashboard/disputes/{dispute_id}", done=said)


@router.post("/dashboard/disputes/{dispute_id}/close")
@performs("close_dispute", dispute="dispute_id")
async def close(request: Request, w: WorldDep, dispute_id: ObjectPath) -> Response:
    """The API's close: the dispute is accepted (lost; an inquiry closed)."""
    row = _dispute(w, dispute_id)
    write(w, lambda: disputes.close(w, row))
    return redirect(request, f"/dashboard/disputes/{dispute_id}", done="Dispute accepted.")
