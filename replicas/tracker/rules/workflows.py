"""Workflows as data (world.yaml ``workflows``), as Jira runs them: which transitions an
issue offers from its status, whether one may run, and what it does after.

A transition names the statuses it leaves (``from``: names, or ``"*"``: any), the status it
enters (``to``), its ``conditions`` (unmet: the transition is hidden, as Jira omits it from
GET transitions), its ``screen`` (the fields it may set; ``comment`` always), its
``validators`` (unmet: 400, nothing changes) and its ``post`` functions (set or clear the
resolution, assign the caller). The order follows Jira's doTransition: resolve the
transition among those valid from the current status, screen, apply the fields, validators,
then the status and the post-functions. Pure: the caller gives what the validators need
(:class:`Facts`). The config is checked when it loads (:func:`workflows`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..errors import JiraError
from ..world import data, workflow_name

ALWAYS_ON_SCREEN = frozenset({"comment"})
_CONDITIONS = frozenset({"role"})
_VALIDATORS = frozenset({"field_required", "comment_required", "subtasks_done", "linked"})
_POST = frozenset({"set_resolution", "set_resolution_if_missing", "clear_resolution",
                   "assign"})


class TransitionRefused(JiraError):
    """Jira's 400 for a transition: ``messages`` (errorMessages) and ``errors`` by field."""

    def __init__(self, messages: list[str], errors: Mapping[str, str] | None = None) -> None:
        super().__init__(400, messages, errors, code="transition_refused")


@dataclass(frozen=True)
class Transition:
    id: int
    name: str
    sources: frozenset[str] | None  # None: from any status
    to: str
    screen: frozenset[str]
    conditions: tuple[Mapping[str, Any], ...]
    validators: tuple[Mapping[str, Any], ...]
    post: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True)
class Workflow:
    name: str
    initial: str
    finished: str  # the status finished work ends in
    transitions: tuple[Transition, ...]
    locked: frozenset[str] = frozenset()  # statuses whose issues are not editable


@dataclass(frozen=True)
class Facts:
    """What the validators look at, after the transition's fields were applied."""

    resolution: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)  # field -> value (None: empty)
    comment: bool = False  # a comment comes with the transition
    open_subtasks: int = 0
    # (link type, direction from this issue: inward | outward, the other's status category)
    links: tuple[tuple[str, str, str], ...] = ()


