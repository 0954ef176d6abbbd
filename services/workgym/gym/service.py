"""Episode lifecycle: create (admit + place + reset), look up, finish (score), delete."""

from __future__ import annotations

import contextlib
import logging
from datetime import UTC, datetime
from typing import Any

import anyio
import orjson
from pydantic import ValidationError

from workgym_core import credentials
from workgym_core import observability as obs
from workgym_core.errors import (
    Conflict,
    EpisodeNotFound,
    InvalidRequest,
    NotFound,
    ReplicaUnreachable,
    ServiceUnavailable,
    WorkGymError,
)
from workgym_core.registry import (
    FINISHED,
    FINISHING,
    LOST,
    RESTARTED,
    UNREACHABLE,
    EpisodeRecord,
    Registry,
    lost_error,
)
from workgym_core.rowops import check_schema, parse_ops
from workgym_core.settings import Settings
from workgym_proxy.faults import PLUGINS, resolve_plan
from workgym_reward import score

from ..placement import Placement
from ..tasks import Catalogue
from ..tools import ToolCatalogue
from .models import EpisodeCreate, EpisodeCreated, EpisodeView
from .replica_client import ReplicaClient

log = logging.getLogger("workgym.gym")


# The tags of the plan's unions: pydantic puts one after a list index; it is no field name.
_TAGS = frozenset(PLUGINS) | {"insert", "update", "select"}


def _invalid_plan(exc: ValidationError) -> InvalidRequest:
    first = exc.errors()[0]
    loc = list(first["loc"])
    path = [str(p) for i, p in enumerate(loc)
            if not (i > 0 and isinstance(loc[i - 1], int) and p in _TAGS)]
    if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
        path.append(str(first.get("ctx", {}).get("discriminator", "kind")).strip("'"))
    field = ".".join(["faults", *path])
    return InvalidRequest(f"field '{field}': {first['msg']}", code="validation_error",
                          field=field, rule=first["type"])


