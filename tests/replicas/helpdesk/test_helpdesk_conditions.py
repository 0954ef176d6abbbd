"""Zendesk business-rule conditions and actions: fields, operators, changes, time-based
automation fields, tags, notifications and the errors seeded rules are checked with."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from replicas.helpdesk.rules.conditions import (
    PRIORITY_ORDER,
    STATUS_ORDER,
    Context,
    apply_actions,
    evaluate,
    validate,
    validate_actions,
)

NOW = datetime(2025, 6, 16, 12, 0, tzinfo=UTC)
TICKET: dict[str, Any] = {
    "id": 7, "status": "open", "priority": "high", "type": "incident", "channel": "email",
    "group_id": 3, "assignee_id": None, "requester_id": 40, "organization_id": 5,
    "tags": ["refund", "vip"], "order_number": "A-20011", "product": None,
    "contact_reason": "refund",
    "status_updated_at": "2025-06-15T10:00:00Z",  # open for 26 hours
    "created_at": "2025-06-14T11:30:00Z",  # 48.5 hours ago
    "updated_at": "2025-06-16T11:30:00Z",
}
GOLD = {"id": 40, "role": "end-user", "tier": "gold", "email": "a@example.com",
        "organization_id": 5}


def one(field: str, operator: str, value: Any = None) -> dict[str, Any]:
    return {"all": [{"field": field, "operator": operator, "value": value}]}


@pytest.mark.parametrize(
    ("field", "operator", "value", "expected"),
    [
        ("status", "is", "open", True),
        ("status", "is", "new", False),
        ("status", "is_not", "solved", True),
        ("status", "less_than", "solved", True),
        ("status", "less_than", "open", False),
        ("status", "greater_than", "new", True),
        ("status", "greater_than", "pending", False),
        ("priority", "greater_than", "normal", True),
        ("priority", "less_than", "high", False),
        ("priority", "less_than", "urgent", True),
        ("type", "is", "incident", True),
        ("type", "is_not", "question", True),
        ("group_id", "is", "3", True),  # Zendesk sends ids as strings
        ("group_id", "is", 3, True),
        ("group_id", "is_not", "4", True),
        ("group_id", "present", None, True),
        ("assignee_id", "not_present", None, True),
        ("assignee_id", "present", None, False),
        ("assignee_id", "is", "current_user", False),
        ("requester_id", "is", "40", True),
        ("organization_id", "is_not", "5", False),
        ("via", "is", "email", True),
        ("via", "is_not", "web", True),
        ("custom_fields_contact_reason", "is", "refund", True),
        ("custom_fields_contact_reason", "is_not", "refund", False),
        ("custom_fields_order_number", "present", None, True),
        ("custom_fields_product", "not_present", None, True),
        ("current_tags", "includes", "VIP other", True),  # any of them, case-insensitive
        ("current_tags", "includes", "billing other", False),
        ("current_tags", "includes", ["refund"], True),
        ("current_tags", "not_includes", "billing", True),
        ("current_tags", "not_includes", "billing refund", False),
        ("OPEN", "greater_than", "24", True),  # whole hours since it became open: 26
        ("OPEN", "is", "26", True),
        ("OPEN", "less_than", "24", False),
        ("PENDING", "greater_than", "0", False),  # not pending: no value, nothing matches
        ("PENDING", "less_than", "1000", False),
        ("created_at", "is", "48", True),
        ("created_at", "greater_than", "48", False),
        ("updated_at", "less_than", "1", True),
        ("user.custom_fields.tier", "is", "gold", True),
        ("user.custom_fields.tier", "is_not", "platinum", True),
        ("user.custom_fields.tier", "present", None, True),
    ],
)
def test_condition(field: str, operator: str, value: Any, expected: bool) -> None:
    ctx = Context(now=NOW, requester=GOLD)
    assert evaluate(one(field, operator, value), TICKET, ctx) is expected


def test_current_user_is_agent_one() -> None:
    ctx = Context(now=NOW)
    assert evaluate(one("assignee_id", "is", "current_user"), {**TICKET, "assignee_id": 1}, ctx)


def test_time_fields_follow_the_current_status() -> None:
    solved = {**TICKET, "status": "solved", "status_updated_at": "2025-06-12T12:00:00Z"}
    ctx = Context(now=NOW)
    assert evaluate(one("SOLVED", "greater_than", "95"), solved, ctx)  # 96 hours
    assert not evaluate(one("OPEN", "greater_than", "0"), solved, ctx)
    assert not evaluate(one("SOLVED", "is", "0"), {**solved, "status_updated_at": None}, ctx)


@pytest.mark.parametrize(
    ("field", "operator", "value", "comment", "update_type", "expected"),
    [
        ("update_type", "is", "Create", None, "Create", True),
        ("update_type", "is", "Change", None, "Create", False),
        ("update_type", "is_not", "Create", None, "Change", True),
        ("comment_is_public", "is", "true", {"public": True, "author_role": "end-user"}, None,
         True),
        ("comment_is_public", "is", True, {"public": True, "author_role": "agent"}, None, True),
        ("comment_is_public", "is", "false", {"public": True, "author_role": "agent"}, None,
         False),
        ("comment_is_public", "is", "false", {"public": False, "author_role": "agent"}, None,
         True),
        ("comment_is_public", "is", "not_relevant", {"public": False, "author_role": "agent"},
         None, True),
        ("comment_is_public", "is", "not_relevant", None, None, False),
        ("comment_is_public", "is", "true", None, None, False),
        ("role", "is", "end_user", {"public": True, "author_role": "end-user"}, None, True),
        ("role", "is", "agent", {"public": True, "author_role": "end-user"}, None, False),
        ("role", "is", "agent", {"public": False, "author_role": "admin"}, None, True),
        ("role", "is_not", "agent", {"public": True, "author_role": "end-user"}, None, True),
        ("role", "is", "end_user", None, None, False),
    ],
)
def test_update_conditions(field: str, operator: str, value: Any, comment: Any,
                           update_type: Any, expected: bool) -> None:
    ctx = Context(now=NOW, update_type=update_type, comment=comment)
    assert evaluate(one(field, operator, value), TICKET, ctx) is expected


PREVIOUS = {**TICKET, "status": "new", "group_id": "4", "assignee_id": None}


@pytest.mark.parametrize(
    ("field", "operator", "value", "expected"),
    [
        ("status", "changed", None, True),
        ("status", "not_changed", None, False),
        ("status", "value", "open", True),
        ("status", "value", "pending", False),
        ("status", "value_previous", "new", True),
        ("status", "value_previous", "open", False),
        ("status", "not_value", "open", False),
        ("status", "not_value", "pending", True),
        ("status", "not_value_previous", "new", False),
        ("status", "not_value_previous", "hold", True),
        ("priority", "changed", None, False),
        ("priority", "not_changed", None, True),
        ("priority", "value", "high", False),  # high before and after: not *changed* to high
        ("priority", "not_value", "high", True),
        ("group_id", "value_previous", "4", True),  # ids compare as ints on both sides
        ("group_id", "value", 3, True),
        ("assignee_id", "changed", None, False),
    ],
)
def test_changes_against_the_previous_ticket(field: str, operator: str, value: Any,
                                             expected: bool) -> None:
    ctx = Context(now=NOW, update_type="Change", previous=PREVIOUS)
    assert evaluate(one(field, operator, value), TICKET, ctx) is expected


def test_a_create_changes_every_field_from_nothing() -> None:
    ctx = Context(now=NOW, update_type="Create")
    assert evaluate(one("status", "value", "open"), TICKET, ctx)
    assert evaluate(one("priority", "changed"), TICKET, ctx)
    assert not evaluate(one("priority", "value_previous", "high"), TICKET, ctx)
    assert not evaluate(one("assignee_id", "changed"), TICKET, ctx)  # unset before and after


def test_without_a_previous_ticket_nothing_changed() -> None:
    for update_type in (None, "Change"):
        ctx = Context(now=NOW, update_type=update_type)
        assert not evaluate(one("status", "changed"), TICKET, ctx)
        assert evaluate(one("status", "not_changed"), TICKET, ctx)


def test_all_and_any() -> None:
    ctx = Context(now=NOW)
    yes = {"field": "status", "operator": "is", "value": "open"}
    no = {"field": "priority", "operator": "is", "value": "low"}
    assert evaluate({}, TICKET, ctx)
    assert evaluate({"all": [yes], "any": []}, TICKET, ctx)
    assert evaluate({"all": [yes], "any": [no, yes]}, TICKET, ctx)
    assert not evaluate({"all": [yes], "any": [no]}, TICKET, ctx)
    assert not evaluate({"all": [yes, no]}, TICKET, ctx)
    assert evaluate({"any": [no, yes]}, TICKET, ctx)


@pytest.mark.parametrize(
    ("conditions", "message"),
    [
        (one("via_id", "is", "4"), "unknown condition field 'via_id'"),
        (one("type", "less_than", "task"), "unknown operator 'less_than' for condition field"),
        (one("current_tags", "is", "vip"), "unknown operator 'is'"),
        (one("SOLVED", "is_not", "2"), "unknown operator 'is_not'"),
        (one("status", "is", "opne"), "invalid value for condition field 'status'"),
        (one("priority", "greater_than", "medium"), "invalid value"),
        (one("group_id", "is", "support"), "invalid value for condition field 'group_id'"),
        (one("OPEN", "greater_than", "a day"), "invalid value for condition field 'OPEN'"),
        (one("comment_is_public", "is", "yes"), "invalid value"),
        (one("user.custom_fields.tier", "is", "bronze"), "invalid value"),
        ({"none": []}, "unknown condition keys"),
    ],
)
def test_invalid_conditions_are_refused(conditions: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        validate(conditions)
    with pytest.raises(ValueError, match=message):
        evaluate(conditions, TICKET, Context(now=NOW))


def test_validate_accepts_rules_as_seeded() -> None:
    validate({
        "all": [{"field": "status", "operator": "less_than", "value": "solved"},
                {"field": "assignee_id", "operator": "is", "value": "current_user"},
                {"field": "update_type", "operator": "is", "value": "Change"},
                {"field": "HOLD", "operator": "greater_than", "value": "48"},
                {"field": "custom_fields_product", "operator": "changed", "value": None}],
        "any": [{"field": "user.custom_fields.tier", "operator": "is", "value": "platinum"},
                {"field": "role", "operator": "is", "value": "end_user"}],
    })


def test_orders() -> None:
    assert STATUS_ORDER == ("new", "open", "pending", "hold", "solved", "closed")
    assert PRIORITY_ORDER == ("low", "normal", "high", "urgent")


# ---- actions ----------------------------------------------------------------------------

def act(field: str, value: Any) -> dict[str, Any]:
    return {"field": field, "value": value}


def test_actions_set_fields_and_report_only_what_changes() -> None:
    result = apply_actions([
        act("status", "pending"), act("priority", "high"), act("type", "problem"),
        act("group_id", "4"), act("assignee_id", "current_user"),
        act("custom_fields_product", "Widget Pro"),
    ], TICKET)
    assert result.changes == {"status": "pending", "type": "problem", "group_id": 4,
                              "assignee_id": 1, "product": "Widget Pro"}  # priority was high
    assert result.comment is None and result.notifications == []
    assert TICKET["status"] == "open"  # the ticket itself is left alone


def test_assignee_empty_unassigns() -> None:
    assigned = {**TICKET, "assignee_id": 9}
    assert apply_actions([act("assignee_id", "")], assigned).changes == {"assignee_id": None}
    assert apply_actions([act("assignee_id", None)], assigned).changes == {"assignee_id": None}


@pytest.mark.parametrize(
    ("actions", "tags"),
    [
        ([act("set_tags", "Escalated  BILLING escalated")], ["escalated", "billing"]),
        ([act("set_tags", ["A", "b", "a"])], ["a", "b"]),
        ([act("current_tags", "VIP Escalated")], ["refund", "vip", "escalated"]),
        ([act("remove_tags", "REFUND missing")], ["vip"]),
        ([act("current_tags", "x"), act("remove_tags", "vip x"), act("current_tags", "Y")],
         ["refund", "y"]),
    ],
)
def test_tag_actions(actions: list[dict[str, Any]], tags: list[str]) -> None:
    assert apply_actions(actions, TICKET).changes == {"tags": tags}


def test_tag_actions_that_change_nothing_report_nothing() -> None:
    assert apply_actions([act("current_tags", "VIP")], TICKET).changes == {}


@pytest.mark.parametrize(
    ("actions", "comment"),
    [
        ([act("comment_value", "Thanks!")], {"body": "Thanks!", "public": True}),
        ([act("comment_value", "note"), act("comment_mode_is_public", "false")],
         {"body": "note", "public": False}),
        ([act("comment_mode_is_public", False), act("comment_value", "note")],
         {"body": "note", "public": False}),
        ([act("comment_mode_is_public", True)], None),
    ],
)
def test_comment_actions(actions: list[dict[str, Any]], comment: Any) -> None:
    assert apply_actions(actions, TICKET).comment == comment


def test_notifications_resolve_their_recipients_after_the_changes() -> None:
    result = apply_actions([
        act("notification_user", ["assignee_id", "Unassigned", "nobody gets this"]),
        act("assignee_id", "12"),
        act("notification_user", ["assignee_id", "Assigned {{ticket.id}}", "yours"]),
        act("notification_user", ["requester_id", "Received", "we got it"]),
        act("notification_user", ["current_user", "FYI", "done"]),
        act("notification_user", ["25", "Heads up", "look"]),
    ], TICKET)
    assert result.notifications == [
        {"recipient": 12, "subject": "Assigned {{ticket.id}}", "body": "yours"},
        {"recipient": 40, "subject": "Received", "body": "we got it"},
        {"recipient": 1, "subject": "FYI", "body": "done"},
        {"recipient": 25, "subject": "Heads up", "body": "look"},
    ]


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ([act("via", "web")], "unknown action field 'via'"),
        ([{"value": "x"}], "unknown action field None"),
        ([act("status", "opne")], "invalid value for action 'status'"),
        ([act("status", "")], "invalid value for action 'status'"),
        ([act("priority", None)], "invalid value for action 'priority'"),
        ([act("group_id", "support")], "invalid value for action 'group_id'"),
        ([act("comment_mode_is_public", "maybe")], "invalid value for action"),
        ([act("notification_user", ["requester_id", "subject only"])],
         "invalid value for action 'notification_user'"),
    ],
)
def test_invalid_actions_are_refused(actions: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        validate_actions(actions)
    with pytest.raises(ValueError, match=message):
        apply_actions(actions, TICKET)


def test_validate_actions_accepts_rules_as_seeded() -> None:
    validate_actions([
        act("status", "solved"), act("assignee_id", "current_user"), act("group_id", ""),
        act("set_tags", "a b"), act("current_tags", ["c"]), act("remove_tags", "a"),
        act("custom_fields_contact_reason", "refund"), act("comment_value", "Hi"),
        act("comment_mode_is_public", "true"),
        act("notification_user", ["requester_id", "Subject", "Body"]),
    ])


def test_stored_values_outside_the_choices_match_nothing_rather_than_fail() -> None:
    legacy = {**TICKET, "status": "on-hold", "channel": "mobile"}
    ctx = Context(now=NOW)
    assert not evaluate(one("status", "less_than", "solved"), legacy, ctx)
    assert not evaluate(one("status", "is", "hold"), legacy, ctx)
    assert evaluate(one("via", "is_not", "email"), legacy, ctx)
