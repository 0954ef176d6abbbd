"""Finish scored in worker processes (workgym/gym/scoring.py): the same report as scoring in
the serving process; a worker that dies mid-score is replaced and the score retried, one that
dies again ends in ScoringFailed (the episode's infra_error), never a hang; 0 workers score
in a thread."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from workgym.agents import AGENTS
from workgym.gym.scoring import Scorer, Scoring, ScoringFailed
from workgym.local import LocalServer
from workgym.sdk import Env
from workgym.tasks import Catalogue, catalogue
from workgym_core.settings import Settings
from workgym_reward import Report

TASK = "checkout/refund-returned-order"


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    server = LocalServer(Settings(data_dir=tmp_path_factory.mktemp("workgym"),
                                  internal_secret="test-secret", scoring_workers=1))
    yield server
    server.close()


def _played(local: LocalServer, seed: int) -> tuple[Env, Scoring, bytes]:
    """An episode the reference solution played, not finished: what scoring it takes, and
    its initial state."""
    task = catalogue().get(TASK)
    env = Env.inprocess(local, TASK, seed=seed)
    env.reset()
    AGENTS["reference"](env, task)
    assert env.observation is not None and local.server.registry is not None
    episode_id = env.observation.episode_id
    episode = local.server.replicas["checkout"].state.store.get(episode_id)
    recorded = local.run(local.server.registry.recorded_steps(episode_id))
    record = local.run(local.server.registry.get(episode_id))
    scoring = Scoring(task=TASK, finals={"checkout": episode.state()},
                      keys={"checkout": episode.snapshot_key}, recorded=recorded,
                      answer=None, vars=record.vars)
    return env, scoring, episode.initial


def _in_process(scoring: Scoring, initial: bytes) -> Report:
    return scoring.score(catalogue(), {"checkout": initial})


def _scored(scorer: Scorer, scoring: Scoring, initial: bytes) -> Report:
    async def fetch(apps: Sequence[str]) -> dict[str, bytes]:
        return {app: initial for app in apps}

    async def run() -> Report:
        with anyio.fail_after(120):  # a hang fails the test
            return await scorer.score(scoring, fetch)

    return anyio.run(run)


def _fields(report: Report | dict[str, Any]) -> tuple[Any, ...]:
    found = report.model_dump() if isinstance(report, Report) else report
    return (found["reward"], found["success"], found["final_state_hash"], found["assertions"],
            found["signals"])


def test_a_worker_scores_as_the_serving_process_does(local: LocalServer) -> None:
    assert local.server.scorer is not None and local.server.scorer.workers == 1
    for _ in range(2):  # the worker is sent the initial state, then holds it by its key
        env, scoring, initial = _played(local, seed=3)
        expected = _in_process(scoring, initial)
        report = env.finish()
        assert "infra_error" not in report
        assert _fields(report) == _fields(expected) and expected.reward == 1.0
        env.close()


@dataclasses.dataclass(frozen=True, slots=True)
class Dies(Scoring):
    """Scoring whose worker process dies (killed mid-score) while ``marker`` is absent, or
    every time (``once`` False)."""

    marker: str = ""
    once: bool = True

    def score(self, tasks: Catalogue, initials: dict[str, bytes]) -> Report:
        if not self.once or not Path(self.marker).exists():
            Path(self.marker).touch()
            os._exit(1)
        return super(Dies, self).score(tasks, initials)


def test_a_worker_killed_mid_score_is_replaced_and_the_score_retried(
        local: LocalServer, tmp_path: Path) -> None:
    env, scoring, initial = _played(local, seed=4)
    expected = _in_process(scoring, initial)
    scorer = Scorer(1, catalogue(), ())
    try:
        dies_once = Dies(**{f.name: getattr(scoring, f.name)
                            for f in dataclasses.fields(Scoring)},
                         marker=str(tmp_path / "died"))
        assert _fields(_scored(scorer, dies_once, initial)) == _fields(expected)
        assert (tmp_path / "died").exists()

        always = dataclasses.replace(dies_once, once=False)
        with pytest.raises(ScoringFailed, match="worker process died twice"):
            _scored(scorer, always, initial)
        # The pool was replaced again: the next episode is scored.
        assert _fields(_scored(scorer, scoring, initial)) == _fields(expected)
    finally:
        anyio.run(scorer.aclose)
        env.close()


def test_no_workers_scores_in_a_thread(local: LocalServer) -> None:
    env, scoring, initial = _played(local, seed=5)
    scorer = Scorer(0, catalogue(), ())
    assert _fields(_scored(scorer, scoring, initial)) == _fields(_in_process(scoring, initial))
    assert scorer._pool is None  # no process started
    env.close()


def test_the_workers_start_with_the_first_episode_not_its_finish() -> None:
    scorer = Scorer(1, catalogue(), ())
    scorer.warm()  # as the first create does: returns at once, the worker starting
    pool = scorer._pool
    assert pool is not None and len(pool._processes) == 1
    scorer.warm()  # once
    assert scorer._pool is pool and len(pool._processes) == 1
    anyio.run(scorer.aclose)


def test_the_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings(data_dir=tmp_path).scoring_processes == (os.cpu_count() or 1)
    monkeypatch.setenv("WORKGYM_SCORING_WORKERS", "0")
    assert Settings(data_dir=tmp_path).scoring_processes == 0
    monkeypatch.setenv("WORKGYM_SCORING_WORKERS", "-1")
    with pytest.raises(ValueError, match="scoring_workers"):
        Settings(data_dir=tmp_path)
