"""The telemetry store's credentials: who may export spans, who may read episodes, and that
`workgym export` ships only reports the gym signed.

Reading (API and pages) is the operator's: ``Authorization: Bearer <API key>`` or the
session cookie of ``POST /login``; one episode's page and timeline also open with its signed
link. Ingest is the services': ``Authorization: Bearer <internal secret>``. Each test is one
class of attack, refused the same way for episodes that exist and episodes that do not.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.telemetry.conftest import MakeServer, Served
from tests.telemetry.conftest import make_server as make_server  # noqa: F401 - fixture
from tests.telemetry.emit import CLOSE, REFUND, EpisodePlan, export_episode, protobuf_exporter
from workgym import cli
from workgym_core import credentials

UNKNOWN = "ep-nobody-ran-this"
FRESH = int(time.time()) + 3600  # a signed link's expiry, an hour from now


@pytest.fixture
def served(make_server: MakeServer) -> Served:  # noqa: F811 - the imported fixture
    """A store holding two finished episodes."""
    served = make_server()
    export_episode(REFUND, protobuf_exporter(served.url, served.secret))
    export_episode(CLOSE, protobuf_exporter(served.url, served.secret))
    return served


def _api(episode: str) -> list[str]:
    return ["/v1/episodes", f"/v1/episodes/{episode}/trace", f"/v1/episodes/{episode}/timeline"]


def _pages(episode: str) -> list[str]:
    return ["/", f"/episodes/{episode}"]


def _refused_as_api(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 401, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.headers["www-authenticate"].startswith("Bearer")
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == "unauthorized"
    assert REFUND.task not in response.text and "refund" not in response.text.lower()
    return error


def _refused_as_page(response: httpx.Response) -> str:
    assert response.status_code == 401, response.text
    assert response.headers["content-type"].startswith("text/html")
    assert "<form class=login method=post action='/login'>" in response.text
    assert "name=api_key" in response.text
    assert REFUND.task not in response.text and "details class" not in response.text
    return response.text


def test_reading_without_credentials_is_refused_alike_for_every_episode(
        served: Served) -> None:
    http = served.anonymous
    for path in _api(REFUND.episode_id):
        known = _refused_as_api(http.get(path))
        assert known == _refused_as_api(http.get(path.replace(REFUND.episode_id, UNKNOWN)))
    for path in _pages(REFUND.episode_id):
        known_page = _refused_as_page(http.get(path))
        unknown_page = _refused_as_page(http.get(path.replace(REFUND.episode_id, UNKNOWN)))
        assert known_page == unknown_page.replace(UNKNOWN, REFUND.episode_id)
    health = http.get("/healthz")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})  # no counts


def test_a_wrong_credential_is_refused(served: Served) -> None:
    from workgym_telemetry.auth import SESSION_COOKIE, session_cookie

    settings = served.settings
    sig = credentials.page_signature(served.api_key, REFUND.episode_id, FRESH)
    wrong_headers = [
        {"Authorization": "Bearer wgk_not-the-key"},
        {"Authorization": f"Bearer {served.secret}"},  # the services' credential reads nothing
        {"Authorization": f"Basic {served.api_key}"},
        {"Authorization": f"Bearer {served.api_key}x"},
        {"Authorization": f"Bearer {sig}"},  # a link's signature is no API key
    ]
    wrong_cookies = [
        served.api_key,  # the cookie is derived from the key, never the key
        f"{int(time.time()) + 3600}.{'0' * 64}",
        session_cookie(settings, time.time() - settings.session_ttl_s - 1),  # expired
        session_cookie(settings, time.time()).replace(".", "9.", 1),  # expiry moved
    ]
    for episode in (REFUND.episode_id, UNKNOWN):
        for headers in wrong_headers:
            for path in _api(episode):
                _refused_as_api(served.anonymous.get(path, headers=headers))
            for path in _pages(episode):
                _refused_as_page(served.anonymous.get(path, headers=headers))
        for cookie in wrong_cookies:
            jar = {"Cookie": f"{SESSION_COOKIE}={cookie}"}
            for path in _api(episode):
                _refused_as_api(served.anonymous.get(path, headers=jar))
            for path in _pages(episode):
                _refused_as_page(served.anonymous.get(path, headers=jar))
    # A wrong key in the header is not rescued by a good cookie: the header decides.
    good = session_cookie(settings, time.time())
    _refused_as_api(served.anonymous.get("/v1/episodes", headers={
        "Authorization": "Bearer nope", "Cookie": f"{SESSION_COOKIE}={good}"}))
    assert served.anonymous.get("/v1/episodes", headers={
        "Cookie": f"{SESSION_COOKIE}={good}"}).status_code == 200
    assert served.http.get("/v1/episodes").status_code == 200


def test_the_login_form_takes_only_the_key_and_sets_a_derived_strict_cookie(
        served: Served) -> None:
    http = served.anonymous
    target = f"/episodes/{REFUND.episode_id}"
    for wrong in ("", "wgk_not-the-key", served.secret, served.api_key[:-1]):
        refused = http.post("/login", data={"api_key": wrong, "next": target})
        assert refused.status_code == 401
        assert "That is not the API key." in refused.text
        assert f"value='{target}'" in refused.text  # asks again, for the same page
        assert "set-cookie" not in refused.headers
    assert http.post("/login", content=b"api_key=" + b"x" * 10_000,
                     headers={"Content-Type": "application/x-www-form-urlencoded"}
                     ).status_code == 401

    logged_in = http.post("/login", data={"api_key": served.api_key, "next": target})

    assert (logged_in.status_code, logged_in.headers["location"]) == (303, target)
    cookie = logged_in.headers["set-cookie"]
    value = cookie.split(";")[0].removeprefix("workgym_session=")
    assert served.api_key not in cookie and value
    attributes = {a.strip().lower() for a in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= attributes
    page = http.get(target, headers={"Cookie": f"workgym_session={value}"})
    assert page.status_code == 200 and REFUND.episode_id in page.text


@pytest.mark.parametrize("target", [
    "https://evil.example/", "//evil.example/x", "/\\evil.example", "\\\\evil.example",
    "javascript:alert(1)", "/\t/evil.example", "evil.example", "http:/evil.example",
])
def test_logging_in_goes_back_only_to_this_site(served: Served, target: str) -> None:
    response = served.anonymous.post("/login", data={"api_key": served.api_key,
                                                     "next": target})

    assert (response.status_code, response.headers["location"]) == (303, "/")


def test_a_signed_link_opens_its_episode_and_no_other(served: Served) -> None:
    http = served.anonymous
    link = credentials.page_link(served.url, served.api_key, REFUND.episode_id, FRESH)
    query = credentials.page_query(served.api_key, REFUND.episode_id, FRESH)

    page = http.get(link)
    timeline = http.get(f"/v1/episodes/{REFUND.episode_id}/timeline", params=query)

    assert page.status_code == 200 and REFUND.episode_id in page.text
    assert f"/timeline?exp={FRESH}&amp;sig={query['sig']}" in page.text  # its JSON link too
    assert page.headers["referrer-policy"] == "no-referrer"  # the link is a credential
    assert timeline.status_code == 200 and timeline.json()["episode_id"] == REFUND.episode_id
    foreign = [_refused_as_page(http.get(f"/episodes/{other}", params=query))
               for other in (CLOSE.episode_id, UNKNOWN)]
    assert foreign[0] == foreign[1].replace(UNKNOWN, CLOSE.episode_id)  # no oracle
    for other in (CLOSE.episode_id, UNKNOWN):
        _refused_as_api(http.get(f"/v1/episodes/{other}/timeline", params=query))
    _refused_as_api(http.get(f"/v1/episodes/{REFUND.episode_id}/trace", params=query))
    _refused_as_api(http.get("/v1/episodes", params=query))
    _refused_as_page(http.get("/", params=query))
    other_key = credentials.page_query("wgk_another-deployment", REFUND.episode_id, FRESH)
    _refused_as_page(http.get(f"/episodes/{REFUND.episode_id}", params=other_key))


def test_a_signed_link_expires_and_its_expiry_cannot_be_moved(served: Served) -> None:
    http = served.anonymous
    past = int(time.time()) - 1
    expired = credentials.page_query(served.api_key, REFUND.episode_id, past)
    timeline = f"/v1/episodes/{REFUND.episode_id}/timeline"

    page = http.get(credentials.page_link(served.url, served.api_key, REFUND.episode_id, past))
    api = http.get(timeline, params=expired)

    assert page.status_code == 410
    assert "this signed link expired" in page.text and "name=api_key" in page.text
    assert expired["sig"] not in page.text  # the login form goes back to the page, not the link
    assert REFUND.task not in page.text and "details class" not in page.text
    assert api.status_code == 410 and api.json()["error"]["code"] == "link_expired"
    assert api.json()["error"]["field"] == "exp"
    # The expiry is signed: moved forward, missing or malformed, the link is no credential.
    for query in ({**expired, "exp": str(FRESH)}, {"sig": expired["sig"]},
                  {**expired, "exp": f"+{past}"}, {**expired, "exp": "9" * 40}):
        _refused_as_page(http.get(f"/episodes/{REFUND.episode_id}", params=query))
        _refused_as_api(http.get(timeline, params=query))
    fresh = credentials.page_query(served.api_key, REFUND.episode_id, FRESH)
    assert http.get(timeline, params=fresh).status_code == 200


OTLP_JSON = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{
    "traceId": "ab" * 16, "spanId": "cd" * 8, "name": "episode.finish",
    "startTimeUnixNano": "1", "endTimeUnixNano": "2",
    "attributes": [{"key": "workgym.episode_id", "value": {"stringValue": "ep-forged"}},
                   {"key": "workgym.success", "value": {"boolValue": True}}]}]}]}]})
METRICS_JSON = json.dumps({"resourceMetrics": [{"scopeMetrics": [{"metrics": [{
    "name": "workgym.reward", "gauge": {"dataPoints": [{"asDouble": 1.0}]}}]}]}]})


def test_ingest_without_the_internal_secret_is_refused_and_stores_nothing(
        make_server: MakeServer) -> None:  # noqa: F811 - the imported fixture
    served = make_server()
    forgeries: list[dict[str, str]] = [
        {}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Bearer {served.api_key}"},
        {"Authorization": f"Basic {served.secret}"}, {"Authorization": "Bearer"},
        {"Authorization": f"Bearer {served.secret[:-1]}"},
    ]
    for headers in forgeries:
        for path, body in (("/v1/traces", OTLP_JSON), ("/v1/metrics", METRICS_JSON)):
            response = served.anonymous.post(
                path, content=body, headers={"Content-Type": "application/json", **headers})
            _refused_as_api(response)
    export_episode(REFUND, protobuf_exporter(served.url, "not-the-secret"))  # the OTel SDK

    assert served.store.counts() == {"spans": 0, "points": 0, "episodes": 0}
    assert served.http.get("/v1/episodes").json() == []
    accepted = served.ingest.post("/v1/traces", content=OTLP_JSON,
                                  headers={"Content-Type": "application/json"})
    assert accepted.status_code == 200 and served.store.counts()["spans"] == 1


EXPORT_TASK = "helpdesk/refund-standard"


def _report(episode_id: str, *, success: bool, reward: float) -> dict[str, Any]:
    return {**REFUND.report, "episode_id": episode_id, "task": EXPORT_TASK, "seed": 3,
            "answer": f"answer of {episode_id}", "success": success, "reward": reward}


def _plan(episode_id: str, report: dict[str, Any], **finish: Any) -> EpisodePlan:
    return replace(REFUND, episode_id=episode_id, task=EXPORT_TASK, seed=3, report=report,
                   finish_attributes=finish)


def test_export_ships_only_reports_the_gym_signed(
        make_server: MakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 - the imported fixture
    served = make_server()
    key = served.api_key
    genuine = credentials.sign_report(key, _report("ep-genuine", success=True, reward=1.0))
    failed = credentials.sign_report(key, _report("ep-failed", success=False, reward=0.0))
    tampered = {**credentials.sign_report(key, _report("ep-tampered", success=False,
                                                       reward=0.0)),
                "success": True, "reward": 1.0}
    plans = [
        _plan("ep-genuine", genuine),
        # Signed as failed; the span's own fields, which a forger could set, say otherwise.
        _plan("ep-failed", failed, **{"workgym.success": True, "workgym.reward": 1.0}),
        _plan("ep-unsigned", _report("ep-unsigned", success=True, reward=1.0)),
        _plan("ep-other-key", credentials.sign_report(
            "wgk_another-deployment", _report("ep-other-key", success=True, reward=1.0))),
        _plan("ep-tampered", tampered),
        _plan("ep-replayed", genuine),  # a genuine report, on another episode's spans
    ]
    for plan in plans:
        export_episode(plan, protobuf_exporter(served.url, served.secret))
    monkeypatch.setenv("WORKGYM_DATA_DIR", str(tmp_path / "gym"))

    def export(fmt: str) -> list[dict[str, Any]]:
        out = tmp_path / f"{fmt}.jsonl"
        assert cli.main(["export", "--format", fmt, "--task", EXPORT_TASK, "--telemetry",
                         served.url, "--out", str(out)]) == 0
        return [json.loads(line) for line in out.read_text().splitlines()]

    records = export("jsonl")
    stderr = capsys.readouterr().err
    sft = export("sft")

    metadata = sorted((r["metadata"] for r in records), key=lambda m: m["episode_id"])
    assert [(m["episode_id"], m["success"], m["reward"]) for m in metadata] == [
        ("ep-failed", False, 0.0), ("ep-genuine", True, 1.0)]
    assert [r["messages"][-1]["content"] for r in sft] == ["answer of ep-genuine"]
    assert "skipped 4 episode(s)" in stderr
    for reason in ("1 report not signed", "2 signature does not verify",
                   "1 report of another episode"):
        assert reason in stderr, stderr
