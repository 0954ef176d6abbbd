"""A customer's balance transactions (docs.stripe.com/api/customer_balance_transactions)."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from ..deps import WorldDep
from ..idempotency import IdempotentDep
from ..lists import DEFAULT_LIMIT, EndingBefore, Expand, Limit, StartingAfter
from ..rules import customer_balance, customers
from ..schemas.billing import BalanceTransactionCreate, BalanceTransactionUpdate
from ..schemas.stripe import StripeList
from ..schemas.stripe_billing import CustomerBalanceTransaction
from .common import BalanceTransactionId, CustomerId, answer, listing

router = APIRouter(tags=["customers"])
TABLE = "customer_balance_transactions"


@router.post("/v1/customers/{customer}/balance_transactions",
             operation_id="create_customer_balance_transaction",
             summary="Adjust a customer's balance", response_model=CustomerBalanceTransaction)
async def create_customer_balance_transaction(customer: CustomerId,
                                              body: BalanceTransactionCreate,
                                              call: IdempotentDep) -> Response:
    """Credit (negative amount) or debit (positive) the customer's balance, which their next
    invoices use."""
    return call.run(body, lambda w: answer(w, TABLE, customer_balance.adjust(w, customer, body),
                                           body.expand))


@router.get("/v1/customers/{customer}/balance_transactions/{transaction}",
            operation_id="retrieve_customer_balance_transaction",
            summary="Retrieve a customer balance transaction",
            response_model=CustomerBalanceTransaction)
async def retrieve_customer_balance_transaction(customer: CustomerId,
                                                transaction: BalanceTransactionId,
                                                w: WorldDep, expand: Expand = None) -> Response:
    """One transaction of the customer's balance."""
    return answer(w, TABLE, customer_balance.of(w, customer, transaction), expand)


@router.post("/v1/customers/{customer}/balance_transactions/{transaction}",
             operation_id="update_customer_balance_transaction",
             summary="Update a customer balance transaction",
             response_model=CustomerBalanceTransaction)
async def update_customer_balance_transaction(customer: CustomerId,
                                              transaction: BalanceTransactionId,
                                              body: BalanceTransactionUpdate,
                                              call: IdempotentDep) -> Response:
    """Its description and metadata."""
    return call.run(body, lambda w: answer(w, TABLE, customer_balance.update(
        w, customer_balance.of(w, customer, transaction), body), body.expand))


@router.get("/v1/customers/{customer}/balance_transactions",
            operation_id="list_customer_balance_transactions",
            summary="List a customer's balance transactions",
            response_model=StripeList[CustomerBalanceTransaction])
async def list_customer_balance_transactions(
    customer: CustomerId, w: WorldDep, limit: Limit = DEFAULT_LIMIT,
    starting_after: StartingAfter = None, ending_before: EndingBefore = None,
    expand: Expand = None,
) -> Response:
    """The customer's balance transactions, newest first."""
    customers.live(w, customer)
    return listing(w, TABLE, "customer_balance_transaction",
                   url=f"/v1/customers/{customer}/balance_transactions", limit=limit,
                   starting_after=starting_after, ending_before=ending_before, expand=expand,
                   customer=customer)
