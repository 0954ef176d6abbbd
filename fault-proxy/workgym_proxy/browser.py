"""How a browser reaches its episode's apps. A browser cannot send ``Authorization: Bearer``
on a navigation, so the episode's token rides in a cookie:

* **Entry**: ``GET /apps/<app>/<path>?workgym_token=<episode token>`` (any page of any app of
  the episode). The proxy checks the token (genuine, the episode's access token, an app of the
  episode), sets the cookie ``workgym_episode=<token>; Path=/apps/; HttpOnly;
  SameSite=Strict; Max-Age=<until the token expires>`` (``Secure`` over HTTPS) and answers 303
  to the same URL without the token. The entry reaches no app: it is not a step.
* **Then** a request under ``/apps/`` with the cookie is the episode's, as if it had sent the
  token as its bearer (a bearer header, when there is one, wins): counted, faulted, forwarded
  and recorded like any other. No cookie is ever forwarded to a replica.

HttpOnly keeps the token from the pages' scripts; SameSite=Strict keeps other sites from
making the browser act in the episode (a cross-site form post carries no cookie). The entry
URL is a credential like the token: the proxy's answer is never cached nor named in a
Referer, and the token is cut from the access log (:class:`RedactTokens`). A browser (one
profile) holds one episode at a time: a second entry replaces the first.
"""

from __future__ import annotations

import logging
import re
import time
from urllib.parse import parse_qsl, urlencode

from workgym_core.asgi import Scope
from workgym_core.internal import APPS_PREFIX

TOKEN_PARAM = "workgym_token"
COOKIE = "workgym_episode"
_PARAM = TOKEN_PARAM.encode()
_TOKEN_IN_TEXT = re.compile(rf"({TOKEN_PARAM}=)[^&\s\"]*")


def entry(scope: Scope) -> tuple[str, str] | None:
    """(the token, where the browser goes on to) of an entry request; None for any other."""
    query: bytes = scope.get("query_string", b"")
    if scope["method"] != "GET" or _PARAM not in query:
        return None
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    token = next((value for name, value in pairs if name == TOKEN_PARAM), None)
    if token is None:
        return None
    rest = urlencode([(name, value) for name, value in pairs if name != TOKEN_PARAM])
    path = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
    return token, path + (f"?{rest}" if rest else "")


def entered(token: str, expires_at: float, location: str, *, secure: bool,
            path: str = APPS_PREFIX) -> list[tuple[bytes, bytes]]:
    """The headers of the entry's 303: on to ``location``, the token set as the cookie (for
    ``path``: ``/`` on an app's own port)."""
    max_age = max(0, int(expires_at - time.time()))
    cookie = (f"{COOKIE}={token}; Path={path}; Max-Age={max_age}; HttpOnly; "
              f"SameSite=Strict{'; Secure' if secure else ''}")
    return [(b"location", location.encode("latin-1")), (b"set-cookie", cookie.encode()),
            (b"cache-control", b"no-store"), (b"referrer-policy", b"no-referrer")]


def cookie_token(header: bytes, session: str | None = None) -> str | None:
    """The episode's token in a ``Cookie`` header, if it carries one (the browser's cookie,
    or ``session``: the product's session cookie, gateway.py)."""
    for part in header.decode("latin-1").split(";"):
        name, _, value = part.strip().partition("=")
        if name in (COOKIE, session) and value:
            return value
    return None


class RedactTokens(logging.Filter):
    """Cuts entry tokens out of the server's access log lines (uvicorn logs each request's
    path and query at the info level)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_TOKEN_IN_TEXT.sub(r"\1[redacted]", arg)
                                if isinstance(arg, str) else arg for arg in record.args)
        return True


_REDACT = RedactTokens()


def redact_access_log() -> None:
    """Install :class:`RedactTokens` on uvicorn's access log (once per process)."""
    access = logging.getLogger("uvicorn.access")
    if _REDACT not in access.filters:
        access.addFilter(_REDACT)
