"""Products and prices (docs.stripe.com/api/products, /api/prices)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..rules import catalog
from ..schemas.requests import PriceCreate, PriceUpdate, ProductCreate, ProductUpdate
from ..schemas.stripe import Price, Product, StripeList
from .common import PriceId, ProductId, answer, listing, retrieve

router = APIRouter(tags=["catalog"])

Active = Annotated[bool | None, Query(description="Only active (true) or inactive (false).")]


@router.post("/v1/products", operation_id="create_product", summary="Create a product",
             response_model=Product)
async def create_product(body: ProductCreate, call: IdempotentDep) -> Response:
    """A new product of the shop's catalogue."""
    return call.run(body, lambda w: answer(w, "products", catalog.create_product(w, body),
                                           body.expand))


@router.get("/v1/products/{product}", operation_id="retrieve_product",
            summary="Retrieve a product", response_model=Product)
async def retrieve_product(product: ProductId, w: WorldDep, expand: Expand = None) -> Response:
    """One product."""
    return retrieve(w, "products", product, "product", expand)


@router.post("/v1/products/{product}", operation_id="update_product",
             summary="Update a product", response_model=Product)
async def update_product(product: ProductId, body: ProductUpdate,
                         call: IdempotentDep) -> Response:
    """Change the parameters given; default_price must be one of its prices."""
    return call.run(body, lambda w: answer(w, "products", catalog.update_product(
        w, w.objects.row("products", product, kind="product"), body), body.expand))


@router.get("/v1/products", operation_id="list_products", summary="List products",
            response_model=StripeList[Product])
async def list_products(w: WorldDep, limit: Limit = DEFAULT_LIMIT,
                        starting_after: StartingAfter = None,
                        ending_before: EndingBefore = None, expand: Expand = None,
                        active: Active = None) -> Response:
    """Products, newest first."""
    return listing(w, "products", "product", url="/v1/products", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   active=None if active is None else int(active))


@router.post("/v1/prices", operation_id="create_price", summary="Create a price",
             response_model=Price)
async def create_price(body: PriceCreate, call: IdempotentDep) -> Response:
    """A new price of a product, one-time or recurring."""
    return call.run(body, lambda w: answer(w, "prices", catalog.create_price(w, body),
                                           body.expand))


@router.get("/v1/prices/{price}", operation_id="retrieve_price", summary="Retrieve a price",
            response_model=Price)
async def retrieve_price(price: PriceId, w: WorldDep, expand: Expand = None) -> Response:
    """One price."""
    return retrieve(w, "prices", price, "price", expand)


@router.post("/v1/prices/{price}", operation_id="update_price", summary="Update a price",
             response_model=Price)
async def update_price(price: PriceId, body: PriceUpdate, call: IdempotentDep) -> Response:
    """Change its nickname, lookup key, activity or metadata (its amount never changes)."""
    return call.run(body, lambda w: answer(w, "prices", catalog.update_price(
        w, w.objects.row("prices", price, kind="price"), body), body.expand))


@router.get("/v1/prices", operation_id="list_prices", summary="List prices",
            response_model=StripeList[Price])
async def list_prices(
    w: WorldDep, limit: Limit = DEFAULT_LIMIT, starting_after: StartingAfter = None,
    ending_before: EndingBefore = None, expand: Expand = None, active: Active = None,
    product: Annotated[str | None, Query(max_length=255,
                                         description="Only this product's prices.")] = None,
    currency: Annotated[str | None, Query(pattern=r"^[a-z]{3}$",
                                          description="Only prices in this currency.")] = None,
) -> Response:
    """Prices, newest first."""
    return listing(w, "prices", "price", url="/v1/prices", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   active=None if active is None else int(active), product=product,
                   currency=currency)
