"""The gym API's two principals, as dependencies.

* the **operator**, ``Authorization: Bearer <API key>``: creates episodes, reads full
  reports, controls faults;
* the **agent**, ``Authorization: Bearer <episode token>``: sees its own episode's status
  (never its task, seed or report), may declare it finished, and gets back no verifier
  detail. Every operator call (creating and deleting episodes, the task catalogue, fault
  plans and kinds) answers its token 403 ``operator_only``: what an agent would not see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request

from workgym_core import credentials
from workgym_core.errors import Forbidden, Unauthorized
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
    service: EpisodeService = request.app.state.service
    return service


ServiceDep = Annotated[EpisodeService, Depends(_service)]


def _credential(authorization: str | None) -> str:
    found = credentials.bearer(authorization)
    if found is None:
        raise Unauthorized("missing credential: send 'Authorization: Bearer <API key>' "
                           "(or an episode token where the call allows it)",
                           code="missing_credential",
                           headers={"www-authenticate": "Bearer"})
    return found


# The rule an episode's token breaks on an operator call (the error's ``rule``).
AGENT_SCOPE = "episode_token_scope"


def operator_only() -> Forbidden:
    """The refusal of an operator call made with an episode's token."""
    return Forbidden("this call is the operator's (its API key): an episode token reaches its "
                     "episode's apps (/apps/...), its status (GET /v1/episodes/{id}) and "
                     "finish (POST /v1/episodes/{id}/finish), never its task, seed or the task "
                     "catalogue", code="operator_only", field="authorization", rule=AGENT_SCOPE)


async def _operator(service: ServiceDep, authorization: AuthHeader = None) -> Operator:
    presented = _credential(authorization)
    if not credentials.matches(presented, service.settings.api_key):
        if service.registry.tokens.parse(presented) is not None:
            raise operator_only()
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
