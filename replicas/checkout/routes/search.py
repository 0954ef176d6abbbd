"""Search (docs.stripe.com/api/customers/search, charges/search, payment_intents/search):
Stripe's search query language over the searchable resources (``search.py``). Matched before
the resources' ``/{id}`` routes, which would read ``search`` as an id."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from replicas.runtime.responses import ok

from ..deps import WorldDep
from ..lists import DEFAULT_LIMIT, Expand, Limit
from ..rules.common import World
from ..schemas.stripe import Charge, Customer, PaymentIntent, SearchResult
from ..search import SEARCHABLE, search_page

router = APIRouter()

SearchQuery = Annotated[str, Query(min_length=1, max_length=1000, description=(
    "The search query (docs.stripe.com/search#search-query-language), e.g. "
    "'email:\"ann@example.com\"' or 'metadata[\"order\"]:\"A-10423\" AND status:\"succeeded\"'."
))]
Page = Annotated[str | None, Query(max_length=255, description=(
    "The cursor of the page to return: a previous answer's next_page (not on the first call)."
))]


def _search(w: World, resource: str, query: str, limit: int, page: str | None,
            expand: list[str] | None) -> Response:
    return ok(search_page(w.objects, SEARCHABLE[resource], query=query, limit=limit,
                          page=page, expand=expand or []))


@router.get("/v1/customers/search", operation_id="search_customers", tags=["customers"],
            summary="Search customers", response_model=SearchResult[Customer])
async def search_customers(w: WorldDep, *, limit: Limit = DEFAULT_LIMIT,
                           query: SearchQuery, page: Page = None,
                           expand: Expand = None) -> Response:
    """Customers matching the query (fields: created, email, name, phone, metadata),
    newest first; deleted ones left out."""
    return _search(w, "customers", query, limit, page, expand)


@router.get("/v1/charges/search", operation_id="search_charges", tags=["charges"],
            summary="Search charges", response_model=SearchResult[Charge])
async def search_charges(w: WorldDep, *, limit: Limit = DEFAULT_LIMIT,
                           query: SearchQuery, page: Page = None,
                           expand: Expand = None) -> Response:
    """Charges matching the query (fields: amount, created, currency, customer, disputed,
    payment_intent, refunded, status, payment_method_details.card.{brand, exp_month,
    exp_year, fingerprint, last4}, metadata), newest first."""
    return _search(w, "charges", query, limit, page, expand)


@router.get("/v1/payment_intents/search", operation_id="search_payment_intents",
            tags=["payment_intents"], summary="Search PaymentIntents",
            response_model=SearchResult[PaymentIntent])
async def search_payment_intents(w: WorldDep, *, limit: Limit = DEFAULT_LIMIT,
                                 query: SearchQuery, page: Page = None,
                                 expand: Expand = None) -> Response:
    """PaymentIntents matching the query (fields: amount, created, currency, customer,
    status, metadata), newest first."""
    return _search(w, "payment_intents", query, limit, page, expand)
