"""WORKGYM_STEP_BUDGET, the operator's step budget for every episode (a client suite's run),
and its refusal in the product's error shape."""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest
import stripe

import workgym
from workgym.processes import serving
from workgym.sdk import Observation

BUDGET = 3


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Observation]:
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("budget")),
           "WORKGYM_STEP_BUDGET": str(BUDGET)}
    with serving(env=env) as url, workgym.connect(url, "checkout/refund-returned-order",
                                                  seed=1, faults="none") as run:
        yield run.reset()


def test_request_n_plus_one_is_refused_in_stripes_error_shape(
        checkout: Observation, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the budget the proxy answers in the checkout's place, as Stripe does:
    ``{"error": {"type", "code", "message"}}`` (https://docs.stripe.com/api/errors), 409
    with WorkGym's code; stripe-python raises it (its body carries the code)."""
    assert checkout.max_steps == BUDGET
    root = checkout.roots["checkout"]
    auth = {"authorization": f"Bearer {checkout.token}"}
    with httpx.Client(base_url=root, headers=auth, trust_env=False) as http:
        assert [http.get("/v1/customers").status_code for _ in range(BUDGET - 1)] == [200] * 2
        monkeypatch.setattr(stripe, "api_base", root)
        monkeypatch.setattr(stripe, "api_key", checkout.token)
        monkeypatch.setattr(stripe, "max_network_retries", 0)
        assert stripe.Customer.list(limit=1).object == "list"  # the budget's last request
        with pytest.raises(stripe.StripeError) as spent:
            stripe.Customer.list(limit=1)
        refused = http.get("/v1/customers")
    assert spent.value.http_status == 409  # stripe-python: an APIError past 400-404
    assert (spent.value.json_body or {})["error"]["code"] == "step_budget_exhausted"
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request_error", "step_budget_exhausted")
    assert set(error) == {"type", "code", "message"}
