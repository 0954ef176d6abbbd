"""What the payments dashboard's pages share (replicas/runtime/pages.py): their own templates
(``templates/dashboard/``, a dashboard's base, not the shop's), amounts in the payment's
currency, the amount a person types read in that currency, and a write that is refused shown
as the error page with the rules' message, its changes undone.

Every write calls the same rules the API's route calls (``rules/``): the same events,
policies and approvals; a page is not an API operation (outside the OpenAPI)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Body, Query
from fastapi import Path as PathParam

from replicas.runtime.pages import Pages
from workgym_core import money
from workgym_core.errors import WorkGymError

from ..render import loads
from ..rules.common import World, refused
from .routes import attempt

T = TypeVar("T")
PER_PAGE = 25
ObjectPath = Annotated[str, PathParam(min_length=1, max_length=255)]
Text = Annotated[str, Query(max_length=255)]
Form = Annotated[dict[str, Any], Body()]
_AMOUNT = re.compile(r"^\s*[^\d\s.,-]{0,3}\s*([\d,]*\.?\d*)\s*$")


def amount(value: int | None, currency: str) -> str:
    """``value`` (minor units) as the dashboard shows it: ``$129.00``, ``¥12,800``; in the
    code's own words for a currency without a symbol here."""
    if value is None:
        return "—"
    if currency.upper() in money.CURRENCIES:
        return money.format_symbol(value, currency)
    return money.format_money(value, currency)


def plain(value: int, currency: str) -> str:
    """``value`` as a person types it in the currency: ``12.50``, ``3200`` (yen)."""
    return f"{money.major(value, currency):.{money.digits(currency)}f}"


def when(stamp: int | str | None) -> str:
    """A Unix time or an ISO stamp as the dashboard shows it (UTC)."""
    if stamp is None or stamp == "":
        return "—"
    moment = (datetime.fromtimestamp(stamp, UTC) if isinstance(stamp, int)
              else datetime.fromisoformat(stamp))
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def minor(text: str | None, currency: str, field: str) -> int | None:
    """What a person typed (``12.50``, ``$1,200``, ``3200``) in minor units of
    ``currency``; None when blank; refused (naming ``field``) when it is not an amount of
    that currency (more decimals than it has: yen has none)."""
    if text is None or not text.strip():
        return None
    places = money.digits(currency)
    found = _AMOUNT.match(text)
    try:
        value = Decimal(found.group(1).replace(",", "")) if found else None
    except InvalidOperation:
        value = None
    if value is None or value <= 0 or value != round(value, places):
        decimals = f"at most {places} decimal places" if places else "whole units, no decimals"
        raise refused(f"{field.capitalize()} '{text[:40]}' is not an amount in "
                      f"{currency.upper()} ({decimals}, more than zero).", "parameter_invalid",
                      field)
    return int(value * 10 ** places)


def choice(form: dict[str, Any], field: str, allowed: tuple[str, ...]) -> str | None:
    """The form's ``field``: one of ``allowed``, or None when left blank."""
    given = str(form.get(field) or "")
    if not given:
        return None
    if given not in allowed:
        raise refused(f"{field.capitalize()} must be one of: {', '.join(allowed)}.",
                      "parameter_invalid", field)
    return given


def write(w: World, change: Callable[[], T]) -> T:
    """``change``'s result; refused: its changes undone and the refusal raised (the error
    page says why)."""
    outcome = attempt(w, change)
    if isinstance(outcome, WorkGymError):
        raise outcome
    return outcome


def meta(text: str | None) -> dict[str, Any]:
    found = loads(text) or {}
    return found if isinstance(found, dict) else {}


PAGES = Pages(Path(__file__).with_name("templates") / "dashboard", amount=amount,
              plain=plain, when=when, meta=meta)
page = PAGES.page
DashboardRoute = PAGES.route_class("This link or form is not one of the dashboard's.")
