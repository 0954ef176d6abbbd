"""The span contract: the names of the spans WorkGym's services emit and of their attributes.

Emitters (gym API, proxy, replicas) and the reader (the telemetry store: its timeline,
summaries and records) import these names; neither side spells them out.
"""

from __future__ import annotations

# Spans.
PROXY_STEP = "proxy.step"  # one agent request, in the proxy: the root of a step's trace
REPLICA_REQUEST = "replica.request"  # the request in the replica, a child of its step
EPISODE_CREATE = "episode.create"
EPISODE_FINISH = "episode.finish"
EPISODE_FORK = "episode.fork"
REWARD_SCORE = "reward.score"

# A resource attribute: which service emitted the span.
SERVICE_NAME = "service.name"

# WorkGym's attributes.
EPISODE_ID = "workgym.episode_id"
FORK_ID = "workgym.fork_id"  # the episode a fork made
TASK = "workgym.task"
SEED = "workgym.seed"
STEP = "workgym.step"  # the step's 1-based request index in its episode
APP = "workgym.app"
FAULT = "workgym.fault"  # comma-separated fault kinds
REQUEST_BODY = "workgym.request_body"
RESPONSE_BODY = "workgym.response_body"
CHANGES = "workgym.changes"  # JSON list of {"table", "op", "id"}
REWARD = "workgym.reward"
SUCCESS = "workgym.success"
REPORT = "workgym.report"  # the reward report, JSON

# OpenTelemetry's semantic conventions.
HTTP_METHOD = "http.request.method"
HTTP_STATUS = "http.response.status_code"
URL_PATH = "url.path"
URL_QUERY = "url.query"
DB_SYSTEM = "db.system"
DB_STATEMENTS = "db.statements"  # the SQL statements a replica request ran
