"""Credit notes (docs.stripe.com/invoicing/dashboard/credit-notes, /api/credit_notes): a
reduction of a finalized invoice, whole or by line.

On an open invoice (``pre_payment``) it lowers what is due (an invoice with nothing left due is
paid). On a paid invoice (``post_payment``) the amount goes back as ``refund_amount`` (a refund
of the payment's charge, under the shop's refund policy: ``metadata[approval]``),
``credit_amount`` (the customer's balance) and ``out_of_band_amount`` (given back outside
Stripe), which must add up to it. Never more than is left to credit. Voiding gives back what
it took, unless money left (a refund): ``credit_note_unexpected_state`` (**ours**).
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidRequestError
from ..ids import next_row, stripe_id
from ..render import Row, amount_due
from ..schemas.billing import CreditNoteCreate, CreditNoteLineIn, CreditNoteUpdate
from ..schemas.requests import RefundCreate
from . import customer_balance, invoices, refunds
from .common import World, metadata, text

_HOW = ("refund_amount", "credit_amount", "out_of_band_amount")


def _line(w: World, invoice: Row, i: int, line: CreditNoteLineIn) -> dict[str, Any]:
    """One line's values (amount, quantity, unit_amount, description, invoice_line_item)."""
    param = f"lines[{i}]"
    if line.type == "custom_line_item":
        if line.unit_amount is None or not line.description:
            missing = "unit_amount" if line.unit_amount is None else "description"
            raise InvalidRequestError(f"Missing required param: {param}[{missing}].",
                                      code="parameter_missing", param=f"{param}[{missing}]")
        quantity = line.quantity or 1
        return {"type": line.type, "invoice_line_item": None,
                "amount": line.unit_amount * quantity, "quantity": quantity,
                "unit_amount": line.unit_amount, "description": line.description}
    if not line.invoice_line_item:
        raise InvalidRequestError(f"Missing required param: {param}[invoice_line_item].",
                                  code="parameter_missing", param=f"{param}[invoice_line_item]")
    found = w.objects.row("invoice_lines", line.invoice_line_item, kind="invoice line item",
                          param=f"{param}[invoice_line_item]")
    if found["invoice"] != invoice["stripe_id"]:
        raise InvalidRequestError(
            f"The line item {found['stripe_id']} is not on invoice {invoice['stripe_id']}.",
            code="parameter_invalid", param=f"{param}[invoice_line_item]")
    credited = w.db.execute(
        "SELECT coalesce(sum(l.amount), 0) AS n FROM credit_note_lines l JOIN credit_notes c "
        "ON c.stripe_id = l.credit_note WHERE l.invoice_line_item = ? AND c.status = 'issued'",
        (found["stripe_id"],)).fetchone()["n"]
    unit = found["amount"] // found["quantity"] if found["quantity"] else None
    amount = (line.amount if line.amount is not None
              else unit * line.quantity if line.quantity and unit is not None
              else found["amount"] - credited)
    if amount > found["amount"] - credited or amount <= 0:
        raise InvalidRequestError(
            f"The amount to credit on line {found['stripe_id']} ({amount}) must be more than 0 "
            f"and at most what is left to credit on it ({found['amount'] - credited}).",
            code="parameter_invalid", param=f"{param}[amount]")
    return {"type": line.type, "invoice_line_item": found["stripe_id"], "amount": amount,
            "quantity": line.quantity, "unit_amount": unit, "description": found["description"]}


def _amounts(body: CreditNoteCreate, total: int, post: bool) -> dict[str, int]:
    how = {name: getattr(body, name) or 0 for name in _HOW}
    given = [name for name in _HOW if getattr(body, name) is not None]
    if not post:
        if given:
            raise InvalidRequestError(
                f"{given[0]} is only for credit notes of paid invoices: a credit note of an "
                "open invoice lowers what is due.", code="parameter_invalid", param=given[0])
        return how
    if sum(how.values()) != total:
        raise InvalidRequestError(
            f"The sum of refund_amount, credit_amount and out_of_band_amount "
            f"({sum(how.values())}) must equal the credit note's amount ({total}).",
            code="parameter_invalid", param=given[0] if given else "credit_amount")
    return how


