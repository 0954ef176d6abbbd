"""The notes app's :class:`ReplicaSpec`."""

from __future__ import annotations

from replicas.runtime.spec import ReplicaSpec

from .factories import ACTIVITY, FACTORIES
from .routes import TAGS, router

SPEC = ReplicaSpec(
    name="notes",
    title="Notes",
    description=(
        "The company's shared notes about the people it deals with (customers, partners): "
        "the people, and notes about them that anyone may read, add, edit or delete; pinned "
        "notes are kept until unpinned. Errors are JSON "
        '{"error": {code, message, field, rule}}.'
    ),
    data_version="1",
    router=router,
    probe={"update": "people", "id": 1,
           "values": {"company": "Probe Holdings (no task allows this)"}},
    factories=FACTORIES,
    activity=ACTIVITY,
    openapi_tags=TAGS,
)
