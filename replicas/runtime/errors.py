"""How an app's errors look to agents: WorkGym's body by default; a replica of a product whose
API has an error object of its own (Stripe's ``{error: {type, code, param, ...}}``) renders
every error in that shape instead, keeping ``error.code`` (trajectories record it).

The style renders the runtime's errors too (validation, a missing route, an internal error):
one shape for everything the app answers. The gateway in front of every app (the proxy)
answers its own refusals (token, quotas, episode state) in the product's body too, from the
app's ``gateway.errors`` in its ``app.yaml`` (WorkGym's body for an app without one), so a
style's documented model must read those as well."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from starlette.responses import Response

from workgym_core.error_docs import ErrorBody
from workgym_core.errors import EpisodeNotFound, Render, WorkGymError


@dataclass(frozen=True)
class ErrorStyle:
    # Every error the app answers, as a response.
    render: Render = WorkGymError.response
    # The error body, as documented on every operation.
    model: type[BaseModel] = ErrorBody
    # Statuses documented beyond (or instead of) the runtime's: status -> (description,
    # response headers); e.g. Stripe's 402 for a declined card.
    statuses: Mapping[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)


WORKGYM_ERRORS = ErrorStyle()


def platform_first(render: Render) -> Render:
    """``render``, except for a request about an episode the instance does not hold: that
    one is the platform's (the proxy tells the agent the episode was lost), so it answers in
    WorkGym's body."""
    def answer(exc: WorkGymError) -> Response:
        return exc.response() if isinstance(exc, EpisodeNotFound) else render(exc)
    return answer
