"""The reader of HubSpot's client models finds each kind of problem in a body."""

from __future__ import annotations

from tests.conformance.hubspot_shapes import EXTRA, members, validate

CONTACT = {"id": "51", "properties": {"email": "ana@example.com", "phone": None},
           "createdAt": "2026-01-05T09:30:00.000Z", "updatedAt": "2026-01-06T10:00:00Z",
           "archived": False}
ERROR = {"status": "error", "message": "Object not found.", "correlationId": "a43683b0",
         "category": "OBJECT_NOT_FOUND"}


def test_the_models_say_what_is_required_and_allowed() -> None:
    spec = members("associations.v4.AssociationSpec")
    assert spec["associationTypeId"].required and spec["associationTypeId"].type == "int"
    assert spec["associationCategory"].allowed == (
        "HUBSPOT_DEFINED", "USER_DEFINED", "INTEGRATOR_DEFINED")
    error = members("contacts.Error")
    assert {key for key, m in error.items() if m.required} == {
        "message", "correlationId", "category"}
    assert not members("contacts.SimplePublicObject")["archived"].required


def test_a_body_that_fits_has_no_problem() -> None:
    assert validate("contacts.SimplePublicObject", CONTACT) == []
    assert validate("contacts.Error", ERROR) == []
    assert validate("contacts.CollectionResponseSimplePublicObjectWithAssociationsForwardPaging",
                    {"results": [CONTACT], "paging": {"next": {"after": "2", "link": "x"}}}) == []


def test_each_kind_of_problem_is_named() -> None:
    def problems(**changes: object) -> list[str]:
        body = {**CONTACT, **changes}
        return validate("contacts.SimplePublicObject",
                        {k: v for k, v in body.items() if v != "(drop)"})
    assert problems(id="(drop)") == ["SimplePublicObject.id: missing"]
    assert problems(createdAt=None) == ["SimplePublicObject.createdAt: null"]
    assert problems(id=51) == ["SimplePublicObject.id: int 51, expected str"]
    assert problems(archived="false") == ["SimplePublicObject.archived: str 'false', expected bool"]
    assert problems(updatedAt="06/01/2026") == [
        "SimplePublicObject.updatedAt: '06/01/2026' is not an ISO 8601 datetime"]
    assert problems(properties={"amount": 12}) == [
        "SimplePublicObject.properties.amount: int 12, expected str"]
    assert problems(url="/x") == [f"{EXTRA} SimplePublicObject.url"]
    assert validate("contacts.Error", {**ERROR, "status": 404}) == [
        "Error.status: 404 is not one of ('error',)"]


def test_nested_models_and_lists_are_held_to_their_own_model() -> None:
    page = {"results": [{**CONTACT, "id": None}], "paging": {"next": {}}}
    assert sorted(validate(
        "contacts.CollectionResponseSimplePublicObjectWithAssociationsForwardPaging", page)) == [
        "CollectionResponseSimplePublicObjectWithAssociationsForwardPaging.paging.next.after:"
        " missing",
        "CollectionResponseSimplePublicObjectWithAssociationsForwardPaging.results[0].id: null"]
    assert validate("associations.v4.AssociationSpec",
                    {"associationCategory": "OTHER", "associationTypeId": 1}) == [
        "AssociationSpec.associationCategory: 'OTHER' is not one of "
        "('HUBSPOT_DEFINED', 'USER_DEFINED', 'INTEGRATOR_DEFINED')"]
