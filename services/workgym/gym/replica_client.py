"""The gym API's calls to replicas' internal /_env routes, through the same upstream as the
proxy's (in-process replicas called directly, others over the network)."""

from __future__ import annotations

import logging
from typing import Any

import orjson

from workgym_core.errors import ReplicaUnreachable, ServiceUnavailable, from_wire
from workgym_core.internal import INTERNAL_HEADER, INTERNAL_PREFIX, SNAPSHOT_HEADER
from workgym_proxy.upstream import Upstream

log = logging.getLogger("workgym.gym")


class ReplicaClient:
    def __init__(self, upstream: Upstream, secret: str) -> None:
        self.upstream = upstream
        self.headers = [(INTERNAL_HEADER.encode(), secret.encode())]

    async def _call(self, method: str, url: str, *, episode: bool = True,
                    json: Any = None) -> bytes:
        return (await self._exchange(method, url, episode=episode, json=json))[1]

    async def _exchange(self, method: str, url: str, *, episode: bool = True,
                        json: Any = None) -> tuple[list[tuple[bytes, bytes]], bytes]:
        """The body of the replica's answer. ``episode``: the call is about one episode,
        which an unreachable instance has lost (ReplicaUnreachable); otherwise the app is just
        unavailable for now (503). A refusal is the replica's own error, typed
        (``from_wire``), with its Retry-After."""
        headers, body = self.headers, b""
        if json is not None:
            headers, body = [*headers, (b"content-type", b"application/json")], orjson.dumps(json)
        try:
            status, received, content = await self.upstream.request(method, url, headers, body)
        except ReplicaUnreachable as exc:
            if not episode:
                raise ServiceUnavailable("the app's server is unreachable; retry shortly",
                                         code="app_unavailable", retry_after_s=2) from exc
            raise
        if status >= 400:
            log.warning("replica refused %s %s: %s %r", method, url, status, content[:300])
            try:
                parsed = orjson.loads(content)
            except orjson.JSONDecodeError:
                parsed = None
            error = from_wire(status, parsed)
            if retry := next((v for k, v in received if k == b"retry-after"), None):
                error.headers = {"retry-after": retry.decode("latin-1")}
            raise error
        return received, content

    async def create_episode(self, base: str, **body: Any) -> dict[str, Any]:
        content = await self._call("POST", f"{base}{INTERNAL_PREFIX}/episodes", json=body)
        created: dict[str, Any] = orjson.loads(content)
        return created

    async def fork_episode(self, base: str, source_id: str, **body: Any) -> None:
        await self._call("POST", f"{base}{INTERNAL_PREFIX}/episodes/{source_id}/fork",
                         json=body)

    async def state(self, base: str, episode_id: str, which: str) -> tuple[bytes, str | None]:
        """The episode's initial or final state (a serialized database) and the key of the
        snapshot its initial state is (None from a replica that names none)."""
        url = f"{base}{INTERNAL_PREFIX}/episodes/{episode_id}/state/{which}"
        received, content = await self._exchange("GET", url)
        key = next((v for k, v in received if k == SNAPSHOT_HEADER.encode()), None)
        return content, None if key is None else key.decode("latin-1")

    async def schema(self, base: str) -> dict[str, list[str]]:
        content = await self._call("GET", f"{base}{INTERNAL_PREFIX}/schema", episode=False)
        tables: dict[str, list[str]] = orjson.loads(content)
        return tables

    async def delete_episode(self, base: str, episode_id: str) -> None:
        await self._call("DELETE", f"{base}{INTERNAL_PREFIX}/episodes/{episode_id}")

    async def openapi(self, base: str) -> dict[str, Any]:
        document: dict[str, Any] = orjson.loads(
            await self._call("GET", f"{base}/openapi.json", episode=False))
        return document
