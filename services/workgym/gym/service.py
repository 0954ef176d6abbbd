"""Episode lifecycle: create (admit + place + reset), fork, look up, finish (score), delete."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from pydantic import ValidationError

from workgym_core import credentials, spans
from workgym_core import observability as obs
from workgym_core.chat import UserModelUnavailable
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
    ACTIVE,
    FINISHED,
    FINISHING,
    LOST,
    RESTARTED,
    UNREACHABLE,
    EpisodeRecord,
    Identity,
    Quota,
    Registry,
    lost_error,
)
from workgym_core.rowops import check_schema, parse_ops
from workgym_core.settings import Settings
from workgym_core.timestamps import iso
from workgym_proxy.faults import PLUGINS, resolve_plan
from workgym_reward import Report

from ..placement import Placement
from ..presets import fault_presets
from ..tasks import Catalogue, Task
from ..tools import ToolCatalogue
from .models import EpisodeCreate, EpisodeCreated, EpisodeForked, EpisodeStatus, EpisodeView
from .replica_client import ReplicaClient
from .scoring import Scorer, Scoring, ScoringFailed
from .toolsets import ToolSet

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
        return resolve_plan(choice, task_plan, fault_presets())
    except ValidationError as exc:
        raise _invalid_plan(exc) from exc


def _user_model_failed(recorded: Sequence[str]) -> str | None:
    """The infra error of an episode whose people's model failed on one of its ``recorded``
    steps (UserModelUnavailable refused the write it was to answer), else None."""
    for raw in recorded:
        step = orjson.loads(raw)
        if step.get("error_code") == UserModelUnavailable.code:
            said = step.get("response_body")
            detail = said.get("description") if isinstance(said, dict) else None
            return f"user model unavailable: {detail or 'at step ' + str(step.get('index'))}"
    return None


# Instances tried for one new episode before giving up (a dead one is evicted and skipped).
PLACEMENT_ATTEMPTS = 3
# Copies of a parent a fork makes before giving up, when the parent took a step during each.
FORK_ATTEMPTS = 3


def _iso(ts: float) -> str:
    return iso(datetime.fromtimestamp(ts, UTC))


class EpisodeService:
    def __init__(self, *, settings: Settings, registry: Registry, catalogue: Catalogue,
                 replicas: ReplicaClient, apps: Collection[str],
                 instances: dict[str, str], scorer: Scorer,
                 local: Collection[str] = ()) -> None:
        self.settings = settings
        self.registry = registry
        self.catalogue = catalogue.serving(apps)
        self.replicas = replicas
        self.scorer = scorer
        self.placement = Placement(registry.redis, apps, instances, local)
        self._tools: dict[str, ToolCatalogue] = {}
        self._toolsets: dict[tuple[str, ...], ToolSet] = {}
        # Replaced episodes' state being reclaimed from their replicas (after the answer).
        self._reclaiming: set[asyncio.Task[None]] = set()
        self._openapi: dict[str, dict[str, Any]] = {}
        self._schemas: dict[str, dict[str, list[str]]] = {}
        self.metrics = obs.Metrics()

    async def openapi(self, app: str) -> dict[str, Any]:
        """The app's agent-facing OpenAPI document (any of its instances serves the same)."""
        document = self._openapi.get(app)
        if document is None:
            document = await self.replicas.openapi(await self.placement.place(app))
            self._openapi[app] = document
        return document

    async def schema(self, app: str) -> dict[str, list[str]]:
        """The app's tables and columns, which fault plans' row operations must use."""
        found = self._schemas.get(app)
        if found is None:
            found = self._schemas[app] = await self.replicas.schema(
                await self.placement.place(app))
        return found

    async def tools(self, app: str) -> ToolCatalogue:
        catalogue = self._tools.get(app)
        if catalogue is None:
            catalogue = ToolCatalogue.from_openapi(app, await self.openapi(app))
            self._tools[app] = catalogue
        return catalogue

    async def checked_plan(self, apps: list[str], choice: str | list[Any],
                           task_plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``plan_for``, with every state_drift's row operations checked against the tables
        and columns of each app it may fire on (its target's, else every app of the episode):
        422 naming the fault, op and column."""
        plan = plan_for(choice, task_plan)
        for i, fault in enumerate(plan):
            target = (fault.get("target") or {}).get("app")
            if target is not None and target not in apps:
                raise InvalidRequest(f"faults[{i}] targets app '{target}', not one of this "
                                     f"episode's ({', '.join(apps)})", code="validation_error",
                                     field=f"faults.{i}.target.app", rule="episode_app")
            if fault["kind"] == "state_drift":
                for app in [target] if target else apps:
                    check_schema(parse_ops(fault["ops"]), await self.schema(app),
                                 field=f"faults.{i}.ops")
        return plan

    def public_apps(self, record_apps: dict[str, str]) -> dict[str, str]:
        """Where the agent reaches each app: the configured public URL, never a Host header."""
        base = self.settings.public_url.rstrip("/")
        return {app: f"{base}/apps/{app}" for app in record_apps}

    def public_roots(self, record_apps: dict[str, str]) -> dict[str, str]:
        """Where the agent reaches each app at the product's own base path, if anywhere."""
        roots = self.settings.app_roots()
        return {app: roots[app] for app in record_apps if app in roots}

    async def create(self, body: EpisodeCreate, owner: str) -> tuple[EpisodeCreated, ToolSet]:
        """A new episode, and its tools (the answer refers to them)."""
        with obs.span(spans.EPISODE_CREATE, {spans.TASK: body.task,
                                         spans.SEED: body.seed}) as span:
            created = await self._create(body, owner)
            span.set_attribute(spans.EPISODE_ID, created[0].id)
        self.metrics.episodes_created.add(1, {"task": created[0].task})
        return created

    async def _create(self, body: EpisodeCreate, owner: str) -> tuple[EpisodeCreated, ToolSet]:
        task = self.catalogue.get(body.task)
        faults = await self.checked_plan(task.apps, body.faults, task.faults)
        ttl = self.settings.episode_ttl_s
        identity = self.registry.new_identity(ttl)
        placed: dict[str, str] = {}
        try:
            bound = await self._world(task, identity.episode_id, body.seed, ttl, placed,
                                      body.user)
            # The quotas are checked as the record is written (one call): a refused episode's
            # worlds are dropped.
            record, held = await self.registry.create(
                identity, owner=owner, task=task.id, seed=body.seed,
                max_steps=self.settings.step_budget or task.max_steps,
                apps=placed, vars=bound, faults=faults, replaces=body.replaces,
                quota=self.quota(),
            )
        except BaseException:
            with contextlib.suppress(WorkGymError):  # the first failure is the one to tell
                await self._drop(identity.episode_id, placed)
            raise
        if held:
            self._reclaim_later(str(body.replaces), held)
        self.scorer.warm()
        answer, tools = await self._answer(identity, task, record)
        return EpisodeCreated(**answer), tools

    async def _answer(self, identity: Identity, task: Task,
                      record: EpisodeRecord) -> tuple[dict[str, Any], ToolSet]:
        """What a created (or forked) episode's answer says of it, and its tools."""
        tools = await self.toolset(task.apps)
        return {"id": identity.episode_id, "token": identity.token,
                "refresh_token": identity.refresh_token, "task": task.id, "seed": record.seed,
                "brief": task.brief, "instruction": task.instruction_for(record.vars),
                "apps": self.public_apps(record.apps), "roots": self.public_roots(record.apps),
                "tools_url": tools.path, "tools_etag": tools.etag, "max_steps": record.max_steps,
                "expires_at": _iso(identity.expires_at)}, tools

    def quota(self) -> Quota:
        """Each owner's quotas on the episodes it creates and forks."""
        return Quota(max_live=self.settings.max_live_episodes,
                     rate_per_s=self.settings.create_rate_per_s, burst=self.settings.create_burst)

    async def toolset(self, apps: Collection[str]) -> ToolSet:
        """The tools of an episode of ``apps`` (in their order), built and serialised once."""
        key = tuple(apps)
        found = self._toolsets.get(key)
        if found is None:
            found = self._toolsets[key] = ToolSet.of({app: await self.tools(app) for app in key})
        return found

    def served(self, apps: list[str]) -> list[str]:
        """``apps``, each once and each an app this server serves; else 404 naming it."""
        for i, app in enumerate(apps):
            if app not in self.placement.apps or app in apps[:i]:
                raise NotFound(f"no app '{app}' here (once each, of: "
                               f"{', '.join(sorted(self.placement.apps))})",
                               code="app_not_found", field="apps", rule="served_app")
        return apps

    def _reclaim_later(self, episode_id: str, placed: dict[str, str]) -> None:
        """Reclaim a replaced episode's state in its replicas once the new one is answered
        (the caller does not wait on it); a failure is logged."""
        async def reclaim() -> None:
            try:
                await self._drop(episode_id, placed)
            except Exception:
                log.exception("reclaiming replaced episode %s from its replicas", episode_id)

        task = asyncio.get_running_loop().create_task(reclaim())
        self._reclaiming.add(task)
        task.add_done_callback(self._reclaiming.discard)

    async def _world(self, task: Task, episode_id: str, seed: int, ttl: int,
                     placed: dict[str, str], user: str | None) -> dict[str, dict[str, Any]]:
        """One replica episode per app of the task, in its order, each set up with the rows
        the apps before it bound (``$app.name.field``); filled into ``placed`` as they are
        made (so a failure can drop them). Returns app -> its bound rows. ``user``: the
        model wording its people (EpisodeCreate.user), told to every app."""
        bound: dict[str, dict[str, Any]] = {}
        for app in task.apps:
            placed[app], created = await self._place(
                app, episode_id=episode_id, seed=seed, setup=task.setup_of(app),
                script=task.actors_of(app), others=dict(bound), ttl_s=ttl, apps=task.apps,
                user=user)
            bound[app] = created["vars"]
        return bound

    async def _drop(self, episode_id: str, placed: dict[str, str]) -> None:
        """Reclaim the episode's state in its replicas (a lost instance, or one that
        restarted, holds nothing to reclaim)."""
        for instance in placed.values():
            with contextlib.suppress(ReplicaUnreachable, EpisodeNotFound):
                await self.replicas.delete_episode(instance, episode_id)

    async def _place(self, app: str, **episode: Any) -> tuple[str, dict[str, Any]]:
        """The instance holding the app's part of a new episode, and what it answered."""
        for attempt in range(PLACEMENT_ATTEMPTS):
            instance = await self.placement.place(app)
            try:
                return instance, await self.replicas.create_episode(instance, **episode)
            except ReplicaUnreachable as error:
                # An instance that died since its last heartbeat: place on another one.
                await self.placement.evict(app, instance)
                if attempt == PLACEMENT_ATTEMPTS - 1:
                    raise ServiceUnavailable(f"no reachable {app} instance; retry shortly",
                                             code="replica_unavailable",
                                             retry_after_s=2) from error
        raise AssertionError("unreachable")

    async def fork(self, parent: EpisodeRecord) -> tuple[EpisodeForked, ToolSet]:
        """A new episode in the parent's state now: its apps' worlds, clocks, actors and
        memory (each on the parent's instance), its steps, trajectory and fault state; with
        tokens of its own, counted against the owner's quotas as a created one."""
        with obs.span(spans.EPISODE_FORK, {spans.EPISODE_ID: parent.id,
                                       spans.TASK: parent.task}) as span:
            forked, tools = await self._fork(parent)
            span.set_attribute(spans.FORK_ID, forked.id)
        self.metrics.episodes_created.add(1, {"task": forked.task})
        return forked, tools

    async def _fork(self, parent: EpisodeRecord) -> tuple[EpisodeForked, ToolSet]:
        if parent.status == LOST:
            raise lost_error(parent.lost_reason)
        if parent.status != ACTIVE:
            raise Conflict(f"episode is {parent.status}; only an active episode can be forked",
                           code="episode_finished")
        ttl = self.settings.episode_ttl_s
        identity = self.registry.new_identity(ttl)
        placed: dict[str, str] = {}
        try:
            # The quotas are checked as the record is copied (one call): a refused fork's
            # copies are dropped.
            steps = await self._copy(parent, identity, ttl, placed)
        except BaseException:
            with contextlib.suppress(WorkGymError):  # the first failure is the one to tell
                await self._drop(identity.episode_id, placed)
            raise
        answer, tools = await self._answer(identity, self.catalogue.get(parent.task), parent)
        return EpisodeForked(**answer, forked_from=parent.id, steps=steps), tools

    async def _copy(self, parent: EpisodeRecord, identity: Identity, ttl: int,
                    placed: dict[str, str]) -> int:
        """Copy the parent's episode in each of its instances (into ``placed``), then its
        record, between two of its steps: when it took one meanwhile, the copies are dropped
        and made again. Returns the steps the fork starts with."""
        steps, inflight = parent.steps, parent.inflight  # as read a moment ago
        for attempt in range(FORK_ATTEMPTS):
            if attempt:
                steps, inflight = await self.registry.progress(parent.id)
            if inflight:  # as finish does: the requests admitted are answered first
                if await self.registry.settled(parent.id, self.settings.finish_wait_s):
                    raise Conflict("the episode has requests in flight that were never "
                                   "recorded; it cannot be forked", code="episode_busy")
                continue
            try:
                for app, instance in parent.apps.items():
                    await self.replicas.fork_episode(instance, parent.id,
                                                     episode_id=identity.episode_id, ttl_s=ttl)
                    placed[app] = instance
            except WorkGymError as error:
                raise await self._lost(parent, error) from error
            if await self.registry.fork(parent.id, identity, steps=steps, owner=parent.owner,
                                        quota=self.quota()):
                return steps
            await self._drop(identity.episode_id, placed)
            placed.clear()
        raise Conflict("the episode took steps during each attempt to fork it; fork it "
                       "between its steps", code="fork_conflict")

    def view(self, record: EpisodeRecord, operator: bool) -> EpisodeView | EpisodeStatus:
        """The episode as its caller may see it: its agent, its status alone; its operator,
        also its task, seed and report."""
        status = EpisodeStatus(
            id=record.id, status=record.status, steps=record.steps, max_steps=record.max_steps,
            apps=self.public_apps(record.apps), roots=self.public_roots(record.apps),
            expires_at=_iso(record.expires_at),
            lost_reason=record.lost_reason or None)
        if not operator:
            return status
        return EpisodeView(**status.model_dump(), task=record.task, seed=record.seed,
                           created_at=_iso(record.created_at), report=record.report)

    async def finish(self, record: EpisodeRecord, answer: str | None) -> dict[str, Any]:
        with obs.span(spans.EPISODE_FINISH, {spans.EPISODE_ID: record.id,
                                         spans.TASK: record.task}) as span:
            result = await self._finish(record, answer)
            if span.is_recording():
                span.set_attributes({spans.REWARD: result["reward"],
                                     spans.SUCCESS: result["success"],
                                     spans.REPORT: orjson.dumps(result).decode()})
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
            # Ours failed transiently (Redis, a replica instance), not the agent: the episode
            # stays open to be finished again (a lost replica instance marked it lost, which
            # reopening leaves as it is). The scorer's own failures end it (infra_error).
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
        recorded = await self.registry.recorded_steps(record.id)  # settled above
        finals: dict[str, bytes] = {}
        keys: dict[str, str | None] = {}
        try:
            for app, instance in record.apps.items():
                finals[app], keys[app] = await self.replicas.state(instance, record.id, "final")
        except WorkGymError as error:
            raise await self._lost(record, error) from error
        # Everything the scorer needs but initial states it lacks is gathered: a failure of
        # its own is on this episode's state, which no retry changes. The episode ends with a
        # report that says so; as does one whose people's model failed (a write refused).
        infra_error = _user_model_failed(recorded)
        with obs.span(spans.REWARD_SCORE, {spans.EPISODE_ID: record.id}):
            try:
                report = await self.scorer.score(
                    Scoring(task=task.id, finals=finals, keys=keys, recorded=recorded,
                            answer=answer, vars=record.vars),
                    lambda apps: self._initials(record, apps))
            except ScoringFailed as failed:
                log.error("scoring %s (%s, seed %s) failed", record.id, record.task,
                          record.seed, exc_info=failed.__cause__)
                infra_error = infra_error or str(failed)
                report = Report(success=False, reward=0.0, signals={}, assertions=[],
                                steps=len(recorded), final_state_hash="")
        result: dict[str, Any] = {"episode_id": record.id, "task": record.task,
                                  "seed": record.seed,
                                  "instruction": task.instruction_for(record.vars),
                                  "answer": answer, **report.model_dump()}
        if infra_error:
            result["infra_error"] = infra_error
        if unrecorded:
            result["unrecorded_steps"] = unrecorded
        if self.settings.telemetry_url:
            result["episode_page"] = credentials.page_link(
                self.settings.telemetry_url, self.settings.api_key, record.id,
                int(time.time()) + self.settings.link_ttl_s)
        result = credentials.sign_report(self.settings.api_key, result)
        outcome = "infra_error" if infra_error else (
            "harm" if report.harm else ("success" if report.success else "failure"))
        self.metrics.episodes_finished.add(1, {"task": record.task, "outcome": outcome})
        if outcome in ("success", "failure"):  # harm (negative) and infra errors: by outcome
            self.metrics.reward.record(report.reward, {"task": record.task})
        await self.registry.store_report(record.id, result, self.settings.episode_ttl_s)
        await self._drop(record.id, record.apps)
        return result

    async def _initials(self, record: EpisodeRecord, apps: Sequence[str]) -> dict[str, bytes]:
        """The initial states of these apps of the episode (a replica instance gone: the
        episode is lost)."""
        found = {}
        try:
            for app in apps:
                found[app], _ = await self.replicas.state(record.apps[app], record.id,
                                                          "initial")
        except WorkGymError as error:
            raise await self._lost(record, error) from error
        return found

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
        await self._drop(record.id, record.apps)
        await self.registry.delete(record.id)
        await self.registry.release(record.owner, record.id)
