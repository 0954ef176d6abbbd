"""The LLM customer (``--user openai:MODEL``): a model words the helpdesk customer's replies
from their persona, what they know, their language and the conversation, against a scripted
OpenAI-compatible endpoint on loopback (OpenAI's real client). What they tell stays the
script's (guards), an episode with the reference flow still scores 1.0, a replayed request does
not ask twice, and an endpoint that fails is an infra failure (a JSON 503, the episode's
``infra_error``), never the agent's zero nor a 500."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workgym.agents.reference import reference
from workgym.bench.runner import Planned, run_episode
from workgym.errors import Refused, UserModelFailed
from workgym.local import LocalServer
from workgym.processes import free_port
from workgym.sdk import Env
from workgym.tasks import catalogue

from ..scripted_model import FakeModel, scripted_model

TASK = "helpdesk/ask-order-number"
SEED = 4  # Felix Hoffmann, de-DE: answers in German
SAY = "Your reply must say this, in your own words, and nothing more: "
GREETINGS = {"German": "Hallo, die Nummer ist {}. Danke für Ihre Hilfe!",
             "English": "Hi, it is {}. Thanks for your help!"}


def customer(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A customer who answers from the system prompt: in the language it names, with the
    figures of what the reply must say, in words of its own."""
    system = messages[0]["content"]
    found = re.search(r"Write in (\w+)", system)
    assert found, system
    said = system.split(SAY)[1].split("\n")[0]
    figures = re.findall(r"[A-Z0-9][A-Z0-9-]*\d[A-Z0-9-]*", said)
    words = GREETINGS[found.group(1)].format(" / ".join(figures)) if figures else said
    return {"role": "assistant", "content": words}


