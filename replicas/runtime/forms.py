"""Form-encoded bodies for an app whose product speaks them (``SPEC.middleware``):
:class:`FormBodies` turns such a body into the JSON one the app's routes validate, and
bracketed list keys of a query into repeated keys (``workgym_core.forms``). JSON bodies pass
unchanged, so agents may send either.
"""

from __future__ import annotations

import orjson

from workgym_core.asgi import ASGIApp, Receive, Scope, Send, read_body, replay
from workgym_core.errors import Render, WorkGymError
from workgym_core.forms import MalformedForm, decode, is_form, list_keys

MAX_BODY_BYTES = 1_000_000  # past the proxy's own limit: a body that reached us directly


class FormBodies:
    """Pure-ASGI: form bodies as JSON (a POST without a body as ``{}``: no parameters),
    bracketed list keys of queries as repeated keys. A body that is not UTF-8 or not bracket
    notation is refused (400 ``malformed_body``) in the app's error style (``render``)."""

    def __init__(self, app: ASGIApp, render: Render) -> None:
        self.app = app
        self.render = render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if b"[" in (query := scope.get("query_string", b"")) or b"%5" in query:
            scope = {**scope, "query_string": list_keys(query)}
        headers = scope["headers"]
        untyped = not any(k == b"content-type" for k, _ in headers)
        if not is_form(headers) and not (untyped and scope["method"] == "POST"):
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive, MAX_BODY_BYTES)
            if untyped and body:  # not a form: the app answers for itself
                await self.app(scope, replay(body, receive), send)
                return
            # A POST without a body is one without parameters, as in a form API.
            converted = orjson.dumps(decode(body.decode("utf-8")))
        except UnicodeDecodeError:
            await self._refuse(scope, receive, send, MalformedForm(
                "request body is not valid UTF-8", field="body", rule="utf-8"))
            return
        except WorkGymError as exc:  # malformed, or too large
            await self._refuse(scope, receive, send, exc)
            return
        scope = {**scope, "headers": [
            *((k, v) for k, v in headers if k not in (b"content-type", b"content-length")),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(converted)).encode())]}
        await self.app(scope, replay(converted, receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send,
                      error: WorkGymError) -> None:
        await self.render(error)(scope, receive, send)