def _one_of(kind: str, item: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    unknown = set(item) - known
    if len(item) != 1 or unknown:
        raise ValueError(f"{where}: a {kind} is one of {sorted(known)}, not {dict(item)}")


def _transition(raw: Mapping[str, Any], statuses: frozenset[str], where: str) -> Transition:
    sources = None if raw["from"] == "*" else frozenset(raw["from"])
    for status in [raw["to"], *(sources or ())]:
        if status not in statuses:
            raise ValueError(f"{where}: unknown status {status!r}")
    for kind, items, known in (("condition", raw.get("conditions", []), _CONDITIONS),
                               ("validator", raw.get("validators", []), _VALIDATORS),
                               ("post-function", raw.get("post", []), _POST)):
        for item in items:
            _one_of(kind, item, known, where)
    return Transition(int(raw["id"]), raw["name"], sources, raw["to"],
                      frozenset(raw.get("screen", [])) | ALWAYS_ON_SCREEN,
                      tuple(raw.get("conditions", [])), tuple(raw.get("validators", [])),
                      tuple(raw.get("post", [])))


def workflows(world: Mapping[str, Any]) -> dict[str, Workflow]:
    """world.yaml's workflows, checked: known statuses, conditions, validators and
    post-functions; transition ids unique within a workflow."""
    statuses = frozenset(s[1] for s in world["statuses"])
    found = {}
    for name, raw in world["workflows"].items():
        transitions = tuple(_transition(t, statuses, f"workflow {name}, transition {t['id']}")
                            for t in raw["transitions"])
        if len({t.id for t in transitions}) != len(transitions):
            raise ValueError(f"workflow {name}: transition ids repeat")
        for end in ("initial", "finished"):
            if raw[end] not in statuses:
                raise ValueError(f"workflow {name}: unknown {end} status {raw[end]!r}")
        locked = frozenset(raw.get("locked", []))
        if locked - statuses:
            raise ValueError(f"workflow {name}: unknown locked statuses "
                             f"{sorted(locked - statuses)}")
        found[name] = Workflow(name, raw["initial"], raw["finished"], transitions, locked)
    return found


@cache
def flow(project_key: str, issue_type: str) -> Workflow:
    """The workflow an issue of this type runs in this project (world.yaml, checked once)."""
    return _all()[workflow_name(project_key, issue_type)]


@cache
def _all() -> dict[str, Workflow]:
    return workflows(data())


def editable(workflow: Workflow, status: str) -> bool:
    """Whether an issue in ``status`` may be changed (Jira's ``jira.issue.editable`` status
    property: false in the workflow's ``locked`` statuses)."""
    return status not in workflow.locked


def _allowed(transition: Transition, roles: frozenset[str]) -> bool:
    return all(c["role"] in roles for c in transition.conditions)


def available(workflow: Workflow, status: str, roles: frozenset[str]) -> list[Transition]:
    """The transitions an issue in ``status`` offers a caller with these project roles."""
    return [t for t in workflow.transitions
            if (t.sources is None or status in t.sources) and _allowed(t, roles)]


def find(workflow: Workflow, status: str, transition_id: int,
         roles: frozenset[str]) -> Transition:
    """The transition ``transition_id`` if it is valid now, else Jira's 400."""
    for transition in available(workflow, status, roles):
        if transition.id == transition_id:
            return transition
    raise TransitionRefused([f"Transition id '{transition_id}' is not valid for this issue."])


def screen_check(transition: Transition, given: set[str]) -> None:
    """Fields the transition's screen does not have are refused, one error each."""
    off = sorted(given - transition.screen)
    if off:
        raise TransitionRefused([], {f: f"Field '{f}' cannot be set. It is not on the "
                                        "appropriate screen, or unknown." for f in off})


def _validator_error(check: Mapping[str, Any], facts: Facts) -> tuple[str, str] | None:
    """(field or '', message) of a failed validator, or None."""
    if "field_required" in check:
        name = check["field_required"]
        value = facts.resolution if name == "resolution" else facts.fields.get(name)
        return (name, f"{name.capitalize()} is required.") if value in (None, "", []) else None
    if "comment_required" in check:
        return None if facts.comment else ("comment", "Comment is required.")
    if "subtasks_done" in check:
        return None if not facts.open_subtasks else (
            "", "All sub-tasks must be done before this transition.")
    rule = check["linked"]
    categories = set(rule.get("status_category", ["new", "indeterminate", "done"]))
    if any(kind == rule["type"] and direction == rule["direction"] and category in categories
           for kind, direction, category in facts.links):
        return None
    return ("", f"The issue needs a '{rule['type']}' link ({rule['direction']}) first.")


def validate(transition: Transition, facts: Facts) -> None:
    """Every validator of the transition; all failures in one 400."""
    messages: list[str] = []
    errors: dict[str, str] = {}
    for check in transition.validators:
        failed = _validator_error(check, facts)
        if failed is not None:
            name, message = failed
            if name:
                errors[name] = message
            else:
                messages.append(message)
    if messages or errors:
        raise TransitionRefused(messages, errors)


def post_functions(transition: Transition, *, resolution: str | None,
                   assignee_id: int | None, caller_id: int) -> dict[str, Any]:
    """The issue's changes after the transition: ``status``, and what the post-functions
    set (``resolution``, ``assignee_id``)."""
    changes: dict[str, Any] = {"status": transition.to}
    for post in transition.post:
        if "set_resolution" in post:
            changes["resolution"] = post["set_resolution"]
        elif "set_resolution_if_missing" in post and resolution is None:
            changes["resolution"] = post["set_resolution_if_missing"]
        elif "clear_resolution" in post:
            changes["resolution"] = None
        elif post.get("assign") == "caller_if_unassigned" and assignee_id is None:
            changes["assignee_id"] = caller_id
    return changes
