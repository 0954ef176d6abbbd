"""The gym API's calls to replicas' internal /_env routes."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import orjson

from workgym_core.errors import ReplicaUnreachable, ServiceUnavailable, from_wire
from workgym_core.internal import INTERNAL_HEADER, INTERNAL_PREFIX

log = logging.getLogger("workgym.gym")


class ReplicaClient:
    def __init__(self, http: httpx.AsyncClient, secret: str) -> None:
        self.http = http
        self.headers = {INTERNAL_HEADER: secret}

    async def _call(self, method: str, url: str, *, episode: bool = True,
                    **kwargs: Any) -> httpx.Response:
        """``episode``: the call is about one episode, which an unreachable instance has lost
        (ReplicaUnreachable); otherwise the app is just unavailable for now (503). A refusal
        is the replica's own error, typed (``from_wire``), with its Retry-After."""
        try:
            response = await self.http.request(method, url, headers=self.headers, **kwargs)
        except httpx.HTTPError as exc:
            log.warning("replica at %s unreachable: %r", url, exc)
            if not episode:
                raise ServiceUnavailable("the app's server is unreachable; retry shortly",
                                         code="app_unavailable", retry_after_s=2) from exc
            raise ReplicaUnreachable() from exc
        if response.status_code >= 400:
            log.warning("replica refused %s %s: %s %s", method, url, response.status_code,
                        response.text[:300])
            try:
                body = orjson.loads(response.content)
            except orjson.JSONDecodeError:
                body = None
            error = from_wire(response.status_code, body)
            if retry := response.headers.get("retry-after"):
                error.headers = {"retry-after": retry}
            raise error
        return response

    async def create_episode(self, base: str, **body: Any) -> dict[str, Any]:
        response = await self._call("POST", f"{base}{INTERNAL_PREFIX}/episodes", json=body)
        return orjson.loads(response.content)  # type: ignore[no-any-return]

    async def state(self, base: str, episode_id: str, which: str) -> bytes:
        url = f"{base}{INTERNAL_PREFIX}/episodes/{episode_id}/state/{which}"
        return (await self._call("GET", url)).content

    async def schema(self, base: str) -> dict[str, list[str]]:
        response = await self._call("GET", f"{base}{INTERNAL_PREFIX}/schema", episode=False)
        return orjson.loads(response.content)  # type: ignore[no-any-return]

    async def delete_episode(self, base: str, episode_id: str) -> None:
        await self._call("DELETE", f"{base}{INTERNAL_PREFIX}/episodes/{episode_id}")

    async def openapi(self, base: str) -> dict[str, Any]:
        return orjson.loads(
            (await self._call("GET", f"{base}/openapi.json", episode=False)).content)  # type: ignore[no-any-return]
