"""Episode lifecycle: create (place + reset), look up, finish (score), delete."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import anyio
import orjson
from pydantic import ValidationError

from workgym_proxy.faults import PLUGINS, resolve_plan
from workgym_reward import score

from ..placement import Placement
from ..registry import FINISHED, FINISHING, LOST, EpisodeRecord, Registry, lost_error
from ..runtime import observability as obs
from ..runtime.errors import Conflict, InvalidRequest, NotFound, UpstreamError, WorkGymError
from ..runtime.settings import Settings
from ..tasks import Catalogue
from ..tools import ToolCatalogue
from .models import EpisodeCreate, EpisodeCreated, EpisodeView
from .replica_client import ReplicaClient


def plan_for(choice: str | list[Any], task_plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fault plan an episode gets; a bad custom plan is a 422 naming the field."""
    try:
        return resolve_plan(choice, task_plan)
    except ValidationError as exc:
        first = exc.errors()[0]
        # pydantic puts the union's tag (the fault kind) after the index: not a field name.
        loc = list(first["loc"])
        if len(loc) > 1 and isinstance(loc[0], int) and loc[1] in PLUGINS:
            del loc[1]
        path = [str(p) for p in loc]
        if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
            path.append("kind")  # the missing or unknown fault kind
        field = ".".join(["faults", *path])
        raise InvalidRequest(f"field '{field}': {first['msg']}", code="validation_error",
                             field=field, rule=first["type"]) from exc


