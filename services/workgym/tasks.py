"""The task catalogue: task suites are data under ``tasks/<suite>/<name>.yaml``.

A task's id is derived from its file (``helpdesk/refund-partial``), its suite from its
folder, its apps from the suite when the suite is an app (a cross-app suite lists them:
``apps: [helpdesk, checkout]``), and its reference step count from its reference solution,
so none of them is written twice. Agents see :class:`TaskSummary` / :class:`TaskDetail`
only: never the setup, verifier, scripted actors or reference solution.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

import workgym_tasks
from replicas.catalog import app_names, lexicon
from replicas.runtime.clock import WORLD_START
from replicas.runtime.spec import actors_model, read_allowances, read_brief
from workgym_core.errors import ConfigError, NotFound
from workgym_core.refs import resolve
from workgym_core.rowops import parse_ops
from workgym_core.settings import TaskRoots
from workgym_core.templates import render
from workgym_core.trajectory import TrajectoryStep
from workgym_proxy.faults import parse_plan
from workgym_reward import Report, Verifier, score
from workgym_reward.assertions import Allow, OnlyChanges

from . import task_files
from .browser_steps import BrowserSolution
from .given import Script
from .task_files import TaskFileError

# The catalogue is package data: package ``workgym_tasks`` is the checkout's tasks/ (through
# the services/workgym_tasks link, for a checkout, an editable install and a wheel alike).
TASKS_DIR = Path(next(iter(workgym_tasks.__path__))).resolve()


class Call(BaseModel):
    """One HTTP call of a scripted solution (see workgym.agents.reference)."""

    model_config = ConfigDict(extra="forbid")

    call: str = Field(pattern=r"^(GET|POST|PUT|PATCH|DELETE) /\S*$")
    params: dict[str, Any] = Field(default_factory=dict)
    json_body: Any = Field(None, alias="json")
    headers: dict[str, str] = Field(default_factory=dict, description="Request headers, "
                                    "filled like the body (e.g. an Idempotency-Key).")
    save: dict[str, str] = Field(default_factory=dict, description="name -> JMESPath over "
                                 "the response (saved('name') is a value saved earlier); "
                                 "finding nothing fails the script.")
    maybe: dict[str, str] = Field(default_factory=dict, description="Like save, but finding "
                                  "nothing saves null (for a later step's `when`).")
    app: str | None = None

    @property
    def method(self) -> str:
        return self.call.split(" ", 1)[0]


class WriteCheck(Call):
    """How to tell whether a write whose answer was lost was applied: ``applied`` is a
    JMESPath over this read's response that is truthy when it was."""

    applied: str


class ReferenceStep(Call):
    when: str | None = Field(None, description="JMESPath over nothing but saved('name'): the "
                             "step runs only when it is truthy (e.g. a second question when "
                             "the first answer was wrong).")
    expect: int | None = Field(None, description="Status the step must get.")
    check: WriteCheck | None = Field(
        None, description="For writes: the read that tells whether a lost write was applied.")
    recovery: bool = Field(
        False, description="A step that only exists to handle faults (e.g. a fresh re-read "
        "before a write); the naive agent skips it.")


class Reference(Script):
    """A scripted solution over the apps' APIs: its calls and its final answer."""

    steps: list[ReferenceStep] = Field(min_length=1)
    answer: str | None = None


