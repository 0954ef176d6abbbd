"""The help center's articles (where the policies are stated, some outdated) and the macros."""

from __future__ import annotations

import orjson

from .common import Generation


def unwrap(text: str) -> str:
    """Join hard-wrapped lines of YAML prose; list items ('- ') keep their own line."""
    out: list[str] = []
    for line in text.strip().splitlines():
        if (
            out
            and not line.startswith("- ")
            and not out[-1].startswith("- ")
            and not out[-1].endswith(":")
        ):
            out[-1] += " " + line
        else:
            out.append(line)
    return "\n".join(out)


def build(g: Generation) -> None:
    g.tables["articles"] = [
        {
            "id": i,
            "title": a["title"],
            "body": unwrap(a["body"]),
            "section": a["category"],
            "locale": a["locale"].lower(),
            "created_at": a["created_at"],
            "updated_at": a["updated_at"],
        }
        for i, a in enumerate(g.w["articles"], start=1)
    ]
    g.tables["macros"] = [
        {
            "id": i,
            "title": m["title"],
            "description": m["description"],
            "actions": orjson.dumps(m["actions"]).decode(),
            "active": int(m["active"]),
            "position": i,
            "created_at": m["updated_at"],
            "updated_at": m["updated_at"],
        }
        for i, m in enumerate(g.w["macros"], start=1)
    ]