def _draft(w: World, body: CreditNoteCreate) -> tuple[Row, dict[str, Any], list[dict[str, Any]]]:
    """The credit note ``body`` asks for, checked: its invoice, its values and its lines'
    (nothing written; the rule :func:`create` and :func:`preview` share)."""
    invoice = w.objects.row("invoices", body.invoice, kind="invoice", param="invoice")
    if invoice["status"] not in ("open", "paid"):
        raise InvalidRequestError(
            f"Credit notes can only be issued on open or paid invoices; invoice "
            f"{invoice['stripe_id']} is {invoice['status']}.",
            code="invoice_unexpected_state", param="invoice")
    lines = [_line(w, invoice, i, line) for i, line in enumerate(body.lines or [])]
    if body.lines is None and body.amount is None:
        raise InvalidRequestError("Missing required param: amount (or lines).",
                                  code="parameter_missing", param="amount")
    total = sum(line["amount"] for line in lines) if lines else body.amount or 0
    if lines and body.amount is not None and body.amount != total:
        raise InvalidRequestError(f"amount ({body.amount}) must equal the sum of the lines "
                                  f"({total}).", code="parameter_invalid", param="amount")
    post = invoice["status"] == "paid"
    left = (invoice["amount_paid"] - invoice["post_payment_credit_notes_amount"] if post
            else invoices.remaining(invoice))
    if total <= 0 or total > left:
        raise InvalidRequestError(
            f"The credit note's amount ({total}) must be more than 0 and at most what is left "
            f"to credit on the invoice ({left}).", code="parameter_invalid", param="amount")
    how = _amounts(body, total, post)
    if how["refund_amount"] and invoice["payment_intent"] is None:
        raise InvalidRequestError(
            f"Invoice {invoice['stripe_id']} was not paid through Stripe: there is no charge "
            "to refund. Use out_of_band_amount or credit_amount.", code="parameter_invalid",
            param="refund_amount")
    count = w.db.execute("SELECT count(*) AS n FROM credit_notes WHERE invoice = ?",
                         (invoice["stripe_id"],)).fetchone()["n"]
    return invoice, {
        "invoice": invoice["stripe_id"], "customer": invoice["customer"],
        "number": f"{invoice['number']}-CN-{count + 1:02d}", "status": "issued",
        "type": "post_payment" if post else "pre_payment", "amount": total,
        "currency": invoice["currency"], "reason": body.reason, "memo": text(body.memo),
        "refund_amount": how["refund_amount"], "credit_amount": how["credit_amount"],
        "out_of_band_amount": body.out_of_band_amount,
        "metadata": metadata("{}", body.metadata)}, lines


def preview(w: World, body: CreditNoteCreate) -> tuple[Row, list[Row]]:
    """The credit note :func:`create` would make of ``body`` now, and its lines, as rows
    written nowhere (docs.stripe.com/api/credit_notes/preview): their ids those it would
    give them."""
    _, values, lines = _draft(w, body)
    row = {**_unwritten(w, "credit_notes"), "refund": None, "voided_at": None, **values}
    return row, [{**_unwritten(w, "credit_note_lines", i), "credit_note": row["stripe_id"],
                  **line} for i, line in enumerate(lines)]


def _unwritten(w: World, table: str, ahead: int = 0) -> Row:
    """The ids and ``created`` :meth:`World.create` would give ``table``'s next object (or the
    one ``ahead`` after it)."""
    row_id, rng = next_row(w.db, table, w.seed, ahead)
    return {"id": row_id, "stripe_id": stripe_id(table, rng), "created": w.now}


def create(w: World, body: CreditNoteCreate) -> Row:
    invoice, values, lines = _draft(w, body)
    row = w.create("credit_notes", values)
    for line in lines:
        w.create("credit_note_lines", {"credit_note": row["stripe_id"], **line})
    if row["refund_amount"]:
        row = _refund(w, row, invoice, row["refund_amount"], body)
    if row["credit_amount"]:
        customer = w.objects.row("customers", invoice["customer"], kind="customer")
        customer_balance.record(w, customer, -row["credit_amount"], "credit_note",
                       invoice=invoice["stripe_id"], credit_note=row["stripe_id"])
    post = row["type"] == "post_payment"
    column = "post" if post else "pre"
    invoice = w.update("invoices", invoice, {
        f"{column}_payment_credit_notes_amount":
        invoice[f"{column}_payment_credit_notes_amount"] + row["amount"]})
    if not post and amount_due(invoice) - invoice["amount_paid"] <= 0:
        invoices.settle(w, invoice)
    w.emit("credit_note.created", "credit_notes", row)
    return row


def _refund(w: World, row: Row, invoice: Row, amount: int, body: CreditNoteCreate) -> Row:
    refund = refunds.create(w, RefundCreate.model_validate({
        "payment_intent": invoice["payment_intent"], "amount": amount,
        "metadata": {**(body.metadata if isinstance(body.metadata, dict) else {}),
                     "credit_note": row["stripe_id"]}}))
    return w.update("credit_notes", row, {"refund": refund["stripe_id"]})


def update(w: World, row: Row, body: CreditNoteUpdate) -> Row:
    values: dict[str, Any] = {"metadata": metadata(row["metadata"], body.metadata)}
    if "memo" in body.model_fields_set:
        values["memo"] = text(body.memo)
    row = w.update("credit_notes", row, values)
    w.emit("credit_note.updated", "credit_notes", row)
    return row


def void(w: World, row: Row) -> Row:
    """Take it back: what it lowered is due again, the balance it credited is debited."""
    invoice = w.objects.row("invoices", row["invoice"], kind="invoice")
    if row["status"] != "issued" or row["refund"] is not None or (
            row["type"] == "pre_payment" and invoice["status"] != "open"):
        raise InvalidRequestError(
            f"Credit note {row['stripe_id']} cannot be voided: it is {row['status']}"
            f"{', and refunded money' if row['refund'] else ''}; its invoice is "
            f"{invoice['status']}.", code="credit_note_unexpected_state", param="id")
    column = "post" if row["type"] == "post_payment" else "pre"
    w.update("invoices", invoice, {f"{column}_payment_credit_notes_amount":
                                   invoice[f"{column}_payment_credit_notes_amount"]
                                   - row["amount"]})
    if row["credit_amount"]:
        customer = w.objects.row("customers", row["customer"], kind="customer")
        customer_balance.record(w, customer, row["credit_amount"], "credit_note",
                       invoice=invoice["stripe_id"], credit_note=row["stripe_id"])
    row = w.update("credit_notes", row, {"status": "void", "voided_at": w.now})
    w.emit("credit_note.voided", "credit_notes", row)
    return row
