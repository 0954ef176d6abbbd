"""The read API: recent episodes, an episode's spans and its timeline (the operator's; an
episode's timeline also opens with its signed link)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from . import timeline
from .auth import OperatorDep, ReaderDep
from .deps import StoreDep
from .errors import UnknownEpisode
from .models import EpisodeSummary, EpisodeTrace, Outcome, Span, Timeline
from .store import SpanStore

router = APIRouter(prefix="/v1", tags=["episodes"])

TaskQuery = Annotated[str | None, Query(description="Only episodes of this task.")]
OutcomeQuery = Annotated[Outcome | None, Query(description="Only finished episodes that "
                                                           "succeeded or failed.")]
LimitQuery = Annotated[int, Query(ge=1, le=1000, description="How many episodes, newest first.")]


def known_spans(store: SpanStore, episode_id: str, *, with_trace: bool = False) -> list[Span]:
    spans = store.episode_spans(episode_id, with_trace=with_trace)
    if not spans:
        raise UnknownEpisode(f"no spans of episode {episode_id!r} are stored",
                             field="episode_id")
    return spans


def episode_timeline(store: SpanStore, episode_id: str) -> Timeline:
    return timeline.build(episode_id, known_spans(store, episode_id))


@router.get("/episodes", operation_id="list_episodes",
            summary="Recent episodes: task, reward, success, start, duration, steps.")
def list_episodes(_: OperatorDep, store: StoreDep, task: TaskQuery = None,
                  outcome: OutcomeQuery = None, limit: LimitQuery = 50) -> list[EpisodeSummary]:
    return store.episodes(task=task, outcome=outcome, limit=limit)


@router.get("/episodes/{episode_id}/trace", operation_id="get_episode_trace",
            summary="Every span of an episode by start time, with parent ids.")
def get_episode_trace(_: OperatorDep, episode_id: str, store: StoreDep) -> EpisodeTrace:
    return EpisodeTrace(episode_id=episode_id,
                        spans=known_spans(store, episode_id, with_trace=True))


@router.get("/episodes/{episode_id}/timeline", operation_id="get_episode_timeline",
            summary="An episode's steps in order, faults, changes, reward and assertions.")
def get_episode_timeline(_: ReaderDep, episode_id: str, store: StoreDep) -> Timeline:
    return episode_timeline(store, episode_id)
