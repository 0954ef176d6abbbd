"""The reader of Stripe's generated types finds each kind of problem in a body."""

from __future__ import annotations

from tests.conformance.stripe_types import EXTRA, validate

DELETED = {"id": "cus_1", "object": "customer", "deleted": True}


def test_a_body_that_fits_has_no_problem() -> None:
    assert validate("DeletedCustomer", DELETED) == []
    assert validate("ApiList<DeletedCustomer>", {"object": "list", "data": [DELETED],
                                                 "has_more": False, "url": "/v1/x"}) == []
    assert validate("Error", {"error": {"type": "card_error", "code": "card_declined",
                                        "message": "Declined.", "doc_url": "https://x"}}) == []


def test_each_kind_of_problem_is_named() -> None:
    assert validate("DeletedCustomer", {"id": "cus_1", "object": "customer"}) == [
        "DeletedCustomer.deleted: missing"]
    assert validate("DeletedCustomer", {**DELETED, "deleted": False}) == [
        "DeletedCustomer.deleted: False is not True"]
    assert validate("DeletedCustomer", {**DELETED, "id": None}) == [
        "DeletedCustomer.id: null, but the type has no null"]
    assert validate("DeletedCustomer", {**DELETED, "email": "a@b.c"}) == [
        f"{EXTRA} DeletedCustomer.email"]
    assert validate("Error", {"error": {"type": "oops", "message": "m"}})[0].startswith(
        "Error.error.type: 'oops' is not one of 'card_error'")


def test_an_expandable_member_takes_an_id_or_the_object() -> None:
    """``customer: string | Stripe.Customer | Stripe.DeletedCustomer | null`` on a charge:
    an id fits; an object is held to the nearest option (a deleted customer, here)."""
    def about_customer(body: dict[str, object]) -> list[str]:
        return [p for p in validate("Charge", body) if p.startswith("Charge.customer")]
    assert about_customer({"customer": "cus_1"}) == []
    assert about_customer({"customer": DELETED}) == []
    assert about_customer({"customer": {"id": "cus_1", "object": "customer"}}) == [
        "Charge.customer.deleted: missing"]
    assert about_customer({"customer": 7}) == [
        "Charge.customer: int, expected string | Customer | DeletedCustomer | null"]
