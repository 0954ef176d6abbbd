"""What the proxy does in an app's place as the app's product would, from data: each app's
``gateway:`` in its ``replicas/<app>/app.yaml``, handed to the proxy by the server's assembly
(the proxy never imports an app's code).

* ``errors``: the proxy's own refusals (missing or bad token, step budget, rate limit,
  expired token, busy, lost episode) in the product's error body, a JSON template whose
  strings ``{code}``, ``{message}`` and ``{name}`` are filled (``names``: status -> the
  product's word for it, ``default`` otherwise; unnamed: WorkGym's code). Without it,
  WorkGym's own body.
* ``session``: the product's cookie login (Jira's ``rest/auth/1/session``). A ``POST`` there
  with the episode's token as its ``password`` is the episode's (the password never reaches
  the replica nor the trajectory); the proxy adds the cookie ``<cookie>=<token>`` to the
  app's 2xx answer (and ``session.value`` to its body); a ``DELETE`` there clears it. A
  request carrying that cookie is the episode's.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from workgym_core.errors import WorkGymError

from .faults import Reply

_JSON = (b"content-type", b"application/json")
REDACTED = "[episode token]"


class ErrorShape(BaseModel):
    model_config = ConfigDict(extra="forbid")

    body: Any = Field(description="The product's error body: its strings (and keys) filled "
                      "with {code}, {message}, {name}, {field} and {rule}; a member whose key "
                      "or value is one placeholder with nothing to fill is left out.")
    names: dict[str, str] = Field(default_factory=dict, description="Status (or 'default') "
                                  "-> the product's name for it ({name}).")
    optional: list[str] = Field(default_factory=list, description="Members of the body left "
                                "out when nothing filled them (an empty object or list).")

    def reply(self, error: WorkGymError) -> Reply:
        status = error.status_code
        name = self.names.get(str(status), self.names.get("default", error.code))
        values = {"code": error.code, "message": error.message, "name": name,
                  "field": error.field, "rule": error.rule}
        headers = [_JSON, *((k.lower().encode("latin-1"), v.encode("latin-1"))
                            for k, v in (error.headers or {}).items())]
        body = _filled(self.body, values)
        if isinstance(body, dict):
            body = {k: v for k, v in body.items() if v or k not in self.optional}
        return Reply(status, headers, orjson.dumps(body))


def _filled(template: Any, values: dict[str, str | None]) -> Any:
    if isinstance(template, str):
        return template.format_map(values)
    if isinstance(template, dict):
        return {template_key.format_map(values): _filled(value, values)
                for template_key, value in template.items()
                if not (_unfilled(template_key, values) or _unfilled(value, values))}
    if isinstance(template, list):
        return [_filled(item, values) for item in template]
    return template


def _unfilled(template: Any, values: dict[str, str | None]) -> bool:
    """Whether ``template`` is a lone placeholder with nothing to fill it."""
    return (isinstance(template, str) and template.startswith("{") and template.endswith("}")
            and values.get(template[1:-1], "") is None)


class Session(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="The login resource, inside the app.")
    cookie: str = Field(description="The session cookie's name.")
    password: str = Field("password", description="The login body's password member.")

    def is_login(self, method: str, path: str) -> bool:
        return method == "POST" and path == self.path

    def password_of(self, body: Any) -> str | None:
        """The password a login's body carries (the episode's token), if any."""
        password = body.get(self.password) if isinstance(body, dict) else None
        return password if isinstance(password, str) and password else None

    def redacted(self, body: Any) -> dict[str, Any]:
        """A login body without its password (what the replica and the trajectory get)."""
        return {**body, self.password: REDACTED}

    def answered(self, method: str, path: str, token: str, reply: Reply) -> Reply:
        """The app's answer to a login (its cookie set) or a logout (its cookie cleared)."""
        if path != self.path or not 200 <= reply.status < 300 or method not in (
                "POST", "DELETE"):
            return reply
        if method == "DELETE":
            return Reply(reply.status, [*reply.headers, (b"set-cookie", (
                f"{self.cookie}=; Path=/; Max-Age=0; HttpOnly").encode())], reply.body)
        body = reply.body
        parsed = orjson.loads(body) if body else None
        if isinstance(parsed, dict) and isinstance(parsed.get("session"), dict):
            body = orjson.dumps({**parsed, "session": {**parsed["session"], "value": token}})
        return Reply(reply.status, [*reply.headers, (b"set-cookie", (
            f"{self.cookie}={token}; Path=/; HttpOnly").encode())], body)


class Gateway(BaseModel):
    """An app's ``gateway:`` (app.yaml)."""

    model_config = ConfigDict(extra="forbid")

    errors: ErrorShape | None = None
    session: Session | None = None

    def refusal(self, error: WorkGymError) -> Reply:
        """The proxy's refusal in the app's place: the product's body, else WorkGym's."""
        if self.errors is not None:
            return self.errors.reply(error)
        response = error.response()
        return Reply(response.status_code, [(k, v) for k, v in response.raw_headers
                                            if k != b"content-length"], bytes(response.body))


PLATFORM = Gateway()  # an app with no gateway data, and a path no app owns
