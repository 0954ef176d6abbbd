"""One session protocol every trainer and harness adapter speaks (README, "Plug into a
trainer")::

    session = Session.inprocess()                # or Session.connect(url, api_key=...)
    start = session.start("helpdesk/refund-standard", seed=7)
    # {"episode_id", "instruction", "brief", "tools": [OpenAI function schemas + finish]}
    session.call_tool("helpdesk_list_tickets", {"per_page": 5})  # {"text", "finished": False}
    session.call_tool("finish", {"answer": "Refunded $29.00"})   # {"text", "finished": True}
    session.finish()                             # the reward report (once: the same again)
    session.close()

``call_tool`` never raises for anything a model can get wrong: an unknown tool, arguments
that do not fit its schema, an app's refusal, a dropped connection, a call after the
episode ended are all text the model reads (``error: true``). Its result is the SDK's
``Env.call_tool``'s (``{"text", "error", "finished", "status", "body", "not_sent"}``, one
implementation; ``not_sent``: why a call never reached an app, :data:`workgym.tools.NOT_SENT`).
Only the harness's own mistakes raise (``call_tool`` before ``start``), a gym API that
does not answer (``workgym.errors.Unreachable``), and the model playing the episode's people
failing (``UserModelFailed``: an infrastructure failure, ``--user``). ``row`` keys from a
dataset row are taken as the episode's options (``faults``), the rest refused, so a typo in a
dataset is an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .sdk import Env, FaultChoice, connect
from .tools import AFTER_END, ENDED, FINISH, FINISH_TOOL, TASK_ENDED, said

if TYPE_CHECKING:
    from .local import LocalServer

ROW_OPTIONS = frozenset({"faults"})


class Session:
    """A harness's handle on one episode at a time (see the module docstring)."""

    def __init__(self, make: Any) -> None:
        self._make = make  # (task, seed, faults) -> Env
        self._env: Env | None = None
        self._report: dict[str, Any] | None = None
        self._answer: str | None = None
        self._ended = False

    @classmethod
    def inprocess(cls, server: LocalServer | None = None) -> Session:
        """Sessions on ``server``, by default this process's in-process server (started on
        first use)."""
        from .local import local_server

        found = server or local_server()
        return cls(lambda task, seed, faults: Env.inprocess(found, task, seed, faults))

    @classmethod
    def connect(cls, url: str, *, api_key: str | None = None) -> Session:
        """Sessions on a WorkGym server over HTTP."""
        return cls(lambda task, seed, faults: connect(url, task, seed, faults=faults,
                                                      api_key=api_key))

    @classmethod
    def attach(cls, env: Env) -> Session:
        """A session over ``env``'s episode, already reset (an agent's view: ``call_tool``,
        then ``answer``; the caller finishes the episode)."""
        if env.observation is None:
            raise RuntimeError("the environment has no episode: reset it first")
        session = cls(None)
        session._env = env
        return session

    def start(self, task: str, seed: int = 0, **row: Any) -> dict[str, Any]:
        """A fresh episode of ``task`` (the previous one, if unfinished, is dropped)."""
        unknown = sorted(set(row) - ROW_OPTIONS)
        if unknown:
            raise ValueError(f"unknown session options {unknown}: only {sorted(ROW_OPTIONS)}")
        faults: FaultChoice = row.get("faults", "task")
        self.close()
        self._env = self._make(task, seed, faults)
        obs = self._env.reset()
        self._report, self._answer, self._ended = None, None, False
        return {"episode_id": obs.episode_id, "instruction": obs.instruction,
                "brief": obs.brief, "tools": [*obs.tools, FINISH_TOOL],
                "max_steps": obs.max_steps}

    def fork(self) -> Session:
        """A new session on a fork of this episode (``Env.fork``): the same world, clock,
        steps, actors and faults, and what the model said with ``finish`` so far; the two
        then diverge (the model's conversation is the caller's to copy)."""
        session = Session(self._make)
        session._env = self.env.fork()
        session._answer, session._ended = self._answer, self._ended
        return session

    @property
    def env(self) -> Env:
        if self._env is None:
            raise RuntimeError("no episode: call start() first")
        return self._env

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
        """One tool call, its outcome as text (never an exception: see the module doc):
        ``finish`` here, every other tool through the SDK's ``Env.call_tool``."""
        env, arguments = self.env, {} if arguments is None else arguments
        if self._ended:
            return said(ENDED, error=True, finished=True, not_sent=AFTER_END)
        if name == FINISH:
            answer = arguments.get("answer") if isinstance(arguments, dict) else None
            self._answer = answer if isinstance(answer, str) else None
            self._ended = True
            return said(TASK_ENDED, finished=True)
        return env.call_tool(name, arguments)

    @property
    def answer(self) -> str | None:
        """What the model said with the ``finish`` tool, if it has."""
        return self._answer

    @property
    def finished(self) -> bool:
        """Whether the model has called ``finish`` (or the episode was scored)."""
        return self._ended

    def finish(self, answer: str | None = None) -> dict[str, Any]:
        """The episode's reward report (scored once; later calls return it again)."""
        if self._report is None:
            self._ended = True
            self._report = self.env.finish(answer if answer is not None else self._answer)
        return self._report

    def close(self) -> None:
        """Drop an unfinished episode and let go of its client."""
        if self._env is not None:
            self._env.close()
            self._env = None
