"""HubSpot's associations (v4): the labels between two object types, a labelled and a
default association made, a record's associations listed, and removed
(developers.hubspot.com/docs/api/crm/associations); held to the client's
``associations.v4`` models (``associations.v4.schema`` for the labels)."""

from __future__ import annotations

from tests.conformance.crm import new_record
from tests.conformance.harness import Call

V4 = "/crm/v4/objects"
ERROR = "associations.v4.Error"
MISSING_ID = "999999999"


def scenario_associations(call: Call) -> None:
    contact, company = (call("POST", f"/crm/v3/objects/{kind}", status=201,
                             json={"properties": new_record(kind, 50)})["id"]
                        for kind in ("contacts", "companies"))
    labels = call("GET", "/crm/v4/associations/contacts/companies/labels", status=200,
                  shape="associations.v4.schema.CollectionResponseAssociationSpecWithLabelNoPaging")
    call("GET", "/crm/v4/associations/contacts/spaceships/labels", status=400,
         shape="associations.v4.schema.Error")
    spec = labels["results"][0]
    pair = f"{V4}/contacts/{contact}/associations/companies/{company}"
    specs = [{"associationCategory": spec["category"], "associationTypeId": spec["typeId"]}]
    call("PUT", pair, status=201, shape="associations.v4.LabelsBetweenObjectPair", json=specs)
    call("PUT", f"{V4}/contacts/{contact}/associations/companies/{MISSING_ID}", status=404,
         shape=ERROR, json=specs)
    call("PUT", f"{V4}/contacts/{contact}/associations/default/companies/{company}",
         status=200, shape="associations.v4.BatchResponsePublicDefaultAssociation")
    call("PUT", f"{V4}/contacts/{MISSING_ID}/associations/default/companies/{company}",
         status=404, shape=ERROR)
    call("GET", f"{V4}/contacts/{contact}/associations/companies", status=200,
         shape="associations.v4.CollectionResponseMultiAssociatedObjectWithLabelForwardPaging")
    call("GET", f"{V4}/contacts/{contact}/associations/spaceships", status=400, shape=ERROR)
    call("DELETE", pair, status=204)
    call("DELETE", f"{V4}/spaceships/{contact}/associations/companies/{company}", status=400,
         shape=ERROR)
