"""A ``browser:`` solution of a family's act, through the pages ``workgym factory compile``
generates for an object type (``replicas/<app>/pages/objects.py`` names each type's pages):
search the type's list for what the instruction names, open the one record found, then set
the machine's column in the record's edit form (or, for the type's pipeline stage, its
stage form). Apps with hand-written pages get none from here."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from ..task_rules import Finder
from .common import Case


def _object_page(app: str, table: str) -> Any:
    """The generated pages' view of ``table`` in ``app`` (None: not a generated page set)."""
    name = f"replicas.{app}.pages.objects"
    if importlib.util.find_spec(f"replicas.{app}.pages") is None or \
            importlib.util.find_spec(name) is None:
        return None
    return getattr(importlib.import_module(name), table.upper(), None)


def browser_act(app: str, case: Case, finder: Finder) -> dict[str, Any] | None:
    """The case's act done in the browser, the record found by the finder's first given
    value; None where the app has no generated pages for the record's table."""
    shown = _object_page(app, case.sm.table)
    if shown is None:
        return None
    looked_up = next(iter(finder.given))
    steps: list[dict[str, Any]] = [
        {"goto": f"{app}:/{app}/{case.sm.table}"},
        {"fill": {"testid": "search-input"}, "value": "{" + looked_up + "}"},
        {"click": {"testid": "search-submit"}},
        {"click": {"testid_prefix": "record-link-"}}]
    if case.column == shown.referring("pipeline_stages"):
        steps += [{"select_option": {"testid": "stage-select"}, "value": case.to},
                  {"click": {"testid": "stage-move"}}, {"expect": "Stage changed."}]
    else:
        steps += [{"select_option": {"testid": f"edit-{case.column}"}, "value": case.to},
                  {"click": {"testid": "edit-save"}}, {"expect": "Saved."}]
    return {"given": finder.given, "steps": steps}
