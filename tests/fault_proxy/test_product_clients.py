"""Other people's clients, unchanged but for host, port and credentials, reach an episode at
each app's own port (WORKGYM_APP_PORTS: the product's own base path, an episode's ``roots``)
with the credentials they send (a bearer, HTTP Basic with the token as the password, Jira's
cookie session), through a real ``workgym serve``; refusals the proxy answers in an app's
place are in that product's error shape."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from urllib.parse import urlsplit

import httpx
import pytest
import stripe
from jira import JIRA
from zenpy import Zenpy

import workgym
from workgym.processes import serving
from workgym.sdk import Env, Observation
from workgym_proxy.gateway import REDACTED

TASKS = {"checkout": "checkout/refund-returned-order", "tracker": "tracker/start-work-on-bug",
         "helpdesk": "helpdesk/stale-contact-update"}
BUDGET = 200  # WORKGYM_STEP_BUDGET: a client suite's run, not a task's 60 requests
NODE_STRIPE = "18.3.0"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Env]]:
    """An episode of each app (its own task), on one server."""
    env = {**os.environ, "WORKGYM_DATA_DIR": str(tmp_path_factory.mktemp("clients")),
           "WORKGYM_STEP_BUDGET": str(BUDGET)}
    with ExitStack() as stack:
        url = stack.enter_context(serving(env=env))
        found = {app: stack.enter_context(workgym.connect(url, task, seed=3, faults="none"))
                 for app, task in TASKS.items()}
        for run in found.values():
            run.reset()
        yield found


@pytest.fixture
def episodes(runs: dict[str, Env]) -> dict[str, Observation]:
    return {app: run.observation for app, run in runs.items() if run.observation}


def test_episodes_name_each_apps_own_base_and_the_operators_budget(
        episodes: dict[str, Observation]) -> None:
    """The same app at <apps[app]> and at <roots[app]> with the product's own paths."""
    for app, obs in episodes.items():
        assert obs.max_steps == BUDGET
        root = urlsplit(obs.roots[app])
        assert (root.path, root.port) == ("", root.port) and root.port != urlsplit(
            obs.apps[app]).port


def test_stripe_python_with_the_root_as_its_api_base(
        episodes: dict[str, Observation], monkeypatch: pytest.MonkeyPatch) -> None:
    """stripe-python's ``api_base`` is a host, every path under /v1 on it
    (https://docs.stripe.com/api: base URL https://api.stripe.com)."""
    obs = episodes["checkout"]
    monkeypatch.setattr(stripe, "api_base", obs.roots["checkout"])
    monkeypatch.setattr(stripe, "api_key", obs.token)
    monkeypatch.setattr(stripe, "max_network_retries", 0)
    customer = stripe.Customer.create(email="root@example.com")
    intent = stripe.PaymentIntent.create(amount=1200, currency="usd", customer=customer.id,
                                         payment_method="pm_card_visa", confirm=True)
    assert (intent.status, intent.customer) == ("succeeded", customer.id)
    with pytest.raises(stripe.InvalidRequestError) as missing:
        stripe.Customer.retrieve("cus_nope")
    assert missing.value.code == "resource_missing"


