"""What the CRM's page templates are rendered from (``workgym.factory.pages``): each object
type's name properties, list columns, stage property, and the API operations its page
writes perform, read from the rules and the API description; a description without an
object's update is refused, naming the path."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from workgym.factory.pages import views
from workgym.factory.source import Source, SourceError

SPEC = Path(__file__).resolve().parents[2] / "replicas" / "crm" / "source"


def test_each_object_type_as_its_pages_show_it() -> None:
    shown = {view.name: view for view in views(Source.load(SPEC))}
    assert shown["contacts"].title == ["firstname", "lastname"]
    assert shown["tickets"].title == ["subject"]
    deals = shown["deals"]
    assert (deals.update_op, deals.archive_op, deals.id_param) == ("deals_update",
                                                                   "deals_archive", "dealId")
    assert deals.stage_prop == "dealstage" and shown["contacts"].stage_prop is None
    assert "dealname" not in deals.columns and "createdate" not in deals.columns
    assert shown["notes"].create_op == "notes_create"
    assert shown["contacts"].note_type is not None and shown["notes"].note_type is None
    assert "notes" not in shown["contacts"].related


def test_an_object_without_its_update_operation_is_refused() -> None:
    source = Source.load(SPEC)
    assert source.openapi is not None
    paths = {path: item for path, item in source.openapi["paths"].items()
             if path != "/crm/v3/objects/deals/{dealId}"}
    with pytest.raises(SourceError, match=r"/crm/v3/objects/deals: the pages need"):
        views(replace(source, openapi={**source.openapi, "paths": paths}))