def liar(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A customer who makes up an order number."""
    return {"role": "assistant", "content": "Meine Bestellnummer ist 55555-XY."}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeModel]:
    with scripted_model({"customer": customer, "liar": liar}) as model:
        yield model


@pytest.fixture
def model(fake: FakeModel, monkeypatch: pytest.MonkeyPatch) -> FakeModel:
    """The endpoint, as this process's OPENAI_BASE_URL (the in-process replicas ask it)."""
    fake.requests.clear()
    fake.failures.clear()
    monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    return fake


@pytest.fixture
def envs(local: LocalServer) -> Iterator[list[Env]]:
    made: list[Env] = []
    yield made
    for env in made:
        if env.observation is not None:
            env.close()


def _env(envs: list[Env], local: LocalServer, user: str | None, seed: int = SEED) -> Env:
    env = Env.inprocess(local, TASK, seed, "none", user)
    envs.append(env)
    env.reset()
    return env


def _ticket(env: Env) -> tuple[int, dict[str, Any]]:
    """The task's ticket and its requester."""
    assert env.observation is not None
    email = re.search(r"\(([^()\s]+@[^()\s]+)\)", env.observation.instruction)
    assert email
    requester = env.call("GET", "/api/v2/users/search", params={"query": email.group(1)},
                         app="helpdesk").json()["users"][0]
    found = env.call("GET", "/api/v2/search", app="helpdesk", params={
        "query": f"type:ticket requester:{email.group(1)} subject:\"Refund please\""}).json()
    return int(found["results"][0]["id"]), requester


def _ask(env: Env, ticket: int, body: str) -> dict[str, Any]:
    """The agent's public comment; the ticket's last comment after it."""
    asked = env.call("PUT", f"/api/v2/tickets/{ticket}", app="helpdesk",
                     json={"ticket": {"comment": {"body": body, "public": True}}})
    assert asked.status_code == 200, asked.text
    thread = env.call("GET", f"/api/v2/tickets/{ticket}/comments", app="helpdesk").json()
    last: dict[str, Any] = thread["comments"][-1]
    return last


# Replies are kept per process by their request: each test that counts requests asks its own.
QUESTION = "Welche Bestellnummer hat die Bestellung, um die es geht?"


@pytest.mark.slow
def test_asked_in_german_the_model_answers_in_german_with_what_it_knows(
        model: FakeModel, local: LocalServer, envs: list[Env]) -> None:
    env = _env(envs, local, "openai:customer")
    ticket, requester = _ticket(env)
    answer = _ask(env, ticket, QUESTION)
    assert answer["author_id"] == requester["id"]
    number = re.search(r"Die Nummer ist (\S+)\. Danke", answer["body"], re.IGNORECASE)
    assert answer["body"].startswith("Hallo, die Nummer ist ") and number, answer["body"]
    # The request: the persona, what they know, their language and the conversation, greedy,
    # the episode's seed.
    (request,) = model.requests
    assert (request["model"], request["temperature"], request["seed"]) == (
        "customer", 0, SEED)
    system, *turns = request["messages"]
    assert f"You are {requester['name']}" in system["content"]
    assert "Write in German" in system["content"]
    assert re.search(r"- my order number: \S+", system["content"])
    assert "Refund please" in system["content"]  # the ticket they wrote
    assert any(persona in system["content"] for persona in (
        "cooperative and to the point", "do not always remember details right"))
    assert turns == [{"role": "user", "content": QUESTION}]
    # What it says is the script's decision: the number the script gives (a wrong_first
    # customer's slip included), said in the script's reply too.
    assert number.group(1) in system["content"].split(SAY)[1]


def test_the_reference_flow_scores_one_with_the_model_customer(
        model: FakeModel, local: LocalServer, envs: list[Env]) -> None:
    env = _env(envs, local, "openai:customer")
    answer = reference(env, catalogue().get(TASK))
    # The reference read the customer's answer in the model's words.
    read = [step["response_body"]["comments"][-1]["body"] for step in env.trajectory()
            if step["path"].endswith("/comments")]
    assert read and all(body.startswith("Hallo, die Nummer ist ") for body in read), read
    report = env.finish(answer=answer)
    assert report["reward"] == 1.0, report
    assert "infra_error" not in report


def test_a_reply_that_tells_what_the_script_does_not_is_the_scripts_words(
        model: FakeModel, local: LocalServer, envs: list[Env]) -> None:
    """The model makes up a number: its reply is not used; the script's German one is."""
    env = _env(envs, local, "openai:liar")
    ticket, requester = _ticket(env)
    answer = _ask(env, ticket, QUESTION)
    assert answer["author_id"] == requester["id"] and len(model.requests) == 1
    assert "55555" not in answer["body"]
    assert re.match(r"(Gerne, meine Bestellnummer ist|Ich glaube, meine Bestellnummer ist) ",
                    answer["body"]), answer["body"]


def test_the_same_conversation_asks_the_model_once(
        model: FakeModel, local: LocalServer, envs: list[Env]) -> None:
    """A fork asked the same as its parent gets the same words, without a second request."""
    env = _env(envs, local, "openai:customer")
    ticket, _ = _ticket(env)
    fork = env.fork()
    envs.append(fork)
    question = "Wie lautet Ihre Bestellnummer, bitte?"  # no other test asks it
    first, second = _ask(env, ticket, question), _ask(fork, ticket, question)
    assert first["body"] == second["body"] and len(model.requests) == 1


def test_without_a_user_the_scripted_customer_answers(
        model: FakeModel, local: LocalServer, envs: list[Env]) -> None:
    env = _env(envs, local, None)
    ticket, _ = _ticket(env)
    assert re.match(r"(Gerne|Ich glaube), meine Bestellnummer ist ",
                    _ask(env, ticket, QUESTION)["body"])
    assert model.requests == []


@pytest.mark.slow
def test_a_failing_endpoint_is_an_infra_failure_not_the_agents_zero(
        model: FakeModel, local: LocalServer, envs: list[Env]) -> None:
    """The endpoint answers 503 past its retries: the agent's write is refused whole with a
    JSON 503 naming the endpoint (UserModelFailed in the SDK), nothing was said, and the
    report (and a bench's record) carries the infra error."""
    env = _env(envs, local, "openai:customer")
    ticket, _ = _ticket(env)
    model.failures.extend([503] * 3)  # the first try and its two retries
    question = "Können Sie mir Ihre Bestellnummer nennen?"  # no other test asks it
    with pytest.raises(UserModelFailed) as refused:
        _ask(env, ticket, question)
    assert refused.value.status_code == 503
    assert refused.value.error["code"] == "user_model_unavailable"
    assert model.url in refused.value.error["message"]
    step = env.trajectory()[-1]
    assert (step["status"], step["error_code"]) == (503, "user_model_unavailable")
    thread = env.call("GET", f"/api/v2/tickets/{ticket}/comments", app="helpdesk").json()
    assert question not in [c["body"] for c in thread["comments"]]
    # Back up, the same question is answered, as the first time would have been.
    assert _ask(env, ticket, question)["body"].startswith("Hallo, die Nummer ist ")
    report = env.finish()
    assert report["infra_error"].startswith("user model unavailable: "), report

    # A bench's episode of the reference agent, the endpoint down: an infra error.
    down = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_BASE_URL", down)
        record = run_episode(
            lambda task, seed, faults: Env.inprocess(local, task, seed, faults, "openai:customer"),
            reference, Planned(catalogue().get(TASK), 10, 0))  # a seed no test asked of
    assert record["error"] is None and record["success"] is False
    assert record["infra_error"].startswith("user model unavailable: "), record
    assert down in record["infra_error"]


def test_the_option_is_checked(local: LocalServer, envs: list[Env]) -> None:
    with pytest.raises(Refused) as refused:
        _env(envs, local, "gpt-4o")
    assert refused.value.status_code == 422 and "user" in str(refused.value)


@pytest.mark.slow
def test_bench_and_run_take_the_user_and_resume_refuses_another(
        model: FakeModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from workgym.cli import main

    out = tmp_path / "run.json"
    assert main(["bench", "--tasks", TASK, "--seeds", str(SEED), "--faults", "none",
                 "--user", "openai:customer", "--out", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["header"]["user"] == "openai:customer"
    assert "--user openai:customer" in document["header"]["command"]
    assert document["episodes"][0]["success"] is True
    capsys.readouterr()
    assert main(["bench", "--resume", str(out), "--user", "openai:liar"]) == 2
    assert capsys.readouterr().err == (
        f"workgym: error: --resume: {out} was run with user 'openai:customer'; drop --user "
        "or give the same\n")
    assert main(["bench", "--tasks", TASK, "--user", "openai:nope", "--out",
                 str(tmp_path / "no.json")]) == 2
    assert capsys.readouterr().err == (
        f"workgym: error: the model endpoint {model.url} does not serve model 'nope' (it "
        "serves customer, liar): check the model's name in --user openai:MODEL\n")
    with pytest.raises(SystemExit):
        main(["bench", "--tasks", TASK, "--user", "gpt-4o"])
    assert "invalid user 'gpt-4o'" in capsys.readouterr().err
    # workgym run takes it too.
    assert main(["run", "--task", TASK, "--seed", str(SEED), "--faults", "none", "--user",
                 "openai:customer"]) == 0
    assert "reward: 1.000" in capsys.readouterr().out
