"""The proxy's own refusals as tests read them, whatever app's product shape they are in
(fault-proxy/workgym_proxy/gateway.py: each app's ``gateway.errors`` in its app.yaml)."""

from __future__ import annotations

from typing import Any

import httpx


def refusal(response: httpx.Response | dict[str, Any]) -> dict[str, Any]:
    """WorkGym's ``code``, ``message``, ``field`` and ``rule`` of a refusal: WorkGym's body
    carries them in ``error``, Stripe's too but for the field (its ``param``) and the rule
    (None); Zendesk's names the code in ``error`` and the field and rule in ``details``;
    Jira's has the message and field alone (code None)."""
    body: dict[str, Any] = response if isinstance(response, dict) else response.json()
    error = body.get("error")
    if isinstance(error, dict):
        if "type" in error:  # Stripe's
            return {"code": error.get("code"), "message": error.get("message"),
                    "field": error.get("param"), "rule": None, **error}
        return error
    if isinstance(error, str):
        details: dict[str, list[dict[str, str]]] = body.get("details") or {}
        field, entries = next(iter(details.items()), (None, [{}]))
        return {"code": error, "message": body["description"], "field": field,
                "rule": entries[0].get("error")}
    return {"code": None, "message": body["errorMessages"][0],
            "field": next(iter(body["errors"]), None), "rule": None}
