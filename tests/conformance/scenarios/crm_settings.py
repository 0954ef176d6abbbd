"""HubSpot's pipelines (deals' and tickets', with their stages) and owners
(developers.hubspot.com/docs/api/crm/pipelines, /docs/api/crm/owners); held to the client's
``pipelines`` and ``owners`` models."""

from __future__ import annotations

from typing import Any

from tests.conformance.harness import Call


def scenario_pipelines(call: Call) -> None:
    for object_type in ("deals", "tickets"):
        base = f"/crm/v3/pipelines/{object_type}"
        every = call("GET", base, status=200,
                     shape="pipelines.CollectionResponsePipelineNoPaging")["results"]
        call("GET", f"{base}/{every[0]['id']}", status=200, shape="pipelines.Pipeline")
        call("GET", f"{base}/{every[0]['id']}/stages", status=200,
             shape="pipelines.CollectionResponsePipelineStageNoPaging")
    call("GET", "/crm/v3/pipelines/spaceships", status=400, shape="pipelines.Error")
    call("GET", "/crm/v3/pipelines/deals/no-such-pipeline", status=404, shape="pipelines.Error")
    call("GET", "/crm/v3/pipelines/deals/no-such-pipeline/stages", status=404,
         shape="pipelines.Error")


def scenario_owners(call: Call) -> None:
    shape = "owners.CollectionResponsePublicOwnerForwardPaging"
    params: dict[str, Any] = {"limit": 2}
    while True:
        page = call("GET", "/crm/v3/owners/", status=200, shape=shape, params=params)
        if "paging" not in page:
            break
        params["after"] = page["paging"]["next"]["after"]
    first = call("GET", "/crm/v3/owners/", status=200, shape=shape)["results"][0]
    call("GET", "/crm/v3/owners/", status=200, shape=shape, params={"email": first["email"]})
    call("GET", "/crm/v3/owners/", status=400, shape="owners.Error", params={"limit": "many"})
    call("GET", f"/crm/v3/owners/{first['id']}", status=200, shape="owners.PublicOwner")
    call("GET", "/crm/v3/owners/999999999", status=404, shape="owners.Error")
