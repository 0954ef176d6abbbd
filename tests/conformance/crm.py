"""The CRM's conformance material shared by its tests: HubSpot's object types as its client
groups them (the package of ``hubspot.crm`` whose models describe each), and the properties
HubSpot accepts to create one record of each."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# An episode of the CRM's suite: its first task (any of them serves the whole API).
TASK = "crm/" + min((p.stem for p in ROOT.glob("tasks/crm/*.yaml")), default="(none)")

OBJECTS = ("contacts", "companies", "deals", "tickets", "notes", "tasks")
# Object type -> the client's package (``hubspot_shapes``' shape prefix).
PACKAGES = {"contacts": "contacts", "companies": "companies", "deals": "deals",
            "tickets": "tickets", "notes": "objects.notes", "tasks": "objects.tasks"}
STAMP = "2026-03-02T10:00:00.000Z"


def new_record(kind: str, n: int, stage: tuple[str, str] = ("", "")) -> dict[str, str]:
    """Properties of a new record of ``kind`` (the ``n``-th of a test, so its values are its
    own); a deal or a ticket is put in ``stage``, its (pipeline id, stage id)."""
    pipeline, step = stage
    return {
        "contacts": {"email": f"client{n}@hubspot-client.example", "firstname": "Ana",
                     "lastname": f"Client{n}"},
        "companies": {"name": f"Client Co {n}", "domain": f"client{n}.example"},
        "deals": {"dealname": f"Client deal {n}", "amount": "1200", "pipeline": pipeline,
                  "dealstage": step},
        "tickets": {"subject": f"Client ticket {n}", "hs_pipeline": pipeline,
                    "hs_pipeline_stage": step},
        "notes": {"hs_note_body": f"Called them ({n})", "hs_timestamp": STAMP},
        "tasks": {"hs_task_subject": f"Follow up {n}", "hs_task_status": "NOT_STARTED",
                  "hs_timestamp": STAMP},
    }[kind]


def pipeline_of(kind: str) -> str | None:
    """The object type whose pipelines a record of ``kind`` sits in, if any."""
    return kind if kind in ("deals", "tickets") else None
