"""The tracker's attachments, each operation with a success and an error case, shapes named as
Jira's OpenAPI document names its component schemas (``tests/conformance/tracker.py``):
upload (multipart, ``X-Atlassian-Token: no-check``), settings, metadata, content, delete."""

from __future__ import annotations

from tests.conformance.harness import Call

API = "/rest/api/3"
ERROR = "ErrorCollection"
XSRF = {"X-Atlassian-Token": "no-check"}
FILE = {"file": ("checkout.txt", b"ERROR order A-10722 charged twice\n", "text/plain")}


def scenario_attachments(call: Call) -> None:
    """On a new bug (open: editable); without the XSRF header the upload is blocked."""
    bug = call("POST", f"{API}/issue", status=201, shape="CreatedIssue", json={"fields": {
        "project": {"key": "SHOP"}, "issuetype": {"name": "Bug"},
        "summary": "Order A-10722 charged twice"}})["key"]
    made = call("POST", f"{API}/issue/{bug}/attachments", status=200, shape="Attachment[]",
                headers=XSRF, files=FILE)
    call("POST", f"{API}/issue/{bug}/attachments", status=403, shape=ERROR, files=FILE)
    call("GET", f"{API}/attachment/meta", status=200, shape="AttachmentSettings")
    call("GET", f"{API}/attachment/meta", status=401, headers={"Authorization": "Bearer x"})
    path = f"{API}/attachment/{made[0]['id']}"
    call("GET", path, status=200, shape="AttachmentMetadata")
    call("GET", f"{API}/attachment/999999", status=404, shape=ERROR)
    call("GET", f"{API}/attachment/content/{made[0]['id']}", status=303)
    call("GET", f"{API}/attachment/content/999999", status=404, shape=ERROR)
    call("DELETE", path, status=204)
    call("DELETE", path, status=404, shape=ERROR)
