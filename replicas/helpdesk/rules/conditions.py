"""Zendesk business-rule conditions and actions over plain dicts: one evaluator for views,
triggers, automations and SLA policy filters, one applier for trigger, automation and macro
actions, and the status and priority orders everything else imports.

A condition set is ``{"all": [...], "any": [...]}`` of ``{field, operator, value}`` (either
list may be missing; an empty "any" is true), evaluated against a ``tickets`` row (``tags``
already a list) and a :class:`Context`. Fields carry Zendesk's names, with two spellings of
our own: ``via`` is the ticket's channel string (Zendesk's ``via_id`` is a number), and the
custom fields are ``custom_fields_<column>`` after their ticket columns
(``custom_fields_contact_reason``), not numeric field ids. Ids compare as ints (Zendesk sends
them as strings); ``current_user`` is agent 1, the API's caller. Unknown fields, operators
and values raise ValueError, so seeded rules are checked by :func:`validate` when they load.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from replicas.runtime.clock import parse_iso

from .common import ACTING_AGENT_ID, normal_tags

STATUS_ORDER = ("new", "open", "pending", "hold", "solved", "closed")
PRIORITY_ORDER = ("low", "normal", "high", "urgent")
TICKET_TYPES = ("question", "incident", "problem", "task")
CHANNELS = ("email", "web", "chat", "phone", "api")
TIERS = ("standard", "silver", "gold", "platinum")
CUSTOM_FIELD_COLUMNS = ("order_number", "product", "contact_reason")

Ticket = Mapping[str, Any]
Normalize = Callable[[Any], Any]


@dataclass(frozen=True)
class Context:
    """What a condition sees besides the ticket. ``previous`` is the ticket before this
    update; without it a Create changes every field from nothing and anything else changes
    none. ``comment`` is this update's comment ({public, author_role}); ``requester`` the
    requester's users row."""

    now: datetime
    update_type: Literal["Create", "Change"] | None = None
    previous: Ticket | None = None
    comment: Mapping[str, Any] | None = None
    requester: Mapping[str, Any] | None = None


# ---- values -----------------------------------------------------------------------------

def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _id(value: Any) -> int | None:
    if value is None or value == "":
        return None
    return ACTING_AGENT_ID if value == "current_user" else int(value)


def _choice(*choices: str, empty: bool = True) -> Normalize:
    """A normalizer accepting ``choices`` (and no value when ``empty``)."""
    def normalize(value: Any) -> str | None:
        text = _text(value)
        if (text is None and not empty) or (text is not None and text not in choices):
            raise ValueError(f"{value!r} is not one of {', '.join(choices)}")
        return text
    return normalize


def _tags(value: Any) -> list[str]:
    """A space-separated string or a list, as tags are stored (lowercase, each once)."""
    return normal_tags([value] if isinstance(value, str) else map(str, value or []))


