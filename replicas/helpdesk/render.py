"""Rows -> Zendesk's JSON shapes (Support API v2), one function per resource.

Every resource carries its absolute ``url`` under the app's public base (the proxy passes it:
workgym_core.internal.BASE_HEADER), as Zendesk's do. JSON columns are decoded; the custom
field columns of a ticket become ``custom_fields``/``fields`` ``[{id, value}]``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import orjson

from .world import custom_fields

Row = dict[str, Any]
API = "/api/v2"


def _url(base: str, path: str) -> str:
    return f"{base}{API}/{path}.json"


def _json(text: str | None) -> Any:
    return orjson.loads(text) if text else None


def via(channel: str) -> Row:
    return {"channel": channel, "source": {"from": {}, "to": {}, "rel": None}}


def ticket(row: Row, base: str) -> Row:
    fields = [{"id": fid, "value": row[column]} for fid, column, *_ in custom_fields()]
    return {
        "url": _url(base, f"tickets/{row['id']}"), "id": row["id"], "external_id": None,
        "via": via(row["channel"]), "created_at": row["created_at"],
        "updated_at": row["updated_at"], "type": row["type"], "subject": row["subject"],
        "raw_subject": row["subject"], "description": row["description"],
        "priority": row["priority"], "status": row["status"], "recipient": None,
        "requester_id": row["requester_id"], "submitter_id": row["submitter_id"],
        "assignee_id": row["assignee_id"], "organization_id": row["organization_id"],
        "group_id": row["group_id"], "collaborator_ids": [], "follower_ids": [],
        "email_cc_ids": [], "problem_id": None, "has_incidents": False, "is_public": True,
        "due_at": row["due_at"], "tags": _json(row["tags"]), "custom_fields": fields,
        "fields": fields, "satisfaction_rating": None, "sharing_agreement_ids": [],
        "followup_ids": [], "via_followup_source_id": row["via_followup_source_id"],
        "ticket_form_id": None, "brand_id": None, "allow_channelback": False,
        "allow_attachments": True, "from_messaging_channel": False, "forum_topic_id": None,
    }


def attachment(row: Row, base: str) -> Row:
    return {"url": _url(base, f"attachments/{row['id']}"), "id": row["id"],
            "file_name": row["file_name"], "content_type": row["content_type"],
            "content_url": f"{base}/attachments/token/{row['token']}?"
                           f"{urlencode({'name': row['file_name']})}",
            "size": row["size"], "inline": False, "deleted": False, "malware_scan_result":
            "malware_not_found", "thumbnails": [], "width": None, "height": None}


def upload(row: Row, attachments: list[Row], base: str) -> Row:
    items = [attachment(a, base) for a in attachments]
    return {"token": row["token"], "expires_at": None, "attachments": items,
            "attachment": items[-1] if items else None}


def comment(row: Row, channel: str, attachments: list[Row], base: str) -> Row:
    return {"id": row["id"], "type": "Comment", "author_id": row["author_id"],
            "body": row["body"], "html_body": f"<p>{row['body']}</p>",
            "plain_body": row["body"], "public": bool(row["public"]),
            "attachments": [attachment(a, base) for a in attachments],
            "audit_id": None, "via": via(channel), "created_at": row["created_at"],
            "metadata": {"system": {}, "custom": {}}}


def user(row: Row, base: str) -> Row:
    return {
        "url": _url(base, f"users/{row['id']}"), "id": row["id"], "name": row["name"],
        "email": row["email"], "phone": row["phone"], "role": row["role"],
        "organization_id": row["organization_id"],
        "default_group_id": row["default_group_id"], "locale": row["locale"],
        "time_zone": None, "active": bool(row["active"]), "verified": True,
        "suspended": False, "notes": row["notes"], "details": "",
        "external_id": row["legacy_id"], "tags": [],
        "user_fields": {"tier": row["tier"], "legacy_created": row["legacy_created"]},
        "created_at": row["created_at"], "updated_at": row["updated_at"],
        "alias": None, "chat_only": False, "custom_role_id": None, "last_login_at": None,
        "locale_id": None, "moderator": row["role"] != "end-user",
        "only_private_comments": False, "photo": None, "restricted_agent": False,
        "role_type": 4 if row["role"] == "admin" else None, "shared": False,
        "shared_agent": False, "signature": None, "two_factor_auth_enabled": None,
        "ticket_restriction": "requested" if row["role"] == "end-user" else None,
    }


def identity(row: Row, base: str) -> Row:
    return {"url": _url(base, f"users/{row['user_id']}/identities/{row['id']}"),
            "id": row["id"], "user_id": row["user_id"], "type": row["type"],
            "value": row["value"], "primary": bool(row["is_primary"]),
            "verified": bool(row["verified"]), "created_at": row["created_at"],
            "updated_at": row["created_at"], "undeliverable_count": 0,
            "deliverable_state": "deliverable" if row["type"] == "email" else None}


def organization(row: Row, base: str) -> Row:
    return {"url": _url(base, f"organizations/{row['id']}"), "id": row["id"],
            "name": row["name"], "domain_names": [row["domain"]] if row["domain"] else [],
            "details": "", "notes": row["notes"], "group_id": None, "shared_tickets": False,
            "shared_comments": False, "tags": [], "organization_fields": {}, "external_id": None,
            "created_at": row["created_at"], "updated_at": row["created_at"]}


def group(row: Row, base: str) -> Row:
    return {"url": _url(base, f"groups/{row['id']}"), "id": row["id"], "name": row["name"],
            "description": row["description"], "default": row["id"] == 1,
            "deleted": bool(row["deleted"]), "is_public": True, "created_at": None,
            "updated_at": None}


def membership(row: Row, base: str) -> Row:
    return {"url": _url(base, f"group_memberships/{row['id']}"), "id": row["id"],
            "user_id": row["user_id"], "group_id": row["group_id"],
            "default": bool(row["is_default"]), "created_at": row["created_at"],
            "updated_at": row["created_at"]}


def ticket_field(row: Row, base: str) -> Row:
    options = _json(row["options"])
    return {"url": _url(base, f"ticket_fields/{row['id']}"), "id": row["id"],
            "type": row["type"], "title": row["title"], "raw_title": row["title"],
            "active": bool(row["active"]), "position": row["position"], "required": False,
            "removable": True, "key": row["key"], "tag": None, "description": "",
            "raw_description": "", "title_in_portal": row["title"],
            "raw_title_in_portal": row["title"], "visible_in_portal": False,
            "editable_in_portal": False, "required_in_portal": False,
            "regexp_for_validation": None, "collapsed_for_agents": False, "created_at": None,
            "updated_at": None,
            **({"custom_field_options": options} if row["type"] == "tagger" else {})}


def _rule(row: Row, base: str, kind: str) -> Row:
    return {"url": _url(base, f"{kind}/{row['id']}"), "id": row["id"],
            "title": row["title"], "active": bool(row["active"]),
            "created_at": row["created_at"], "updated_at": row["updated_at"]}


def macro(row: Row, base: str) -> Row:
    return {**_rule(row, base, "macros"), "description": row["description"],
            "actions": _json(row["actions"]), "restriction": None, "position": row["position"]}


def view(row: Row, base: str) -> Row:
    return {**_rule(row, base, "views"), "position": row["position"],
            "raw_title": row["title"], "sla_id": None,
            "conditions": _json(row["conditions"]), "execution": _json(row["execution"]),
            "restriction": None}


def trigger(row: Row, base: str) -> Row:
    return {**_rule(row, base, "triggers"), "position": row["position"],
            "description": row["description"], "conditions": _json(row["conditions"]),
            "actions": _json(row["actions"])}


def automation(row: Row, base: str) -> Row:
    return {**_rule(row, base, "automations"), "position": row["position"],
            "raw_title": row["title"],
            "conditions": _json(row["conditions"]), "actions": _json(row["actions"])}


def sla_policy(row: Row, base: str) -> Row:
    return {"url": _url(base, f"slas/policies/{row['id']}"), "id": row["id"],
            "title": row["title"], "description": row["description"],
            "position": row["position"], "filter": _json(row["filter"]),
            "policy_metrics": _json(row["policy_metrics"]),
            "created_at": row["created_at"], "updated_at": row["updated_at"]}


def schedule(row: Row, base: str) -> Row:
    return {"url": _url(base, f"business_hours/schedules/{row['id']}"), "id": row["id"],
            "name": row["name"], "time_zone": row["time_zone"],
            "intervals": _json(row["intervals"]), "created_at": None, "updated_at": None}


def holiday(schedule_id: int, index: int, holiday: Row) -> Row:
    return {"id": schedule_id * 100 + index, **holiday}


def metric_event(row: Row) -> Row:
    event = {"id": row["id"], "ticket_id": row["ticket_id"], "metric": row["metric"],
             "instance_id": row["instance_id"], "type": row["type"], "time": row["time"]}
    if row["type"] == "apply_sla":
        event["sla"] = _json(row["sla"])
    if row["type"] == "breach":
        event["deleted"] = bool(row["deleted"])
    return event


def audit(row: Row) -> Row:
    return {"id": row["id"], "ticket_id": row["ticket_id"], "author_id": row["author_id"],
            "created_at": row["created_at"], "via": via(row["channel"]),
            "metadata": {"system": {}, "custom": {}}, "events": _json(row["events"])}


def satisfaction_rating(row: Row, base: str) -> Row:
    return {"url": _url(base, f"satisfaction_ratings/{row['id']}"), "id": row["id"],
            "ticket_id": row["ticket_id"], "requester_id": row["requester_id"],
            "assignee_id": row["assignee_id"], "group_id": row["group_id"],
            "score": row["score"], "comment": row["comment"] or None,
            "created_at": row["created_at"], "updated_at": row["created_at"]}


def article(row: Row, base: str) -> Row:
    return {"url": f"{base}{API}/help_center/articles/{row['id']}.json", "id": row["id"],
            "title": row["title"], "body": row["body"], "locale": row["locale"],
            "section": row["section"], "draft": False, "outdated": False,
            "created_at": row["created_at"], "updated_at": row["updated_at"],
            "edited_at": row["updated_at"], "name": row["title"],
            "html_url": f"{base}/hc/{row['locale']}/articles/{row['id']}",
            "source_locale": row["locale"], "outdated_locales": [], "author_id": None,
            "section_id": None, "permission_group_id": None, "user_segment_id": None,
            "label_names": [], "content_tag_ids": [], "comments_disabled": False,
            "promoted": False, "position": 0, "vote_count": 0, "vote_sum": 0}


def job_status(row: Row, base: str) -> Row:
    return {"url": _url(base, f"job_statuses/{row['id']}"), "id": row["id"],
            "job_type": row["job_type"], "status": row["status"], "total": row["total"],
            "progress": row["progress"], "message": row["message"],
            "results": _json(row["results"])}
