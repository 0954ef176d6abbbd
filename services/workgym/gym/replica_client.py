"""The gym API's calls to replicas' internal /_env routes."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from ..runtime.errors import UpstreamError, WorkGymError
from ..runtime.internal import INTERNAL_HEADER, INTERNAL_PREFIX


class ReplicaClient:
    def __init__(self, http: httpx.AsyncClient, secret: str) -> None:
        self.http = http
        self.headers = {INTERNAL_HEADER: secret}

    async def _call(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            response = await self.http.request(method, url, headers=self.headers, **kwargs)
        except httpx.HTTPError as exc:
            raise UpstreamError(f"replica at {url} unreachable: {exc}",
                                code="episode_lost") from exc
        if response.status_code >= 400:
            error = WorkGymError(f"replica refused {method} {url}: {response.text[:300]}")
            try:
                body = orjson.loads(response.content)["error"]
                error = WorkGymError(body["message"], code=body["code"],
                                     field=body.get("field"), rule=body.get("rule"))
            except (orjson.JSONDecodeError, KeyError, TypeError):
                pass
            error.status_code = response.status_code
            raise error
        return response

    async def create_episode(self, base: str, **body: Any) -> dict[str, Any]:
        response = await self._call("POST", f"{base}{INTERNAL_PREFIX}/episodes", json=body)
        return orjson.loads(response.content)  # type: ignore[no-any-return]

    async def state(self, base: str, episode_id: str, which: str) -> bytes:
        url = f"{base}{INTERNAL_PREFIX}/episodes/{episode_id}/state/{which}"
        return (await self._call("GET", url)).content

    async def delete_episode(self, base: str, episode_id: str) -> None:
        await self._call("DELETE", f"{base}{INTERNAL_PREFIX}/episodes/{episode_id}")

    async def openapi(self, base: str) -> dict[str, Any]:
        return orjson.loads((await self._call("GET", f"{base}/openapi.json")).content)  # type: ignore[no-any-return]
