"""Business rules and configuration, read-only: ticket fields, macros, triggers, automations,
SLA policies and business-hours schedules (with their holidays)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query
from starlette.responses import Response

from replicas.runtime.db import get_row
from replicas.runtime.deps import EpisodeDep
from replicas.runtime.params import Id
from replicas.runtime.responses import ok

from .. import render
from ..listing import Paging, PagingDep, table_page
from ..schemas import (
    AutomationResult,
    Automations,
    Holidays,
    MacroResult,
    Macros,
    ScheduleResult,
    Schedules,
    SlaPolicies,
    SlaPolicyResult,
    TicketFieldResult,
    TicketFields,
    TriggerResult,
    Triggers,
)
from .common import Base

router = APIRouter(tags=["business rules"])

Row = dict[str, Any]
Convert = Callable[[Row, str], Row]
FieldId = Annotated[Id, Path(description="Id of the ticket field.")]
MacroId = Annotated[Id, Path(description="Id of the macro.")]
TriggerId = Annotated[Id, Path(description="Id of the trigger.")]
AutomationId = Annotated[Id, Path(description="Id of the automation.")]
PolicyId = Annotated[Id, Path(description="Id of the SLA policy.")]
ScheduleId = Annotated[Id, Path(description="Id of the schedule.")]
Active = Annotated[bool | None, Query(description="Only active (true) or inactive (false).")]


def _list(episode: EpisodeDep, paging: Paging, base: str, key: str, table: str,
          convert: Convert, order: str, active: bool | None = None) -> Response:
    where, params = (["active = ?"], [int(active)]) if active is not None else ([], [])
    return ok(table_page(episode.db, paging, table, where, params, order,
                         lambda row: convert(row, base), key=key))


def _show(episode: EpisodeDep, base: str, key: str, table: str, row_id: int,
          convert: Convert, noun: str) -> Response:
    return ok({key: convert(get_row(episode.db, table, row_id, noun=noun), base)})


# ---------------------------------------------------------------------------
# Ticket fields
# ---------------------------------------------------------------------------


@router.get("/api/v2/ticket_fields", operation_id="list_ticket_fields",
            summary="List ticket fields", response_model=TicketFields)
async def list_ticket_fields(episode: EpisodeDep, paging: PagingDep, base: Base) -> Response:
    """The custom ticket fields (Order number, Product, Contact reason): their ids, to set
    in a ticket's custom_fields [{id, value}], and a drop-down's allowed option values
    (custom_field_options)."""
    return _list(episode, paging, base, "ticket_fields", "ticket_fields", render.ticket_field,
                 "position, id")


@router.get("/api/v2/ticket_fields/{field_id}", operation_id="show_ticket_field",
            summary="Show a ticket field", response_model=TicketFieldResult)
async def show_ticket_field(field_id: FieldId, episode: EpisodeDep, base: Base) -> Response:
    """One ticket field, with a drop-down's options."""
    return _show(episode, base, "ticket_field", "ticket_fields", field_id, render.ticket_field,
                 "ticket field")


# ---------------------------------------------------------------------------
# Macros
# ---------------------------------------------------------------------------


@router.get("/api/v2/macros", operation_id="list_macros", summary="List macros",
            response_model=Macros)
async def list_macros(episode: EpisodeDep, paging: PagingDep, base: Base,
                      active: Active = None) -> Response:
    """Canned responses: each macro's actions (the fields it sets and the comment it adds).
    To use one on a ticket, preview it (GET /api/v2/tickets/{ticket_id}/macros/{macro_id}/
    apply) and save the result with an update."""
    return _list(episode, paging, base, "macros", "macros", render.macro, "id", active)


@router.get("/api/v2/macros/active", operation_id="list_active_macros",
            summary="List active macros", response_model=Macros)
async def list_active_macros(episode: EpisodeDep, paging: PagingDep, base: Base) -> Response:
    """The macros that are active."""
    return _list(episode, paging, base, "macros", "macros", render.macro, "id", True)


@router.get("/api/v2/macros/{macro_id}", operation_id="show_macro", summary="Show a macro",
            response_model=MacroResult)
async def show_macro(macro_id: MacroId, episode: EpisodeDep, base: Base) -> Response:
    """One macro and its actions."""
    return _show(episode, base, "macro", "macros", macro_id, render.macro, "macro")


# ---------------------------------------------------------------------------
# Triggers and automations
# ---------------------------------------------------------------------------


@router.get("/api/v2/triggers", operation_id="list_triggers", summary="List triggers",
            response_model=Triggers)
async def list_triggers(episode: EpisodeDep, paging: PagingDep, base: Base,
                        active: Active = None) -> Response:
    """Business rules that run, in position order, right after a ticket is created or
    updated: when a ticket meets the conditions (all / any), the actions are applied."""
    return _list(episode, paging, base, "triggers", "triggers", render.trigger,
                 "position, id", active)


