"""The span contract: the span names and attributes the gym API, proxy and replicas emit."""

from __future__ import annotations

STEP_SPAN = "proxy.step"
REPLICA_SPAN = "replica.request"
CREATE_SPAN = "episode.create"
FINISH_SPAN = "episode.finish"

SERVICE_NAME = "service.name"  # a resource attribute

EPISODE_ID = "workgym.episode_id"
TASK = "workgym.task"
SEED = "workgym.seed"
STEP = "workgym.step"
APP = "workgym.app"
FAULT = "workgym.fault"  # comma-separated fault kinds
REQUEST_BODY = "workgym.request_body"
RESPONSE_BODY = "workgym.response_body"
CHANGES = "workgym.changes"  # JSON list of {"table", "op", "id"}
REWARD = "workgym.reward"
SUCCESS = "workgym.success"
REPORT = "workgym.report"  # the reward report, JSON

METHOD = "http.request.method"
PATH = "url.path"
QUERY = "url.query"
STATUS = "http.response.status_code"
