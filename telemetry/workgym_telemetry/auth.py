"""Who may do what in the telemetry store, as FastAPI dependencies.

* Ingest (``POST /v1/traces``, ``/v1/metrics``): WorkGym's services, with
  ``Authorization: Bearer <internal secret>``.
* Reading (the API and the pages): the operator, with ``Authorization: Bearer <API key>`` or
  the session cookie a browser gets from ``POST /login``. One episode's page and timeline
  also open with the signed link the gym puts in its report (``?exp=&sig=``,
  :func:`workgym_core.credentials.page_link`) until the expiry it carries (then 410
  ``link_expired``), and with nothing else.

A request with an Authorization header is judged by that header alone. Every check is
made before the store is read, so an unknown episode and another episode's answer alike.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Query, Request

from workgym_core import credentials

from .deps import settings_of
from .errors import LinkExpired, LinkExpiredPage, LoginRequired, NotAuthenticated
from .settings import TelemetrySettings

SESSION_COOKIE = "workgym_session"
_SESSION = "session"


@dataclass(frozen=True, slots=True)
class Access:
    """How a reader was let in: as the operator, or (``link``: its query) by one episode's
    signed link, which the page's own links then carry."""

    link: dict[str, str] | None = None


OPERATOR = Access()


def session_cookie(settings: TelemetrySettings, now: float) -> str:
    """A browser session's cookie: its expiry and a MAC of it under the API key (never the
    key itself); a new API key ends every session."""
    expires = str(int(now) + settings.session_ttl_s)
    return f"{expires}.{credentials.mac(settings.api_key, _SESSION, expires)}"


def _valid_session(settings: TelemetrySettings, cookie: str | None, now: float) -> bool:
    expires, _, tag = (cookie or "").partition(".")
    if not (expires.isascii() and expires.isdigit()) or int(expires) <= now:
        return False
    return credentials.matches(tag, credentials.mac(settings.api_key, _SESSION, expires))


def _admit(request: Request, refusal: type[NotAuthenticated], episode_id: str | None = None,
           exp: str | None = None, sig: str | None = None,
           expired: type[LinkExpired] = LinkExpired) -> Access:
    settings = settings_of(request)
    header = request.headers.get("authorization")
    if header is not None:
        if credentials.matches(credentials.bearer(header), settings.api_key):
            return OPERATOR
        raise refusal("the Authorization header does not carry the API key")
    now = time.time()
    if _valid_session(settings, request.cookies.get(SESSION_COOKIE), now):
        return OPERATOR
    if episode_id is not None and exp is not None and exp.isascii() and exp.isdigit() \
            and len(exp) <= 12 and credentials.matches(
                sig, credentials.page_signature(settings.api_key, episode_id, int(exp))):
        if int(exp) <= now:
            raise expired("this signed link expired; ask the operator for the episode's "
                          "report again, or log in with the API key", field="exp",
                          rule="not_expired")
        return Access(link=credentials.page_query(settings.api_key, episode_id, int(exp)))
    raise refusal("reading episodes needs the operator: send Authorization: Bearer <API key>"
                  + (" or open the episode's signed link" if episode_id is not None else ""))


def _operator(request: Request) -> Access:
    return _admit(request, NotAuthenticated)


def _operator_page(request: Request) -> Access:
    return _admit(request, LoginRequired)


ExpQuery = Annotated[str | None, Query(
    description="The expiry (Unix seconds) of the episode's link (the report's episode_page), "
    "signed with it.")]
SigQuery = Annotated[str | None, Query(
    description="The signature of the episode's link (the report's episode_page): opens this "
    "episode's page and timeline without the API key until its expiry.")]


def _reader(request: Request, episode_id: str, exp: ExpQuery = None,
            sig: SigQuery = None) -> Access:
    return _admit(request, NotAuthenticated, episode_id, exp, sig)


def _reader_page(request: Request, episode_id: str, exp: ExpQuery = None,
                 sig: SigQuery = None) -> Access:
    return _admit(request, LoginRequired, episode_id, exp, sig, LinkExpiredPage)


def _service(request: Request) -> None:
    presented = credentials.bearer(request.headers.get("authorization"))
    if not credentials.matches(presented, settings_of(request).internal_secret):
        raise NotAuthenticated("exporting telemetry needs WorkGym's internal secret: "
                               "Authorization: Bearer <WORKGYM_INTERNAL_SECRET>")


OperatorDep = Annotated[Access, Depends(_operator)]
"""The operator (API key or session cookie); JSON 401 otherwise."""
OperatorPageDep = Annotated[Access, Depends(_operator_page)]
"""The operator; the login page (401) otherwise."""
ReaderDep = Annotated[Access, Depends(_reader)]
"""The operator, or the signed link of the route's ``{episode_id}``; JSON 401 otherwise (410
once the link expired)."""
ReaderPageDep = Annotated[Access, Depends(_reader_page)]
"""The operator, or the signed link of the route's ``{episode_id}``; the login page otherwise
(410, saying so, once the link expired)."""
ServiceDep = Annotated[None, Depends(_service)]
"""A WorkGym service (the internal secret); JSON 401 otherwise."""