@pytest.mark.slow
def test_the_node_stripe_package_reaches_the_checkout_at_its_root(
        episodes: dict[str, Observation], tmp_path_factory: pytest.TempPathFactory) -> None:
    """The Node ``stripe`` package fixes its base path at ``/v1/`` on the host it is given
    (``host``, ``port``, ``protocol``: https://github.com/stripe/stripe-node#configuration)."""
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("node and npm are needed to run the Node stripe package")
    where = tmp_path_factory.mktemp("node-stripe")
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent",
                    f"stripe@{NODE_STRIPE}"], cwd=where, check=True, capture_output=True,
                   timeout=300)
    root = urlsplit(episodes["checkout"].roots["checkout"])
    script = where / "pay.js"
    script.write_text(_NODE_SCRIPT)
    done = subprocess.run(["node", str(script), root.hostname or "", str(root.port),
                           episodes["checkout"].token], cwd=where, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    assert made["customer"].startswith("cus_") and made["intent"].startswith("pi_")
    assert (made["status"], made["intent_customer"]) == ("requires_payment_method",
                                                         made["customer"])
    assert made["missing"] == [404, "resource_missing", "StripeInvalidRequestError"]


_NODE_SCRIPT = """
const Stripe = require('stripe');
const [host, port, key] = process.argv.slice(2);
const stripe = new Stripe(key, {host, port: Number(port), protocol: 'http',
                                maxNetworkRetries: 0, telemetry: false});
(async () => {
  const customer = await stripe.customers.create({email: 'node@example.com'});
  const intent = await stripe.paymentIntents.create(
      {amount: 1000, currency: 'usd', customer: customer.id});
  let missing = null;
  try { await stripe.customers.retrieve('cus_nope'); }
  catch (e) { missing = [e.statusCode, e.code, e.type]; }
  console.log(JSON.stringify({customer: customer.id, intent: intent.id, status: intent.status,
                              intent_customer: intent.customer, missing}));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def test_jira_with_basic_auth_the_token_as_its_password(
        episodes: dict[str, Observation]) -> None:
    """Jira Cloud's basic auth: ``email:api_token``
    (https://developer.atlassian.com/cloud/jira/platform/basic-auth-for-rest-apis/)."""
    obs = episodes["tracker"]
    jira = JIRA(server=obs.roots["tracker"], basic_auth=("agent@example.com", obs.token),
                max_retries=0)
    assert jira.myself()["accountId"]
    assert jira.projects()


@pytest.mark.filterwarnings("ignore:Use OAuth or Token based authentication")
def test_jira_cookie_session_login_current_user_and_logout(
        episodes: dict[str, Observation]) -> None:
    """Jira's cookie-based authentication: POST /rest/auth/1/session answers ``session``
    (name, value) and ``loginInfo`` and sets the cookie; GET answers the current user
    (``self``, ``name``, ``loginInfo``); DELETE logs out, 204
    (https://developer.atlassian.com/server/jira/platform/cookie-based-authentication/)."""
    obs = episodes["tracker"]
    root = obs.roots["tracker"]
    jira = JIRA(server=root, auth=("agent", obs.token), max_retries=0)
    me = jira.session()
    assert me.name and me.raw["self"].startswith(root) and "loginInfo" in me.raw
    assert jira.projects()
    with httpx.Client(base_url=root, trust_env=False) as http:
        login = http.post("/rest/auth/1/session",
                          json={"username": "agent", "password": obs.token})
        assert login.status_code == 200
        session = login.json()["session"]
        assert session["name"] == "JSESSIONID" and http.cookies["JSESSIONID"] == session["value"]
        assert set(login.json()["loginInfo"]) >= {"failedLoginCount", "loginCount"}
        assert http.get("/rest/auth/1/session").json()["name"] == me.name
        assert http.delete("/rest/auth/1/session").status_code == 204
        assert "JSESSIONID" not in http.cookies
        out = http.get("/rest/auth/1/session")
    assert out.status_code == 401
    assert out.json() == {"errorMessages": [out.json()["errorMessages"][0]], "errors": {}}


@pytest.mark.parametrize("credentials", ["token", "oauth"])
def test_zenpy_with_an_api_token_or_an_oauth_token(
        episodes: dict[str, Observation], credentials: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Zendesk's API token (``email/token:TOKEN`` basic auth) and OAuth bearer
    (https://developer.zendesk.com/api-reference/introduction/security-and-auth/)."""
    obs = episodes["helpdesk"]
    root = urlsplit(obs.roots["helpdesk"])
    monkeypatch.setenv("ZENPY_FORCE_SCHEME", root.scheme)
    monkeypatch.setenv("ZENPY_FORCE_NETLOC", root.netloc)
    zenpy = Zenpy(subdomain="episode", disable_cache=True, **(
        {"email": "agent@example.com", "token": obs.token} if credentials == "token"
        else {"oauth_token": obs.token}))
    assert zenpy.users.me().id
    assert any(True for _ in zenpy.groups())


def test_refusals_at_each_root_are_in_the_products_shape(
        episodes: dict[str, Observation]) -> None:
    """No credential: 401 in Stripe's error object (https://docs.stripe.com/api/errors),
    Zendesk's {error, description}
    (https://developer.zendesk.com/api-reference/introduction/requests/), Jira's
    {errorMessages, errors} (https://developer.atlassian.com/cloud/jira/platform/rest/v3/intro/
    #status-codes)."""
    paths = {"checkout": "/v1/customers", "helpdesk": "/api/v2/groups",
             "tracker": "/rest/api/2/myself"}
    bodies = {app: httpx.get(obs.roots[app] + paths[app], trust_env=False)
              for app, obs in episodes.items()}
    assert {app: r.status_code for app, r in bodies.items()} == dict.fromkeys(paths, 401)
    stripe_error = bodies["checkout"].json()["error"]
    assert (stripe_error["type"], stripe_error["code"]) == ("invalid_request_error",
                                                           "missing_token")
    assert bodies["helpdesk"].json()["error"] == "missing_token"
    assert set(bodies["helpdesk"].json()) == {"error", "description"}
    assert set(bodies["tracker"].json()) == {"errorMessages", "errors"}


def test_the_apps_links_name_the_base_they_were_reached_by(
        episodes: dict[str, Observation]) -> None:
    """A product's ``self`` links are on the base the client used (Jira's ``self``)."""
    obs = episodes["tracker"]
    auth = {"authorization": f"Bearer {obs.token}"}
    at_root = httpx.get(obs.roots["tracker"] + "/rest/api/2/myself", headers=auth,
                        trust_env=False).json()["self"]
    under_apps = httpx.get(obs.apps["tracker"] + "/rest/api/2/myself", headers=auth,
                           trust_env=False).json()["self"]
    assert at_root.startswith(obs.roots["tracker"] + "/rest/")
    assert under_apps.startswith(obs.apps["tracker"] + "/rest/")


def test_a_browser_enters_an_apps_own_port_with_its_cookie_on_the_root(
        episodes: dict[str, Observation]) -> None:
    """The browser entry (fault-proxy/workgym_proxy/browser.py) on an app's own port: on to
    the same path without the token, the cookie for the whole port's paths."""
    obs = episodes["checkout"]
    with httpx.Client(base_url=obs.roots["checkout"], trust_env=False) as browser:
        entered = browser.get("/v1/customers", params={"workgym_token": obs.token, "limit": 1})
        assert entered.status_code == 303
        assert entered.headers["location"] == "/v1/customers?limit=1"
        assert "; Path=/;" in entered.headers["set-cookie"]
        assert browser.get("/v1/customers?limit=1").json()["object"] == "list"


def test_a_login_keeps_the_token_off_the_trajectory(runs: dict[str, Env]) -> None:
    """The login's password (the episode's token) is the proxy's: the replica and the
    trajectory get the body without it, and the answer without the cookie's value. (Last:
    it finishes the tracker's episode.)"""
    run = runs["tracker"]
    assert run.observation is not None
    token = run.observation.token
    with httpx.Client(base_url=run.observation.roots["tracker"], trust_env=False) as http:
        assert http.post("/rest/auth/1/session",
                         json={"username": "agent", "password": token}).status_code == 200
    run.finish()
    logins = [step for step in run.trajectory() if step["route"] == "/rest/auth/1/session"]
    assert logins and all(step["request_body"]["password"] == REDACTED for step in logins
                          if step["method"] == "POST")
    assert token not in json.dumps(run.trajectory())