def _hours_since(stamp: str | None, now: datetime) -> int | None:
    return None if stamp is None else int((now - parse_iso(stamp)).total_seconds() // 3600)


# ---- fields -----------------------------------------------------------------------------

_EQUALITY = frozenset({"is", "is_not"})
_ORDERED = frozenset({"less_than", "greater_than"})
_PRESENCE = frozenset({"present", "not_present"})
_TAGS = frozenset({"includes", "not_includes"})
_CHANGES = frozenset({"changed", "not_changed", "value", "value_previous", "not_value",
                      "not_value_previous"})
_VALUELESS = frozenset({"present", "not_present", "changed", "not_changed"})


@dataclass(frozen=True)
class _Field:
    read: Callable[[Ticket, Context], Any]  # the ticket's value, normalized
    operators: frozenset[str]
    normalize: Normalize = _text  # a condition's value -> comparable (ValueError if invalid)
    order: tuple[str, ...] = ()  # ranks for less_than / greater_than; numbers rank as such
    equals: Callable[[Any, Any], bool] = lambda current, wanted: current == wanted


def _column(name: str, operators: frozenset[str], normalize: Normalize = _text,
            order: tuple[str, ...] = ()) -> _Field:
    """A ticket column, read as stored (ids as ints) and never validated: only rules are."""
    read_as = _id if normalize is _id else _text
    return _Field(lambda ticket, _: read_as(ticket.get(name)), operators, normalize, order)


def _since(column: str, status: str | None = None) -> _Field:
    """Whole hours since the time in ``column``; with ``status``, no value unless the ticket
    is in that status (automations' NEW, OPEN, ... fields)."""
    def read(ticket: Ticket, ctx: Context) -> int | None:
        in_status = status is None or ticket.get("status") == status
        return _hours_since(ticket.get(column), ctx.now) if in_status else None
    return _Field(read, _ORDERED | {"is"}, int)


def _until(column: str) -> _Field:
    """Whole hours until the time in ``column`` (negative once past; views' "hours until
    next SLA breach", whose value the caller puts in the ticket dict)."""
    def read(ticket: Ticket, ctx: Context) -> int | None:
        stamp = ticket.get(column)
        return None if stamp is None else int(
            (parse_iso(stamp) - ctx.now).total_seconds() // 3600)
    return _Field(read, _ORDERED, int)


def _locale(_: Ticket, ctx: Context) -> str | None:
    return _text((ctx.requester or {}).get("locale"))


def _comment_visibility(_: Ticket, ctx: Context) -> str | None:
    return None if ctx.comment is None else str(bool(ctx.comment["public"])).lower()


def _role(_: Ticket, ctx: Context) -> str | None:
    return None if ctx.comment is None else str(ctx.comment["author_role"]).replace("-", "_")


_FIELDS: dict[str, _Field] = {
    "status": _column("status", _EQUALITY | _ORDERED | _CHANGES, _choice(*STATUS_ORDER),
                      STATUS_ORDER),
    "priority": _column("priority", _EQUALITY | _ORDERED | _CHANGES, _choice(*PRIORITY_ORDER),
                        PRIORITY_ORDER),
    "type": _column("type", _EQUALITY | _CHANGES, _choice(*TICKET_TYPES)),
    "group_id": _column("group_id", _EQUALITY | _CHANGES | _PRESENCE, _id),
    "assignee_id": _column("assignee_id", _EQUALITY | _CHANGES | _PRESENCE, _id),
    "requester_id": _column("requester_id", _EQUALITY | _CHANGES, _id),
    "organization_id": _column("organization_id", _EQUALITY | _CHANGES, _id),
    "via": _column("channel", _EQUALITY, _choice(*CHANNELS)),
    **{f"custom_fields_{name}": _column(name, _EQUALITY | _CHANGES | _PRESENCE)
       for name in CUSTOM_FIELD_COLUMNS},
    "current_tags": _Field(lambda ticket, _: _tags(ticket.get("tags")), _TAGS, _tags),
    "update_type": _Field(lambda _, ctx: ctx.update_type, _EQUALITY, _choice("Create", "Change")),
    # "not_relevant": a comment of either kind is present.
    "comment_is_public": _Field(
        _comment_visibility, frozenset({"is"}),
        lambda value: _choice("true", "false", "not_relevant")(str(value).lower()),
        equals=lambda current, wanted: current is not None and wanted in (current, "not_relevant"),
    ),
    # The comment author's role; admins are agents too, as in Zendesk.
    "role": _Field(_role, _EQUALITY, _choice("end_user", "agent", "admin"),
                   equals=lambda current, wanted: wanted == current
                   or (wanted, current) == ("agent", "admin")),
    "user.custom_fields.tier": _Field(lambda _, ctx: _text((ctx.requester or {}).get("tier")),
                                      _EQUALITY | _PRESENCE, _choice(*TIERS)),
    # The requester's language: "de" matches de-DE and de-AT, "en-GB" only itself.
    "locale_id": _Field(_locale, _EQUALITY, _text, equals=lambda current, wanted: current
                        is not None and (current == wanted or current.startswith(f"{wanted}-"))),
    "sla_next_breach_at": _until("sla_next_breach_at"),
    **{status.upper(): _since("status_updated_at", status) for status in STATUS_ORDER},
    "created_at": _since("created_at"),
    "updated_at": _since("updated_at"),
}


def _field(condition: Mapping[str, Any]) -> _Field:
    name, operator = condition.get("field"), condition.get("operator")
    spec = _FIELDS.get(str(name))
    if spec is None:
        raise ValueError(f"unknown condition field {name!r}")
    if operator not in spec.operators:
        raise ValueError(f"unknown operator {operator!r} for condition field {name!r}")
    return spec


def _wanted(spec: _Field, condition: Mapping[str, Any]) -> Any:
    if condition["operator"] in _VALUELESS:
        return None
    try:
        return spec.normalize(condition.get("value"))
    except (TypeError, ValueError) as error:
        raise ValueError(f"invalid value for condition field {condition['field']!r}: "
                         f"{error}") from error


def _conditions(conditions: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    unknown = set(conditions) - {"all", "any"}
    if unknown:
        raise ValueError(f"unknown condition keys {sorted(unknown)}; expected 'all' and 'any'")
    return [*(conditions.get("all") or []), *(conditions.get("any") or [])]


def validate(conditions: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first unknown field, operator or invalid value."""
    for condition in _conditions(conditions):
        _wanted(_field(condition), condition)


def _before(ticket: Ticket, ctx: Context) -> Ticket:
    if ctx.previous is not None:
        return ctx.previous
    return {} if ctx.update_type == "Create" else ticket


def _changed(operator: str, current: Any, before: Any, wanted: Any) -> bool:
    changed: bool = current != before
    if operator in ("changed", "not_changed"):
        return changed == (operator == "changed")
    hit = changed and (current if operator in ("value", "not_value") else before) == wanted
    return hit if operator in ("value", "value_previous") else not hit


def _ranked(spec: _Field, operator: str, current: Any, wanted: Any) -> bool:
    if current is None or wanted is None or (spec.order and current not in spec.order):
        return False
    rank = spec.order.index if spec.order else (lambda value: value)
    return rank(current) < rank(wanted) if operator == "less_than" else rank(current) > rank(wanted)


def _holds(condition: Mapping[str, Any], ticket: Ticket, ctx: Context) -> bool:
    operator: str
    spec, operator = _field(condition), condition["operator"]
    current, wanted = spec.read(ticket, ctx), _wanted(spec, condition)
    if operator in _CHANGES:
        return _changed(operator, current, spec.read(_before(ticket, ctx), ctx), wanted)
    if operator in _PRESENCE:
        return (current is not None) == (operator == "present")
    if operator in _TAGS:
        return bool(set(current) & set(wanted)) == (operator == "includes")
    if operator in _EQUALITY:
        return spec.equals(current, wanted) == (operator == "is")
    return _ranked(spec, operator, current, wanted)


def evaluate(conditions: Mapping[str, Any], ticket: Ticket, ctx: Context) -> bool:
    """Whether ``ticket`` meets every "all" condition and one "any" condition (if any)."""
    _conditions(conditions)
    any_of = conditions.get("any") or []
    return all(_holds(c, ticket, ctx) for c in conditions.get("all") or []) and (
        not any_of or any(_holds(c, ticket, ctx) for c in any_of))


# ---- actions ----------------------------------------------------------------------------

@dataclass
class ActionResult:
    """What a rule's actions do: ``changes`` (ticket column -> new value, only values that
    differ from the ticket's; tags a list), a ``comment`` ({body, public}) or None, and
    ``notifications`` ({recipient: user id, subject, body}; placeholders left as written)."""

    changes: dict[str, Any] = field(default_factory=dict)
    comment: dict[str, Any] | None = None
    notifications: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Draft:
    ticket: Ticket
    result: ActionResult = field(default_factory=ActionResult)
    body: str | None = None
    public: bool = True

    def get(self, column: str) -> Any:
        return self.result.changes.get(column, self.ticket.get(column))

    def set(self, column: str, value: Any) -> None:
        self.result.changes[column] = value


Action = Callable[[_Draft, Any], None]


def _setter(column: str, normalize: Normalize) -> Action:
    return lambda draft, value: draft.set(column, normalize(value))


def _public(draft: _Draft, value: Any) -> None:
    draft.public = _choice("true", "false", empty=False)(str(value).lower()) == "true"


def _notify(draft: _Draft, value: Any) -> None:
    """[recipient, subject, body]; a recipient who is no one (unassigned) gets nothing."""
    recipient, subject, body = value
    user = _id(draft.get(recipient) if recipient in ("requester_id", "assignee_id") else recipient)
    if user is not None:
        draft.result.notifications.append(
            {"recipient": user, "subject": str(subject), "body": str(body)})


_ACTIONS: dict[str, Action] = {
    "status": _setter("status", _choice(*STATUS_ORDER, empty=False)),
    "priority": _setter("priority", _choice(*PRIORITY_ORDER, empty=False)),
    "type": _setter("type", _choice(*TICKET_TYPES)),
    "group_id": _setter("group_id", _id),
    "assignee_id": _setter("assignee_id", _id),
    "set_schedule": _setter("schedule_id", _id),
    **{f"custom_fields_{name}": _setter(name, _text) for name in CUSTOM_FIELD_COLUMNS},
    "set_tags": _setter("tags", _tags),
    "current_tags": lambda draft, value: draft.set(
        "tags", _tags([*_tags(draft.get("tags")), *_tags(value)])),
    "remove_tags": lambda draft, value: draft.set(
        "tags", [tag for tag in _tags(draft.get("tags")) if tag not in _tags(value)]),
    "comment_value": lambda draft, value: setattr(draft, "body", str(value)),
    "comment_mode_is_public": _public,
    "notification_user": _notify,
}


def apply_actions(actions: Sequence[Mapping[str, Any]], ticket: Ticket) -> ActionResult:
    """Apply ``actions`` in order to ``ticket`` (left unmodified); ValueError for an unknown
    action field or an invalid value."""
    draft = _Draft(ticket)
    for action in actions:
        act = _ACTIONS.get(str(action.get("field")))
        if act is None:
            raise ValueError(f"unknown action field {action.get('field')!r}")
        try:
            act(draft, action.get("value"))
        except (TypeError, ValueError) as error:
            raise ValueError(f"invalid value for action {action['field']!r}: {error}") from error
    result = draft.result
    if draft.body is not None:
        result.comment = {"body": draft.body, "public": draft.public}
    result.changes = {k: v for k, v in result.changes.items() if v != ticket.get(k)}
    return result


def validate_actions(actions: Sequence[Mapping[str, Any]]) -> None:
    """Raise ValueError naming the first unknown action field or invalid value: a dry run on
    an empty ticket (applying actions has no effect beyond its result)."""
    apply_actions(actions, {})
