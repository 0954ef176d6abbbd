"""What the SDK and the CLI raise: one family, each error's ``str`` one line naming what failed
and what to check. The CLI prints that line (``workgym: error: ...``) and exits 2.

    WorkGymClientError             the root: every failure of a client call
    ├── Unreachable                no answer from a server (``.what``, ``.url``)
    ├── Refused                    a server answered an error (``.status_code``, ``.error``)
    │   ├── AuthRefused            401/403: the operator API key
    │   ├── NotFound               404
    │   └── UserModelFailed        503 from an app: the episode's user model failed (``.infra``)
    ├── MissingApiKey              no operator API key given or found on this machine
    └── UnknownName (ValueError)   an app or a tool the episode does not have (``.known``)

Build them with :func:`reaching` (a block whose transport errors become ``Unreachable``) and
:func:`refusal` (an error response as its ``Refused``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where a client uses it: the CLI's servers need no HTTP client
    import httpx

# What to check when the gym API does not answer.
SERVER_HINT = "is the server running (`workgym serve`) and is the URL right?"
KEY_HINT = ("is it that server's operator key? (WORKGYM_API_KEY, else "
            "~/.config/workgym/api-key; `workgym serve` prints where its key is)")


class WorkGymClientError(Exception):
    """The root of every SDK and CLI failure; its ``str`` is one line."""


class Unreachable(WorkGymClientError):
    """``what`` at ``url`` did not answer (refused, unresolved, timed out, dropped)."""

    def __init__(self, what: str, url: str, reason: str, hint: str = SERVER_HINT) -> None:
        self.what, self.url, self.reason = what, url, reason
        super().__init__(f"cannot reach {what} at {url} ({reason}): {hint}")


class Refused(WorkGymClientError):
    """A server answered an error: ``status_code`` and its JSON ``error`` object."""

    def __init__(self, status_code: int, error: dict[str, Any], hint: str = "") -> None:
        self.status_code, self.error = status_code, error
        said = f"{status_code} {error.get('code', '')}: {error.get('message', '')}"
        super().__init__(f"{said} ({hint})" if hint else said)


class AuthRefused(Refused):
    """401 or 403: the server does not take the API key."""


class NotFound(Refused):
    """404: no such task, episode or page."""


class UserModelFailed(Refused):
    """503 from an app: the model playing the episode's people (its ``user``) failed, so the
    write it was to answer was refused. An infrastructure failure (``infra``), never the
    agent's: the episode cannot go on as asked."""

    infra = "user model unavailable"


class MissingApiKey(WorkGymClientError):
    """No operator API key was given or found on this machine."""


class UnknownName(WorkGymClientError, ValueError):
    """An app or a tool ``where`` does not have; ``known``: the names it has."""

    def __init__(self, kind: str, name: str, where: str, known: Iterable[str]) -> None:
        self.kind, self.name, self.known = kind, name, list(known)
        super().__init__(f"unknown {kind} '{name}': {where} has {', '.join(self.known)}")


def one_line(text: str) -> str:
    return " ".join(text.split())


@contextmanager
def reaching(what: str, url: str, hint: str = SERVER_HINT) -> Iterator[None]:
    """The block's httpx transport errors as :class:`Unreachable` (``what`` at ``url``)."""
    import httpx

    try:
        yield
    except httpx.TransportError as exc:
        reason = one_line(f"{type(exc).__name__}: {exc}") if str(exc) else type(exc).__name__
        raise Unreachable(what, url, reason, hint) from exc


def refusal(response: httpx.Response) -> Refused:
    """An error response as its :class:`Refused` (:class:`AuthRefused` with what to check
    for a 401 or 403, :class:`NotFound` for a 404)."""
    try:
        payload = response.json()
    except ValueError:
        payload = None
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        error = {"message": one_line(response.text)[:200]}
    if response.status_code in (401, 403):
        try:
            server = f"from {response.url.scheme}://{response.url.netloc.decode()}: "
        except RuntimeError:  # a response built without its request
            server = ""
        return AuthRefused(response.status_code, error, server + KEY_HINT)
    if response.status_code == 404:
        return NotFound(response.status_code, error)
    return Refused(response.status_code, error)
