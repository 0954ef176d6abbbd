from __future__ import annotations

from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from workgym_reward import REGISTRY, Verifier
from workgym_reward.assertions import FieldChanged, OnlyChanges, RowExists

TASK_YAML = r"""
verifier:
  - check: row_exists
    name: refund_created
    table: refunds
    where: {charge_id: $charge.id, amount_cents: 2500}
    count: 1
  - check: field_changed
    name: ticket_solved
    table: tickets
    where: {id: $ticket.id}
    field: status
    from: open
    to: solved
  - check: only_changes
    name: no_collateral
    policy: true
    allow:
      - {table: refunds, op: insert, where: {charge_id: $charge.id}}
      - {table: tickets, op: update, where: {id: $ticket.id}, fields: [status, closed_at]}
"""


def _config() -> list[dict[str, Any]]:
    config: list[dict[str, Any]] = yaml.safe_load(TASK_YAML)["verifier"]
    return config


def _error(config: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        Verifier.model_validate(config)
    return str(caught.value)


def test_a_task_verifier_parses_from_yaml() -> None:
    verifier = Verifier.model_validate(_config())

    refund, solved, collateral = verifier.root
    assert isinstance(refund, RowExists) and refund.in_ == "final" and refund.count == 1
    assert isinstance(solved, FieldChanged) and solved.to == "solved"
    assert isinstance(collateral, OnlyChanges) and collateral.policy
    assert collateral.ignore_fields == ["updated_at"]


def test_the_registry_has_every_check() -> None:
    assert set(REGISTRY) == {
        "row_exists", "row_absent", "field_changed", "field_unchanged", "count_changed",
        "only_changes", "trajectory_contains", "trajectory_excludes", "trajectory_order",
        "answer_matches", "sum_changed", "told", "answer", "answer_states",
    }
    assert all(cls.model_fields["check"].default == name for name, cls in REGISTRY.items())


def test_three_to_twelve_assertions() -> None:
    config = _config()
    extra = [{**config[0], "name": f"refund_{i}"} for i in range(10)]

    assert "at least 3 items" in _error(config[1:])
    assert "at most 12 items" in _error(config + extra)
    assert len(Verifier.model_validate(config + extra[:9]).root) == 12


def test_names_are_unique() -> None:
    config = _config()
    config[1]["name"] = "refund_created"

    assert "assertion names must be unique; repeated: refund_created" in _error(config)


def test_collateral_damage_is_always_checked() -> None:
    config = _config()
    config[2] = {**config[0], "name": "another"}

    assert "every verifier needs an only_changes assertion" in _error(config)


def test_unknown_checks_and_keys_are_named() -> None:
    config = _config()
    config[0]["check"] = "row_exist"
    assert "Input tag 'row_exist' found using 'check' does not match" in _error(config)

    config = _config()
    config[1]["form"] = "open"
    assert "form\n  Extra inputs are not permitted" in _error(config)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"where": {"id": {"equals": 1}}}, "unknown operator 'equals'"),
        ({"to": {"gt": None}}, "null only compares with eq or ne"),
        ({"table": None}, "table\n  Input should be a valid string"),
    ],
)
def test_malformed_assertions(change: dict[str, Any], message: str) -> None:
    config = _config()
    config[1].update(change)

    assert message in _error(config)


@pytest.mark.parametrize(
    ("assertion", "message"),
    [
        ({"check": "answer_matches", "equals": "x", "pattern": "y"}, "exactly one of pattern"),
        ({"check": "answer_matches"}, "exactly one of pattern, equals, contains_all"),
        ({"check": "answer_matches", "pattern": "("}, "pattern is not a valid regular expr"),
        ({"check": "trajectory_contains", "method": "GET", "path": "/api/v2/tickets/\\d+"},
         "not regular expressions"),
        ({"check": "trajectory_contains", "method": "GET", "path": "/", "status": "20x"},
         "should match pattern"),
        ({"check": "trajectory_contains", "method": "GET", "path": "/", "min": 2, "max": 1},
         "max (1) is below min (2)"),
        ({"check": "only_changes", "allow": [{"table": "t", "op": "insert", "fields": ["a"]}]},
         "fields only applies to op: update, not op: insert"),
        ({"check": "row_exists", "table": "t", "in": "before"}, "Input should be 'initial' or"),
    ],
)
def test_check_specific_rules(assertion: dict[str, Any], message: str) -> None:
    config = _config()
    config[0] = {"name": "refund_created", **assertion}

    assert message in _error(config)
