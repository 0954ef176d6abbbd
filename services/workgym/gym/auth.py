"""The gym API's two principals, as dependencies.

* the **operator**, ``Authorization: Bearer <API key>``: creates episodes, reads full
  reports, controls faults;
* the **agent**, ``Authorization: Bearer <episode token>``: sees its own episode, may
  declare it finished, and gets back no verifier detail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request

from workgym_core import credentials
from workgym_core.errors import Unauthorized
from workgym_core.registry import EpisodeRecord

from .service import EpisodeService

AuthHeader = Annotated[str | None, Header(
    alias="authorization",
    description="'Bearer <API key>' (the operator) or 'Bearer <episode token>' (its agent).")]


def owner_of(api_key: str) -> str:
    """The quota bucket of an API key (never the key itself)."""
    return credentials.mac(api_key, "owner", "")[:16]


@dataclass(frozen=True)
class Operator:
    owner: str


@dataclass(frozen=True)
class Access:
    """Who reached one episode: its operator or its own agent."""

    record: EpisodeRecord
    operator: bool


async def _service(request: Request) -> EpisodeService:
    return request.app.state.service  # type: ignore[no-any-return]


ServiceDep = Annotated[EpisodeService, Depends(_service)]


def _credential(authorization: str | None) -> str:
    found = credentials.bearer(authorization)
    if found is None:
        raise Unauthorized("missing credential: send 'Authorization: Bearer <API key>' "
                           "(or an episode token where the call allows it)",
                           code="missing_credential",
                           headers={"www-authenticate": "Bearer"})
    return found


async def _operator(service: ServiceDep, authorization: AuthHeader = None) -> Operator:
    if not credentials.matches(_credential(authorization), service.settings.api_key):
        raise Unauthorized("this call needs the operator's API key (WORKGYM_API_KEY)",
                           code="invalid_api_key", headers={"www-authenticate": "Bearer"})
    return Operator(owner_of(service.settings.api_key))


async def _episode_access(episode_id: str, service: ServiceDep,
                          authorization: AuthHeader = None) -> Access:
    presented = _credential(authorization)
    if credentials.matches(presented, service.settings.api_key):
        return Access(await service.registry.get(episode_id), operator=True)
    return Access(await service.registry.authorize(episode_id, presented), operator=False)


async def _anyone(service: ServiceDep, authorization: AuthHeader = None) -> None:
    """The operator, or the agent of an episode (a genuine token, whatever its state)."""
    presented = _credential(authorization)
    if not credentials.matches(presented, service.settings.api_key) and \
            service.registry.tokens.parse(presented) is None:
        raise Unauthorized("send the operator's API key or an episode token",
                           code="invalid_credential", headers={"www-authenticate": "Bearer"})


OperatorDep = Annotated[Operator, Depends(_operator)]
AccessDep = Annotated[Access, Depends(_episode_access)]
Anyone = Depends(_anyone)
