"""Search (docs.stripe.com/api/customers/search, charges/search, payment_intents/search,
invoices/search, subscriptions/search, prices/search, products/search): Stripe's search query
language over the searchable resources (``search.py``). Matched before the resources'
``/{id}`` routes, which would read ``search`` as an id."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel
from starlette.responses import Response

from replicas.runtime.responses import ok

from ..deps import WorldDep
from ..lists import DEFAULT_LIMIT, Expand, Limit
from ..schemas.stripe import Charge, Customer, PaymentIntent, Price, Product, SearchResult
from ..schemas.stripe_billing import Invoice, Subscription
from ..search import SEARCHABLE, search_page

router = APIRouter()

SearchQuery = Annotated[str, Query(min_length=1, max_length=1000, description=(
    "The search query (docs.stripe.com/search#search-query-language), e.g. "
    "'email:\"ann@example.com\"' or 'metadata[\"order\"]:\"A-10423\" AND status:\"succeeded\"'."
))]
Page = Annotated[str | None, Query(max_length=255, description=(
    "The cursor of the page to return: a previous answer's next_page (not on the first call)."
))]


def _searching(resource: str, schema: type[BaseModel], title: str, tag: str,
               doc: str) -> None:
    """``GET /v1/<resource>/search`` for one of :data:`SEARCHABLE`."""
    async def search(w: WorldDep, *, limit: Limit = DEFAULT_LIMIT, query: SearchQuery,
                     page: Page = None, expand: Expand = None) -> Response:
        return ok(search_page(w.objects, SEARCHABLE[resource], query=query, limit=limit,
                              page=page, expand=expand or []))
    search.__doc__ = doc
    handler: Callable[..., Awaitable[Response]] = search
    router.get(f"/v1/{resource}/search", operation_id=f"search_{resource}", tags=[tag],
               summary=f"Search {title}", response_model=SearchResult[schema])(  # type: ignore[valid-type]
        handler)


for resource, schema, title, tag, doc in (
    ("customers", Customer, "customers", "customers", "Customers matching the query (fields: "
     "created, email, name, phone, metadata), newest first; deleted ones left out."),
    ("charges", Charge, "charges", "charges", "Charges matching the query (fields: amount, "
     "created, currency, customer, disputed, payment_intent, refunded, status, "
     "payment_method_details.card.{brand, exp_month, exp_year, fingerprint, last4}, "
     "metadata), newest first."),
    ("payment_intents", PaymentIntent, "PaymentIntents", "payment_intents", "PaymentIntents "
     "matching the query (fields: amount, created, currency, customer, status, metadata), "
     "newest first."),
    ("invoices", Invoice, "invoices", "invoices", "Invoices matching the query (fields: "
     "created, currency, customer, number, status, subscription, total, metadata), newest "
     "first."),
    ("subscriptions", Subscription, "subscriptions", "subscriptions", "Subscriptions matching "
     "the query (fields: created, status, metadata), newest first."),
    ("prices", Price, "prices", "catalog", "Prices matching the query (fields: active, "
     "currency, lookup_key, product, type, metadata), newest first."),
    ("products", Product, "products", "catalog", "Products matching the query (fields: "
     "active, description, name, url, metadata), newest first."),
):
    _searching(resource, schema, title, tag, doc)