class Variant(BaseModel):
    """Another solution of the task: its own ``steps``, or the reference changed (steps
    replaced, dropped, inserted before an index, appended; indices are the reference's),
    and its ``answer`` (the reference's unless given). An alternative is a legitimate
    solution (it must score like the reference); a near miss is one a careful reviewer
    would reject (it must score 0 or less: below 0 when it does ``harm``)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    steps: list[ReferenceStep] | None = None
    replace: dict[int, ReferenceStep] = Field(default_factory=dict)
    drop: list[int] = Field(default_factory=list)
    before: dict[int, list[ReferenceStep]] = Field(default_factory=dict)
    append: list[ReferenceStep] = Field(default_factory=list)
    answer: str | None = Field(None, description="Unset: the reference's answer.")
    harm: bool = Field(False, description="A near miss that does harm (reward below 0).")

    def solution(self, reference: Reference) -> Reference:
        """This solution as a script."""
        if self.steps is not None:
            steps = list(self.steps)
        else:
            count = len(reference.steps)
            named = {*self.replace, *self.drop, *self.before}
            if bad := sorted(i for i in named if not 0 <= i < count):
                raise ValueError(f"{self.name}: no reference step {bad} (it has {count})")
            steps = []
            for i, step in enumerate(reference.steps):
                steps += self.before.get(i, [])
                if i not in self.drop:
                    steps.append(self.replace.get(i, step))
            steps += self.append
        answer = self.answer if "answer" in self.model_fields_set else reference.answer
        return Reference(given=reference.given, steps=steps, answer=answer)


class TaskSummary(BaseModel):
    id: str = Field(description="'<suite>/<name>': a suite is a folder of tasks/.")
    suite: str = Field(description="The suite (an app's name, or a cross-app suite's).")
    apps: list[str] = Field(description="The apps of the task's world, in setup order.")
    title: str
    difficulty: Literal["easy", "medium", "hard"]
    tags: list[str]


class TaskDetail(TaskSummary):
    instruction: str = Field(description="What the agent is asked to do: a template, each "
                             "episode's rendered from its seed's draw ({{ ... }}).")
    max_steps: int = Field(description="Step budget of an episode of this task.")


def _of_app(value: Any, app: str) -> Any:
    """``value`` with its references (``$charge.id``) named as ``app``'s
    (``$checkout.charge.id``)."""
    if isinstance(value, str) and value.startswith("$"):
        return f"${app}.{value[1:]}"
    if isinstance(value, dict):
        return {key: _of_app(item, app) for key, item in value.items()}
    if isinstance(value, list):
        return [_of_app(item, app) for item in value]
    return value


class Task(BaseModel):
    """A task as authored (everything, including what agents must not see)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    suite: str
    apps: list[str] = Field(min_length=1, description="Default: the suite's app.")
    title: str
    difficulty: Literal["easy", "medium", "hard"]
    tags: list[str] = Field(min_length=1)
    template: str = Field(
        min_length=1, description="The task's family, by which tasks/splits.yaml splits the "
        "catalogue into train and test: variants of one task (the same skill on other data "
        "or under other faults) name the same template, so that they fall in one split. "
        "Default: the task's id.")
    instruction: str = Field(min_length=20)
    setup: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="app -> its row operations, run app by app in the "
        "order of `apps` (a later app's may refer to an earlier app's rows: $app.name.field).")
    actors: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="app -> its scripted actors (the app's model).")
    reference: Reference
    browser: BrowserSolution | None = Field(
        None, description="The reference solution done through the apps' pages alone (no API "
        "call), in BrowserGym's action set (workgym.browser.script runs it): it must score as "
        "the reference does, in the same final-state class.")
    alternatives: list[Variant] = Field(
        default_factory=list, description="Other legitimate solutions: each scores like the "
        "reference.")
    near_misses: list[Variant] = Field(
        default_factory=list, description="Solutions a reviewer would reject: each scores 0 or "
        "less (below 0 when marked harm).")
    verifier: Verifier
    faults: list[dict[str, Any]] = Field(
        default_factory=list, description="The task's fault plan (fault-proxy configs).")
    max_steps: int = Field(60, gt=0)
    case: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="Facts of the case no app's state holds, that what "
        "the agent says is judged against: claim -> rows (fact columns, as the apps' "
        "claims.yaml; $references to any app's bound rows), e.g. that the order is "
        "outside its refund window; {possible: true}: the task allows the claim's act (an "
        "offer or a promise on a condition can be true), not that it happened.")

    decision: str | None = Field(
        None, pattern=r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*){1,2}$", description="Where the task's "
        "skill is a judgement (refund or not, verified or not): the value its setup draws "
        "as the outcome, '<bind>.<field>' (the first app's) or '<app>.<bind>.<field>'. The "
        "seed draws it (a `cycle` draw gives every outcome its share of any run of seeds); "
        "the verifier's `when` conditions judge each outcome, and the gate checks that "
        "every outcome occurs.")

    @field_validator("faults")
    @classmethod
    def _valid_plan(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        parse_plan(value)
        return value

    @model_validator(mode="before")
    @classmethod
    def _per_app(cls, raw: Any) -> Any:
        """A one-app task may write its setup as a list and its actors unkeyed; a task of
        several apps keys both by app."""
        if not isinstance(raw, dict):
            return raw
        raw = {**raw, "apps": raw.get("apps") or [raw.get("suite")],
               "template": raw.get("template") or raw.get("id")}
        if len(raw["apps"]) == 1:
            app = raw["apps"][0]
            if isinstance(raw.get("setup"), list):
                raw["setup"] = {app: raw["setup"]}
            if raw.get("actors") and set(raw["actors"]) != {app}:
                raw["actors"] = {app: raw["actors"]}
        return raw

    @classmethod
    def file_schema(cls) -> dict[str, Any]:
        """The JSON Schema of a task file (``workgym tasks schema``): the model's, as a file
        writes it: its id and suite are its path's (:func:`load_task`), its apps and template
        have defaults, and a one-app task may write its setup as a list and its actors
        unkeyed (:meth:`_per_app`)."""
        schema = cls.model_json_schema()
        fields = schema["properties"]
        for derived in ("id", "suite"):
            del fields[derived]
        schema["required"] = [name for name in schema["required"]
                              if name not in ("id", "suite", "apps", "template")]
        for name in ("setup", "actors"):
            keyed = fields[name]
            fields[name] = {"title": keyed.pop("title"), "description": keyed.pop("description"),
                            "anyOf": [keyed, keyed["additionalProperties"]]}
        return {"$schema": "https://json-schema.org/draft/2020-12/schema",
                **schema, "title": "WorkGym task file"}

    @model_validator(mode="after")
    def _valid_world(self) -> Self:
        known = app_names()
        if unknown := [app for app in self.apps if app not in known]:
            raise ValueError(f"apps {unknown} are no replica app ({', '.join(sorted(known))})")
        if strays := sorted(set(self.setup) - set(self.apps)):
            raise ValueError(f"setup for {strays}: not among the task's apps {self.apps}")
        if strays := sorted(set(self.actors) - set(self.apps)):
            raise ValueError(f"actors for {strays}: not among the task's apps {self.apps}")
        for ops in self.setup.values():
            parse_ops(ops)  # row operations, never SQL
        names = [v.name for v in [*self.alternatives, *self.near_misses]]
        if repeated := sorted({n for n in names if names.count(n) > 1}):
            raise ValueError(f"solution names must be unique; repeated: {repeated}")
        for variant in [*self.alternatives, *self.near_misses]:
            variant.solution(self.reference)
        for assertion in self.verifier.root:
            if assertion.app is not None and assertion.app not in self.apps:
                raise ValueError(f"assertion {assertion.name!r} names app {assertion.app!r}, "
                                 f"not one of the task's {self.apps}")
            if len(self.apps) > 1 and assertion.app is None and assertion.check != "answer_matches":
                raise ValueError(f"assertion {assertion.name!r}: name its app (the task has "
                                 f"several: {self.apps})")
        if self.decision is not None:
            self._check_decision(self.decision)
        if self.browser is not None:
            for number, step in enumerate(self.browser.steps):
                page = step.goto or step.new_tab
                if page is not None and page.split(":", 1)[0] not in self.apps:
                    raise ValueError(f"browser.steps.{number}: {page!r} names no app of the "
                                     f"task's {self.apps}")
        for app, actors in self.actors.items():
            model = actors_model(app)
            if model is None:
                raise ValueError(f"app {app!r} has no scripted actors")
            model.model_validate(actors)
        return self

    def _check_decision(self, decision: str) -> None:
        """The decision names a value the setup draws, and the verifier judges by it (a
        `when`, or a value it compares with)."""
        parts = decision.split(".")
        app, bind = (parts[0], parts[1]) if len(parts) == 3 else (self.apps[0], parts[0])
        binds = {op.get("bind") for op in self.setup_of(app) if isinstance(op, dict)}
        if bind not in binds:
            raise ValueError(f"decision {decision!r}: the setup of {app} binds no {bind!r}")
        if not re.search(rf"\${re.escape(decision)}\b", self.verifier.model_dump_json()):
            raise ValueError(f"decision {decision!r}: no assertion judges by it (a `when` or "
                             f"a value naming ${decision})")

    @model_validator(mode="after")
    def _benign_allowed(self) -> Self:
        """Every ``only_changes`` with ``benign`` also allows its apps' benign changes on the
        case (``replicas/<app>/allowances.yaml``) whose references the app's setup binds;
        another app's references are named by that app (``$checkout.charge.stripe_id``)."""
        self.verifier.root[:] = [
            a.model_copy(update={"allow": [*a.allow, *(
                rule for app in self.apps for rule in self._benign(app, a.app or self.apps[0]))]})
            if isinstance(a, OnlyChanges) and a.benign else a
            for a in self.verifier.root]
        return self

    def _benign(self, app: str, judged_in: str) -> list[Allow]:
        """``app``'s benign rules for a check of ``judged_in``, with its references."""
        bound = {op["bind"] for op in self.setup_of(app) if isinstance(op, dict) and "bind" in op}
        rules = [rule for rule in read_allowances(app)
                 if set(re.findall(r"\$([A-Za-z_]\w*)\.", str(rule))) <= bound]
        return [Allow.model_validate({**(rule if app == judged_in else _of_app(rule, app)),
                                      "app": app}) for rule in rules]

    @property
    def reference_steps(self) -> int:
        """The reference's steps on its shortest path (those without a ``when``)."""
        return sum(1 for step in self.reference.steps if step.when is None)

    def steps_to_beat(self, trajectory: Sequence[TrajectoryStep]) -> int:
        """The steps an episode's efficiency is measured against: those of the browser
        solution when the episode went through the pages (a step of its ``trajectory`` came
        from the browser) and the task has one, else the API reference's."""
        if self.browser is not None and any(step.browser for step in trajectory):
            return self.browser.steps_taken(len(self.apps))
        return self.reference_steps

    def case_for(self, vars: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        """The task's case facts of one instance: references resolved from the rows its
        setup bound (the first app's as ``$name.f``, any app's as ``$app.name.f``)."""
        if not self.case:
            return {}
        resolved = resolve(self.case, vars.get(self.apps[0], {}), vars)
        return {claim: [{k: _scalar(v) for k, v in row.items()} for row in rows]
                for claim, rows in resolved.items()}

    def score(self, states: Mapping[str, tuple[bytes, bytes]],
              trajectory: Sequence[TrajectoryStep],
              answer: str | None, vars: dict[str, Any],
              keys: Mapping[str, str] | None = None) -> Report:
        """One episode of the task scored: its apps' initial and final states, the
        trajectory, the ``finish`` answer and the rows its setup bound (``keys``: each
        app's snapshot key, naming its initial state)."""
        return score(verifier=self.verifier, states=states, trajectory=trajectory,
                     answer=answer, vars=vars, reference_steps=self.steps_to_beat(trajectory),
                     lexicon=lexicon(), today=WORLD_START.date(), case=self.case_for(vars),
                     keys=keys)

    def outcome(self, vars: dict[str, Any]) -> Any:
        """The decision's outcome in one instance (None: the task is no decision)."""
        if self.decision is None:
            return None
        return resolve("$" + self.decision, vars.get(self.apps[0], {}), vars)

    def instruction_for(self, vars: dict[str, Any]) -> str:
        """The instruction of one instance: rendered from the rows its setup bound (``vars``:
        app -> name -> row; ``{{ name.field }}`` is the first app's, ``{{ app.name.field }}``
        any app's)."""
        return render(self.instruction, vars.get(self.apps[0], {}), vars)

    @property
    def brief(self) -> str:
        """The agent's brief for this task's world: its apps' briefs, in order."""
        return "\n\n".join(read_brief(app) for app in self.apps)

    def setup_of(self, app: str) -> list[dict[str, Any]]:
        return self.setup.get(app, [])

    def actors_of(self, app: str) -> dict[str, Any]:
        """The app's scripted actors, handed to its replica (never to the agent)."""
        return self.actors.get(app, {})

    def summary(self) -> TaskSummary:
        return TaskSummary.model_validate(self.model_dump(include=set(TaskSummary.model_fields)))

    def detail(self) -> TaskDetail:
        """What the catalogue shows: never a verifier, a solution or its size."""
        return TaskDetail(**self.summary().model_dump(), instruction=self.instruction,
                          max_steps=self.max_steps)

    def solutions(self) -> dict[str, tuple[str, Reference, bool]]:
        """Every solution by name: (kind, script, does harm); kinds are reference,
        alternative and near_miss."""
        found = {"reference": ("reference", self.reference, False)}
        for kind, variants in (("alternative", self.alternatives),
                               ("near_miss", self.near_misses)):
            for variant in variants:
                found[f"{kind}:{variant.name}"] = (kind, variant.solution(self.reference),
                                                   variant.harm)
        return found


def _scalar(value: Any) -> Any:
    """A case fact's value as the fact rows hold them (booleans as 0/1)."""
    return int(value) if isinstance(value, bool) else value


def load_task(path: Path, root: Path = TASKS_DIR) -> Task:
    return task_from(path, root, task_files.parse(path))


def task_from(path: Path, root: Path, raw: dict[str, Any]) -> Task:
    """The task of file ``path`` (under ``root``) whose mapping is ``raw``."""
    rel = path.relative_to(root).with_suffix("")
    try:
        return Task.model_validate({**raw, "id": rel.as_posix(), "suite": rel.parts[0]})
    except ValidationError as exc:  # one line: each problem at its field
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}"
                             for e in exc.errors())
        raise TaskFileError(f"{path}: {problems}") from exc


