"""TRL (``GRPOTrainer(environment_factory=...)``, trl >= 1.16): a class per tool surface whose
public methods are the episode's tools. Does not import trl: only its interface is needed.

    from workgym.adapters.trl import environment_factory
    factory = environment_factory(["tracker/start-work-on-bug"])   # url=, api_key= for a server
    trainer = GRPOTrainer(model=..., train_dataset=dataset,         # rows: {"prompt", "task",
                          environment_factory=factory, ...)         #        "seed"?, "faults"?}

TRL builds a probe instance before any ``reset`` and reads the tools off the class, so they
are bound when the class is made, from the tasks' apps' OpenAPI (no episode is started).
Tasks whose apps differ need different classes: then ``environment_factory`` returns
``{name: class}`` and each row names its class in an ``environment`` column
(:func:`environment_name`).

``reset(**row)`` starts an episode of ``row["task"]`` (``seed``, ``faults`` if given) and
returns its brief and instruction (TRL appends them to the last user message); each tool
returns the app's answer as text; ``finish`` ends the episode and later calls answer that it
has ended; ``get_reward()`` scores the episode (finishing it if the model did not) and
returns the report's reward."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..session import Session
from .common import bind_tool, open_session, task_tools, tool_surface


class WorkGymToolEnv:
    """The tools-less base: :func:`environment_factory` makes the subclasses."""

    _url: str | None = None
    _api_key: str | None = None
    _brief: bool = True
    _tool_names: frozenset[str] = frozenset()

    def __init__(self) -> None:
        self._session: Session | None = None
        self._report: dict[str, Any] | None = None

    def reset(self, **row: Any) -> str:
        """Start an episode of ``row["task"]``; the text the model is given."""
        if "task" not in row:
            raise ValueError("a WorkGym row needs a 'task' column (and may have 'seed', "
                             "'faults')")
        if self._session is None:
            self._session = open_session(self._url, self._api_key)
        options = {"faults": row["faults"]} if row.get("faults") is not None else {}
        started = self._session.start(row["task"], int(row.get("seed") or 0), **options)
        self._report = None
        missing = {t["function"]["name"] for t in started["tools"]} - self._tool_names
        if missing:
            raise ValueError(f"task {row['task']!r} has tools this class lacks "
                             f"({sorted(missing)[:3]}...): give the row the environment "
                             f"of its tool surface (environment_name)")
        if self._brief:
            return f"{started['brief']}\n\n{started['instruction']}"
        return str(started["instruction"])

    def _forward(self, name: str, arguments: dict[str, Any]) -> str:
        if self._session is None:
            return "No task has started."
        return str(self._session.call_tool(name, arguments)["text"])

    def get_reward(self) -> float:
        """The episode's reward (scored once, finishing it if the model has not)."""
        if self._report is None:
            if self._session is None:
                return 0.0
            self._report = self._session.finish()
        return float(self._report["reward"])

    @property
    def report(self) -> dict[str, Any] | None:
        """The episode's reward report, once scored (a property: not a tool)."""
        return self._report


def environment_class(tools: list[dict[str, Any]], *, url: str | None = None,
                      api_key: str | None = None, brief: bool = True) -> type[WorkGymToolEnv]:
    """A :class:`WorkGymToolEnv` subclass with one method per tool of ``tools``."""
    cls = type(f"WorkGym_{tool_surface(tools).replace('+', '_')}", (WorkGymToolEnv,),
               {"__module__": __name__, "_url": url, "_api_key": api_key, "_brief": brief,
                "_tool_names": frozenset(t["function"]["name"] for t in tools)})
    for tool in tools:
        setattr(cls, tool["function"]["name"], bind_tool(tool, method=True))
    return cls


def environment_name(task: str, *, url: str | None = None, api_key: str | None = None) -> str:
    """The ``environment`` column of a row of ``task`` when the factory is a dict."""
    return tool_surface(task_tools(task, url=url, api_key=api_key))


def environment_factory(tasks: str | Iterable[str], *, url: str | None = None,
                        api_key: str | None = None, brief: bool = True
                        ) -> type[WorkGymToolEnv] | dict[str, type[WorkGymToolEnv]]:
    """TRL's ``environment_factory`` for rows of ``tasks``: one class when they share their
    tools, else ``{environment_name: class}``. ``url``/``api_key``: a WorkGym server (default:
    this process's in-process server). ``brief``: ``reset`` gives the episode's brief too."""
    names = [tasks] if isinstance(tasks, str) else list(tasks)
    surfaces: dict[str, list[dict[str, Any]]] = {}
    for task in names:
        tools = task_tools(task, url=url, api_key=api_key)
        surfaces.setdefault(tool_surface(tools), tools)
    classes = {name: environment_class(tools, url=url, api_key=api_key, brief=brief)
               for name, tools in surfaces.items()}
    return next(iter(classes.values())) if len(classes) == 1 else classes
