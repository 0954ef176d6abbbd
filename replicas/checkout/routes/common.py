"""What the checkout's routes share: ids in paths, answering objects (expanded), lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from fastapi import Path, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.responses import Response

from replicas.runtime.responses import ok
from workgym_core.forms import decode

from ..lists import cursor_page
from ..render import Row
from ..rules.common import World

M = TypeVar("M", bound=BaseModel)


def from_query(request: Request, model: type[M], skip: frozenset[str] = frozenset()) -> M:
    """The request's query (bracket notation, as a form body) as ``model``'s parameters, those
    named in ``skip`` left to the route; refused as a body would be (Stripe's 400 naming the
    parameter)."""
    given = {k: v for k, v in decode(request.url.query).items() if k not in skip}
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        raise RequestValidationError([{**e, "loc": ("query", *e["loc"])}
                                      for e in exc.errors()]) from None


def object_path(kind: str) -> Any:
    return Path(min_length=1, max_length=255, description=f"The {kind}'s id.")


CustomerId = Annotated[str, object_path("customer")]
ProductId = Annotated[str, object_path("product")]
PriceId = Annotated[str, object_path("price")]
PaymentMethodId = Annotated[str, object_path("PaymentMethod")]
IntentId = Annotated[str, object_path("PaymentIntent")]
ChargeId = Annotated[str, object_path("charge")]
RefundId = Annotated[str, object_path("refund")]
DisputeId = Annotated[str, object_path("dispute")]
EventId = Annotated[str, object_path("event")]
CouponId = Annotated[str, object_path("coupon")]
PromotionCodeId = Annotated[str, object_path("promotion code")]
SessionId = Annotated[str, object_path("Checkout Session")]
SubscriptionId = Annotated[str, object_path("subscription")]
SubscriptionItemId = Annotated[str, object_path("subscription item")]
InvoiceId = Annotated[str, object_path("invoice")]
CreditNoteId = Annotated[str, object_path("credit note")]
BalanceTransactionId = Annotated[str, object_path("balance transaction")]
PayoutId = Annotated[str, object_path("payout")]


def answer(w: World, table: str, row: Row, expand: Sequence[str] | None) -> Response:
    """``row`` as its object, the references ``expand`` names expanded."""
    return ok(w.objects.expand(w.objects.render(table, row), expand or []))


def retrieve(w: World, table: str, object_id: str, kind: str,
             expand: Sequence[str] | None) -> Response:
    return answer(w, table, w.objects.row(table, object_id, kind=kind), expand)


def listing(w: World, table: str, kind: str, *, url: str, limit: int,
            starting_after: str | None, ending_before: str | None,
            expand: Sequence[str] | None, where: Sequence[str] = (),
            params: Sequence[Any] = (), **equal: Any) -> Response:
    """A page of ``table``'s objects whose columns equal ``equal`` (None: not filtered) and
    that match ``where`` (SQL in code, with ``params``)."""
    where = [*where, *(f"{column} = ?" for column, value in equal.items()
                       if value is not None)]
    params = [*params, *(value for value in equal.values() if value is not None)]
    return ok(cursor_page(w.objects, table, where, params, url=url, limit=limit,
                          starting_after=starting_after, ending_before=ending_before,
                          expand=expand or [], kind=kind))