class Catalogue:
    def __init__(self, tasks: list[Task]) -> None:
        self._tasks = {task.id: task for task in sorted(tasks, key=lambda t: t.id)}

    def __iter__(self) -> Iterator[Task]:
        return iter(self._tasks.values())

    def __len__(self) -> int:
        return len(self._tasks)

    def get(self, task_id: str) -> Task:
        task = self._tasks.get(task_id)
        if task is None:
            raise NotFound(f"no task '{task_id}'", code="task_not_found", field="task")
        return task

    def serving(self, apps: Collection[str]) -> Catalogue:
        """The tasks a deployment serving ``apps`` can run (every app of theirs served)."""
        return Catalogue([task for task in self if set(task.apps) <= set(apps)])


def task_roots(extra: Iterable[Path] | None = None) -> tuple[Path, ...]:
    """Where tasks are read from: the packaged tasks/ first, then ``extra`` (default: the
    WORKGYM_TASKS setting's folders), each once."""
    more = TaskRoots().tasks if extra is None else extra
    return tuple(dict.fromkeys([TASKS_DIR, *(Path(root).resolve() for root in more)]))


def catalogue(extra: Iterable[Path] | None = None) -> Catalogue:
    """Every task of the task roots (:func:`task_roots`), parsed once per process."""
    return _catalogue(task_roots(extra))


@cache
def _catalogue(roots: tuple[Path, ...]) -> Catalogue:
    where: dict[str, Path] = {}
    tasks = []
    for root in roots:
        if not root.is_dir():
            raise ConfigError(f"task root {root} is no folder: check WORKGYM_TASKS "
                              f"({os.pathsep!r}-separated folders of <suite>/<name>.yaml)")
        for path, raw in task_files.contents(root):
            task = task_from(path, root, raw)
            if task.id in where:
                raise ConfigError(f"task {task.id!r} is defined twice: {where[task.id]} and "
                                  f"{path} (rename one of them)")
            where[task.id] = path
            tasks.append(task)
    return Catalogue(tasks)
