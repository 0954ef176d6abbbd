"""Load tests of rollout throughput with locust (`make load`, ``python -m workgym_perf.load``).

One locust user is one agent doing episodes against a WorkGym server over HTTP: it creates an
episode with the operator's API key, takes steps through the proxy with the episode's token
(the task's reference script, with read-only tool calls among them), and finishes it. Every
request is reported under its route (``GET /apps/helpdesk/api/v2/tickets/{ticket_id}``), and
every episode as an ``EPISODE`` event named after its task, timed from creation to the report.
"""
