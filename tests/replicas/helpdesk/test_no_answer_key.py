"""No answer key in the agent's view: the policy values tasks test (refund windows by tier,
the approval threshold and the managers' limit) live in the help center's articles, never
in the helpdesk's tool descriptions or schemas (the OpenAPI document the tools derive from),
its brief or its description. The checkout's side: tests/replicas/checkout/test_no_answer_key.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI

from replicas.helpdesk.spec import SPEC
from tests.replicas.helpdesk.helpdesk_support import MakeEpisode
from tests.replicas.policy import ARTICLE, WINDOWS, policy_values, strings

pytestmark = pytest.mark.anyio
BRIEF = Path(__file__).parents[3] / "replicas" / "helpdesk" / "brief.md"


def test_the_articles_state_the_policy() -> None:
    """The check finds the values where they belong (else it could never fail)."""
    assert set(WINDOWS) == {"standard", "silver", "gold", "platinum"}
    stated = policy_values(ARTICLE["body"])
    assert {f"{days} days" for days in WINDOWS.values()} <= set(stated)
    assert any(value.startswith("USD ") for value in stated)


def test_no_tool_description_or_schema_states_a_policy_value(app: FastAPI) -> None:
    leaks = {text: values for text in strings(app.openapi()) if (values := policy_values(text))}
    assert leaks == {}


def test_the_brief_and_description_state_no_policy_value() -> None:
    for text in (BRIEF.read_text(), SPEC.description, SPEC.title):
        assert policy_values(text) == [], text


async def test_the_agent_finds_the_policy_in_the_help_center(episode: MakeEpisode) -> None:
    api = await episode()
    found = await api.ok("GET", "/api/v2/help_center/articles/search",
                         params={"query": "loyalty tier"})
    article = next(a for a in found["results"] if a["title"] == ARTICLE["title"])
    assert {f"{days} days" for days in WINDOWS.values()} <= set(policy_values(article["body"]))