# Instances tried for one new episode before giving up (a dead one is evicted and skipped).
PLACEMENT_ATTEMPTS = 3


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class EpisodeService:
    def __init__(self, *, settings: Settings, registry: Registry, catalogue: Catalogue,
                 replicas: ReplicaClient, instances: dict[str, str]) -> None:
        self.settings = settings
        self.registry = registry
        self.catalogue = catalogue
        self.replicas = replicas
        self.instances = instances
        self.placement = Placement(registry.redis, instances)
        self._tools: dict[str, ToolCatalogue] = {}
        self._openapi: dict[str, dict[str, Any]] = {}
        self.metrics = obs.Metrics()

    def instance(self, app: str) -> str:
        """The app's configured URL (any of its instances serves the same OpenAPI document);
        episodes are placed per instance by :attr:`placement`."""
        try:
            return self.instances[app]
        except KeyError:
            raise NotFound(f"no app '{app}'", code="app_not_found", field="app") from None

    async def openapi(self, app: str) -> dict[str, Any]:
        document = self._openapi.get(app)
        if document is None:
            document = await self.replicas.openapi(self.instance(app))
            self._openapi[app] = document
        return document

    async def tools(self, app: str) -> ToolCatalogue:
        catalogue = self._tools.get(app)
        if catalogue is None:
            catalogue = ToolCatalogue.from_openapi(app, await self.openapi(app))
            self._tools[app] = catalogue
        return catalogue

    @staticmethod
    def public_apps(record_apps: dict[str, str], base_url: str) -> dict[str, str]:
        return {app: f"{base_url}/apps/{app}" for app in record_apps}

    async def create(self, body: EpisodeCreate, base_url: str) -> EpisodeCreated:
        with obs.span("episode.create", {"workgym.task": body.task,
                                         "workgym.seed": body.seed}) as span:
            created = await self._create(body, base_url)
            span.set_attribute("workgym.episode_id", created.id)
        self.metrics.episodes_created.add(1, {"task": created.task})
        return created

    async def _create(self, body: EpisodeCreate, base_url: str) -> EpisodeCreated:
        task = self.catalogue.get(body.task)
        faults = plan_for(body.faults, task.faults)
        episode_id, token, refresh_token = self.registry.new_identity()
        ttl = self.settings.episode_ttl_s
        for attempt in range(PLACEMENT_ATTEMPTS):
            instance = await self.placement.place(task.app)
            try:
                created = await self.replicas.create_episode(
                    instance, episode_id=episode_id, seed=body.seed, setup=task.setup,
                    script=task.script, ttl_s=ttl,
                )
                break
            except WorkGymError as error:
                # An instance that died since its last heartbeat: place on another one.
                if error.code != "episode_lost":
                    raise
                await self.placement.evict(task.app, instance)
                if attempt == PLACEMENT_ATTEMPTS - 1:
                    raise UpstreamError(f"no reachable {task.app} instance: {error.message}",
                                        code="replica_unavailable") from error
        record = await self.registry.create(
            episode_id=episode_id, token=token, refresh_token=refresh_token, task=task.id,
            seed=body.seed, max_steps=task.max_steps, apps={task.app: instance},
            vars=created["vars"], faults=faults, ttl_s=ttl,
        )
        return EpisodeCreated(
            id=episode_id, token=token, refresh_token=refresh_token, task=task.id, seed=body.seed,
            instruction=task.instruction, apps=self.public_apps(record.apps, base_url),
            tools=(await self.tools(task.app)).schemas(), max_steps=record.max_steps,
            expires_at=_iso(record.expires_at),
        )

    def view(self, record: EpisodeRecord, base_url: str) -> EpisodeView:
        return EpisodeView(
            id=record.id, task=record.task, seed=record.seed, status=record.status,
            steps=record.steps, max_steps=record.max_steps,
            apps=self.public_apps(record.apps, base_url),
            created_at=_iso(record.created_at), expires_at=_iso(record.expires_at),
            report=record.report,
        )

    async def finish(self, record: EpisodeRecord, answer: str | None) -> dict[str, Any]:
        with obs.span("episode.finish", {"workgym.episode_id": record.id,
                                         "workgym.task": record.task}) as span:
            result = await self._finish(record, answer)
            if span.is_recording():
                span.set_attributes({"workgym.reward": result["reward"],
                                     "workgym.success": result["success"],
                                     "workgym.report": orjson.dumps(result).decode()})
        return result

    async def _finish(self, record: EpisodeRecord, answer: str | None) -> dict[str, Any]:
        previous = await self.registry.claim_finish(record.id)
        if previous == FINISHED:
            return (await self.registry.get(record.id)).report or {}
        if previous == LOST:
            raise lost_error()
        if previous == FINISHING:
            raise Conflict("this episode is already being finished", code="finish_in_progress")
        task = self.catalogue.get(record.task)
        instance = record.apps[task.app]
        trajectory = await self.registry.trajectory(record.id)
        try:
            initial = await self.replicas.state(instance, record.id, "initial")
            final = await self.replicas.state(instance, record.id, "final")
        except WorkGymError as error:
            raise await self._lost(record.id, error) from error
        with obs.span("reward.score", {"workgym.episode_id": record.id}):
            report = await anyio.to_thread.run_sync(lambda: score(
                verifier=task.verifier, initial=initial, final=final, trajectory=trajectory,
                answer=answer, vars=record.vars, reference_steps=task.reference_steps,
            ))
        result = {"episode_id": record.id, "task": record.task, "seed": record.seed,
                  "answer": answer, **report.model_dump()}
        if self.settings.telemetry_url:
            result["episode_page"] = f"{self.settings.telemetry_url}/episodes/{record.id}"
        self.metrics.episodes_finished.add(1, {"task": record.task})
        self.metrics.reward.record(report.reward, {"task": record.task})
        await self.registry.store_report(record.id, result, self.settings.episode_ttl_s)
        await self.replicas.delete_episode(instance, record.id)
        return result

    async def _lost(self, episode_id: str, error: WorkGymError) -> WorkGymError:
        """``error`` from the episode's replica instance; when the instance is gone (or no
        longer holds the episode: it restarted), the episode is marked lost and the error
        is ``episode_lost``."""
        if error.code not in ("episode_lost", "episode_not_found"):
            return error
        await self.registry.mark_lost(episode_id)
        if error.code == "episode_lost":  # unreachable: place no new episode there
            for app, instance in (await self.registry.get(episode_id)).apps.items():
                await self.placement.evict(app, instance)
        return lost_error()

    async def delete(self, record: EpisodeRecord) -> None:
        for instance in record.apps.values():
            try:
                await self.replicas.delete_episode(instance, record.id)
            except WorkGymError as error:
                if error.code != "episode_lost":  # a lost instance holds nothing to reclaim
                    raise
        await self.registry.delete(record.id)
