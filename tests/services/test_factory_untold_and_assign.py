"""The third family of the checkout and the tracker: ``lookup-act`` takes each transition the
record's rules give no words for (an invoice paid out of band, written off), ``assign`` hands
an issue to a colleague drawn among those Jira lets be assigned it."""

from __future__ import annotations

from collections import Counter
from typing import Any

import yaml

from workgym.factory.families import named
from workgym.factory.synthesis import load_app, render


def _candidates(app: str, family: str) -> list[tuple[str, Any]]:
    return [(c.task_id, yaml.safe_load(render(c, app)))
            for c in named([family])[0].candidates(load_app(app))]


def test_lookup_act_takes_the_transitions_nobody_is_told_of() -> None:
    found = dict(_candidates("checkout", "lookup-act"))
    assert "checkout/lookup-act-invoice-status-paid-by-number" in found
    assert not [name for name in found if "void" in name]  # told: lookup-act-tell's
    paid = found["checkout/lookup-act-invoice-status-paid-by-number"]
    assert "final answer" not in str(paid["instruction"])
    allowed = paid["verifier"][-1]["allow"][0]
    assert sorted(allowed["fields"]) == ["amount_paid", "auto_advance", "paid_at", "status"]


def test_two_machines_moving_one_column_into_one_state_name_their_tasks_apart() -> None:
    names = Counter(task_id for task_id, _ in _candidates("tracker", "lookup-act"))
    assert names and max(names.values()) == 1
    assert "tracker/lookup-act-ops-workflow-blocked-by-key" in names


def test_an_issue_is_assigned_per_lookup_to_a_developer_drawn_first() -> None:
    found = dict(_candidates("tracker", "assign"))
    assert sorted(found) == ["tracker/assign-issue", "tracker/assign-issue-by-label",
                             "tracker/assign-issue-by-reporter", "tracker/assign-issue-by-summary"]
    task = found["tracker/assign-issue-by-summary"]
    setup = task["setup"]
    assert setup[0]["select"] == "project_role_members"
    assert setup[1] == {"select": "users", "where": {"id": "$member.user_id"},
                        "bind": "owner"}
    assert setup[2]["where"] == {"active": 1} and \
        setup[2]["exclude"] == {"id": "$owner.id"}
    act = task["reference"]["steps"][-1]
    assert act["call"] == "PUT /rest/api/3/issue/{{row.key}}/assignee"
    assert act["json"] == {"accountId": "{{ owner.accountId }}"} and act["expect"] == 204
