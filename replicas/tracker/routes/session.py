"""Jira's cookie login, ``/rest/auth/1/session`` (Jira's auth resource: POST logs in, GET
answers who is logged in, DELETE logs out). The credential is the gateway's: the proxy takes
the episode's token from the login's password and keeps the session cookie
(``replicas/tracker/app.yaml``'s ``gateway.session``); the tracker answers Jira's bodies for
the caller, the agent's account. ``loginInfo`` is ours: one login, none failed."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from replicas.runtime.clock import iso
from replicas.runtime.db import one
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.responses import ok

from ..formats import jira_time
from .common import CALLER, Base

router = APIRouter(prefix="/rest/auth/1", tags=["session"])
COOKIE = "JSESSIONID"


class Login(BaseModel):
    model_config = ConfigDict(extra="ignore")

    username: str = Field(max_length=255, description="Any user name: the episode's token, "
                          "as the password, is the credential.")
    password: str = Field(max_length=4096, description="The episode's token.")


def _login_info(episode: EpisodeDep) -> dict[str, Any]:
    return {"failedLoginCount": 0, "loginCount": 1,
            "previousLoginTime": jira_time(iso(episode.now()))}


@router.post("/session", operation_id="login", summary="Create session")
async def login(body: Login, episode: EpisodeDep) -> Response:
    """Log in: the session (its cookie, set by the gateway with its value) and loginInfo."""
    return ok({"session": {"name": COOKIE, "value": ""}, "loginInfo": _login_info(episode)})


@router.get("/session", operation_id="current_user", summary="Get current user")
async def current_user(episode: EpisodeDep, base: Base) -> Response:
    """Who is logged in (the agent's account): self, name and loginInfo."""
    account = one(episode.db, "SELECT account_id FROM users WHERE id = ?", (CALLER,)) or {}
    return ok({"self": f"{base}/rest/api/latest/user?accountId={account['account_id']}",
               "name": account["account_id"], "loginInfo": _login_info(episode)})


@router.delete("/session", operation_id="logout", summary="Delete session",
               status_code=204)
async def logout(episode: EpisodeDep) -> Response:
    """Log out (the gateway clears the cookie)."""
    return Response(status_code=204)
