"""A page form's body (replicas/runtime/pages.posted): each field's values in order, blanks
kept; a body past MAX_FORM is the app's own refusal, raised before anything is read into a
form."""

from __future__ import annotations

import asyncio

import pytest
from starlette.requests import Request

from replicas.runtime.pages import MAX_FORM, posted
from workgym_core.errors import InvalidRequest


def _request(body: bytes) -> Request:
    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": body, "more_body": False}

    return Request({"type": "http", "method": "POST", "headers": []}, receive)


def test_a_form_keeps_each_fields_values_in_order_and_its_blanks() -> None:
    fields = asyncio.run(posted(_request(b"tag=a&tag=b&note=&name=Ana+T%C3%A9st"),
                                InvalidRequest("too large")))

    assert fields == {"tag": ["a", "b"], "note": [""], "name": ["Ana Tést"]}


def test_a_form_past_the_limit_is_the_apps_refusal() -> None:
    refusal = InvalidRequest("the form is too large", field="form", rule="too_large")

    with pytest.raises(InvalidRequest) as raised:
        asyncio.run(posted(_request(b"a=" + b"x" * MAX_FORM), refusal))

    assert raised.value is refusal
