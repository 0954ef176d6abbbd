"""Jira's cookie login, ``/rest/auth/1/session`` (Jira's auth resource, outside the platform
API's document: answers checked for status, refusals for Jira's ErrorCollection). The login's
password is the episode's token, as the harness's client sends it."""

from __future__ import annotations

from tests.conformance.harness import Call

SESSION = "/rest/auth/1/session"
ERROR = "ErrorCollection"
NO_TOKEN = {"Authorization": "Bearer not-a-token"}


def scenario_session(call: Call) -> None:
    token = call.token
    call("POST", SESSION, status=200, json={"username": "agent", "password": token})
    call("POST", SESSION, status=401, shape=ERROR, headers={"Authorization": ""},
         json={"username": "agent", "password": "not-a-token"})
    call("GET", SESSION, status=200)
    call("GET", SESSION, status=401, shape=ERROR, headers=NO_TOKEN)
    call("DELETE", SESSION, status=204)
    call("DELETE", SESSION, status=401, shape=ERROR, headers=NO_TOKEN)