@router.get("/api/v2/triggers/active", operation_id="list_active_triggers",
            summary="List active triggers", response_model=Triggers)
async def list_active_triggers(episode: EpisodeDep, paging: PagingDep,
                               base: Base) -> Response:
    """The triggers that are active, in position order."""
    return _list(episode, paging, base, "triggers", "triggers", render.trigger,
                 "position, id", True)


@router.get("/api/v2/triggers/{trigger_id}", operation_id="show_trigger",
            summary="Show a trigger", response_model=TriggerResult)
async def show_trigger(trigger_id: TriggerId, episode: EpisodeDep, base: Base) -> Response:
    """One trigger: conditions and actions."""
    return _show(episode, base, "trigger", "triggers", trigger_id, render.trigger, "trigger")


@router.get("/api/v2/automations", operation_id="list_automations",
            summary="List automations", response_model=Automations)
async def list_automations(episode: EpisodeDep, paging: PagingDep, base: Base,
                           active: Active = None) -> Response:
    """Time-based business rules, checked every hour: tickets meeting the conditions (e.g.
    hours since a status change) get the actions."""
    return _list(episode, paging, base, "automations", "automations", render.automation,
                 "position, id", active)


@router.get("/api/v2/automations/active", operation_id="list_active_automations",
            summary="List active automations", response_model=Automations)
async def list_active_automations(episode: EpisodeDep, paging: PagingDep,
                                  base: Base) -> Response:
    """The automations that are active, in position order."""
    return _list(episode, paging, base, "automations", "automations", render.automation,
                 "position, id", True)


@router.get("/api/v2/automations/{automation_id}", operation_id="show_automation",
            summary="Show an automation", response_model=AutomationResult)
async def show_automation(automation_id: AutomationId, episode: EpisodeDep,
                          base: Base) -> Response:
    """One automation: conditions and actions."""
    return _show(episode, base, "automation", "automations", automation_id,
                 render.automation, "automation")


# ---------------------------------------------------------------------------
# SLA policies
# ---------------------------------------------------------------------------


@router.get("/api/v2/slas/policies", operation_id="list_sla_policies",
            summary="List SLA policies", response_model=SlaPolicies)
async def list_sla_policies(episode: EpisodeDep, paging: PagingDep, base: Base) -> Response:
    """Service level agreements in position order: the first whose filter a ticket meets
    applies to it. Each policy's metrics give a target in minutes per priority (first reply,
    next reply, requester wait time), in calendar or business hours. A ticket's own SLA
    status: GET /api/v2/tickets/{ticket_id}?include=slas."""
    return _list(episode, paging, base, "sla_policies", "sla_policies", render.sla_policy,
                 "position, id")


@router.get("/api/v2/slas/policies/{policy_id}", operation_id="show_sla_policy",
            summary="Show an SLA policy", response_model=SlaPolicyResult)
async def show_sla_policy(policy_id: PolicyId, episode: EpisodeDep, base: Base) -> Response:
    """One SLA policy: its filter and metrics."""
    return _show(episode, base, "sla_policy", "sla_policies", policy_id, render.sla_policy,
                 "sla policy")


# ---------------------------------------------------------------------------
# Business hours
# ---------------------------------------------------------------------------


@router.get("/api/v2/business_hours/schedules", operation_id="list_schedules",
            summary="List business-hours schedules", response_model=Schedules)
async def list_schedules(episode: EpisodeDep, paging: PagingDep, base: Base) -> Response:
    """Business hours: each schedule's time zone and weekly intervals (start_time/end_time
    in minutes from Sunday 00:00, local time). SLA targets in business hours count only
    these hours, holidays excluded."""
    return _list(episode, paging, base, "schedules", "schedules", render.schedule, "id")


@router.get("/api/v2/business_hours/schedules/{schedule_id}", operation_id="show_schedule",
            summary="Show a schedule", response_model=ScheduleResult)
async def show_schedule(schedule_id: ScheduleId, episode: EpisodeDep,
                        base: Base) -> Response:
    """One business-hours schedule: time zone and weekly intervals."""
    return _show(episode, base, "schedule", "schedules", schedule_id, render.schedule,
                 "schedule")


@router.get("/api/v2/business_hours/schedules/{schedule_id}/holidays",
            operation_id="list_schedule_holidays", summary="List a schedule's holidays",
            response_model=Holidays)
async def list_holidays(schedule_id: ScheduleId, episode: EpisodeDep) -> Response:
    """The schedule's holidays (start_date to end_date, inclusive): no business hours on
    those days."""
    row = get_row(episode.db, "schedules", schedule_id)
    holidays: list[Row] = orjson.loads(row["holidays"] or "[]")
    return ok({"holidays": [render.holiday(schedule_id, i, h)
                            for i, h in enumerate(holidays, start=1)]})