def plan_for(choice: str | list[Any], task_plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fault plan an episode gets; a bad custom plan is a 422 naming the field."""
    try:
        return resolve_plan(choice, task_plan)
    except ValidationError as exc:
        raise _invalid_plan(exc) from exc


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
        self._schemas: dict[str, dict[str, list[str]]] = {}
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

    async def schema(self, app: str) -> dict[str, list[str]]:
        """The app's tables and columns, which fault plans' row operations must use."""
        found = self._schemas.get(app)
        if found is None:
            found = self._schemas[app] = await self.replicas.schema(self.instance(app))
        return found

    async def tools(self, app: str) -> ToolCatalogue:
        catalogue = self._tools.get(app)
        if catalogue is None:
            catalogue = ToolCatalogue.from_openapi(app, await self.openapi(app))
            self._tools[app] = catalogue
        return catalogue

    async def checked_plan(self, app: str, choice: str | list[Any],
                           task_plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``plan_for``, with every state_drift's row operations checked against the app's
        own tables and columns (422 naming the fault, op and column)."""
        plan = plan_for(choice, task_plan)
        for i, fault in enumerate(plan):
            if fault["kind"] == "state_drift":
                check_schema(parse_ops(fault["ops"]), await self.schema(app),
                             field=f"faults.{i}.ops")
        return plan

    def public_apps(self, record_apps: dict[str, str]) -> dict[str, str]:
        """Where the agent reaches each app: the configured public URL, never a Host header."""
        base = self.settings.public_url.rstrip("/")
        return {app: f"{base}/apps/{app}" for app in record_apps}

    async def create(self, body: EpisodeCreate, owner: str) -> EpisodeCreated:
        with obs.span("episode.create", {"workgym.task": body.task,
                                         "workgym.seed": body.seed}) as span:
            created = await self._create(body, owner)
            span.set_attribute("workgym.episode_id", created.id)
        self.metrics.episodes_created.add(1, {"task": created.task})
        return created

    async def _create(self, body: EpisodeCreate, owner: str) -> EpisodeCreated:
        task = self.catalogue.get(body.task)
        faults = await self.checked_plan(task.app, body.faults, task.faults)
        ttl = self.settings.episode_ttl_s
        identity = self.registry.new_identity(ttl)
        await self.registry.admit(owner, identity.episode_id, identity.expires_at,
                                  max_live=self.settings.max_live_episodes,
                                  rate_per_s=self.settings.create_rate_per_s,
                                  burst=self.settings.create_burst)
        try:
            instance, created = await self._place(task.app, identity.episode_id, body.seed,
                                                  task.setup, task.script, ttl)
            record = await self.registry.create(
                identity, owner=owner, task=task.id, seed=body.seed, max_steps=task.max_steps,
                apps={task.app: instance}, vars=created["vars"], faults=faults, ttl_s=ttl,
            )
        except BaseException:
            await self.registry.release(owner, identity.episode_id)
            raise
        return EpisodeCreated(
            id=identity.episode_id, token=identity.token, refresh_token=identity.refresh_token,
            task=task.id, seed=body.seed, instruction=task.instruction,
            apps=self.public_apps(record.apps), tools=(await self.tools(task.app)).schemas(),
            max_steps=record.max_steps, expires_at=_iso(record.expires_at),
        )

    async def _place(self, app: str, episode_id: str, seed: int, setup: list[dict[str, Any]],
                     script: dict[str, Any], ttl: int) -> tuple[str, dict[str, Any]]:
        """The instance holding the new episode, and what it answered."""
        for attempt in range(PLACEMENT_ATTEMPTS):
            instance = await self.placement.place(app)
            try:
                return instance, await self.replicas.create_episode(
                    instance, episode_id=episode_id, seed=seed, setup=setup, script=script,
                    ttl_s=ttl)
            except ReplicaUnreachable as error:
                # An instance that died since its last heartbeat: place on another one.
                await self.placement.evict(app, instance)
                if attempt == PLACEMENT_ATTEMPTS - 1:
                    raise ServiceUnavailable(f"no reachable {app} instance; retry shortly",
                                             code="replica_unavailable",
                                             retry_after_s=2) from error
        raise AssertionError("unreachable")

    def view(self, record: EpisodeRecord, operator: bool) -> EpisodeView:
        """The episode as its caller may see it: the report is the operator's alone."""
        return EpisodeView(
            id=record.id, task=record.task, seed=record.seed, status=record.status,
            steps=record.steps, max_steps=record.max_steps, apps=self.public_apps(record.apps),
            created_at=_iso(record.created_at), expires_at=_iso(record.expires_at),
            lost_reason=record.lost_reason or None, report=record.report if operator else None,
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
            raise lost_error(record.lost_reason)
        if previous == FINISHING:
            raise Conflict("this episode is already being finished", code="finish_in_progress")
        try:
            result = await self._score(record, answer)
        except BaseException:
            # Ours failed, not the agent: the episode stays open to be finished again (a lost
            # replica instance marked it lost, which reopening leaves as it is).
            if (await self.registry.get(record.id)).status == FINISHING:
                await self.registry.reopen(record.id)
            raise
        await self.registry.release(record.owner, record.id)
        return result

    async def _score(self, record: EpisodeRecord, answer: str | None) -> dict[str, Any]:
        # Requests admitted before the claim are still being answered: wait for their records.
        unrecorded = await self.registry.settled(record.id, self.settings.finish_wait_s)
        if unrecorded:
            log.error("finishing %s with %d request(s) admitted but never recorded",
                      record.id, unrecorded)
        task = self.catalogue.get(record.task)
        instance = record.apps[task.app]
        trajectory = await self.registry.trajectory(record.id)
        try:
            initial = await self.replicas.state(instance, record.id, "initial")
            final = await self.replicas.state(instance, record.id, "final")
        except WorkGymError as error:
            raise await self._lost(record, error) from error
        with obs.span("reward.score", {"workgym.episode_id": record.id}):
            report = await anyio.to_thread.run_sync(lambda: score(
                verifier=task.verifier, initial=initial, final=final, trajectory=trajectory,
                answer=answer, vars=record.vars, reference_steps=task.reference_steps,
            ))
        result: dict[str, Any] = {"episode_id": record.id, "task": record.task,
                                  "seed": record.seed, "answer": answer, **report.model_dump()}
        if unrecorded:
            result["unrecorded_steps"] = unrecorded
        if self.settings.telemetry_url:
            result["episode_page"] = credentials.page_link(
                self.settings.telemetry_url, self.settings.api_key, record.id)
        result = credentials.sign_report(self.settings.api_key, result)
        self.metrics.episodes_finished.add(1, {"task": record.task})
        self.metrics.reward.record(report.reward, {"task": record.task})
        await self.registry.store_report(record.id, result, self.settings.episode_ttl_s)
        await self.replicas.delete_episode(instance, record.id)
        return result

    async def _lost(self, record: EpisodeRecord, error: WorkGymError) -> WorkGymError:
        """``error`` from the episode's replica instance; when the instance is gone (or no
        longer holds the episode: it restarted), the episode is marked lost and the error
        is ``episode_lost``, with the reason."""
        if not isinstance(error, ReplicaUnreachable | EpisodeNotFound):
            return error
        reason = UNREACHABLE if isinstance(error, ReplicaUnreachable) else RESTARTED
        await self.registry.mark_lost(record.id, reason)
        await self.registry.release(record.owner, record.id)
        if isinstance(error, ReplicaUnreachable):  # place no new episode there
            for app, instance in record.apps.items():
                await self.placement.evict(app, instance)
        return lost_error(reason)

    async def delete(self, record: EpisodeRecord) -> None:
        for instance in record.apps.values():
            # A lost instance, or one that restarted, holds nothing to reclaim.
            with contextlib.suppress(ReplicaUnreachable, EpisodeNotFound):
                await self.replicas.delete_episode(instance, record.id)
        await self.registry.delete(record.id)
        await self.registry.release(record.owner, record.id)
