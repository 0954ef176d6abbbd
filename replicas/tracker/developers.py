"""The engineering team shipping a release while the agent works (``actors.release``, see
actors.py): once the agent has written to the tracker ``after_writes`` times, the version's
issues to finish go to their workflow's finished status with the resolution Done and the
version among their fix versions, each change in its history by the project's lead, and the
version is released today. Once per episode; a function of the agent's writes only."""

from __future__ import annotations

import orjson

from replicas.runtime import db as sql
from replicas.runtime.clock import iso
from replicas.runtime.episode import Episode
from workgym_core.refs import resolve

from .actors import Actors
from .rules.issues import write_as
from .rules.workflows import flow

_MEMORY = "tracker.release"


def after_write(episode: Episode) -> None:
    actors = episode.actors
    if not isinstance(actors, Actors) or actors.release is None:
        return
    state = episode.memory.setdefault(_MEMORY, {"writes": 0, "released": False})
    if state["released"]:
        return
    state["writes"] += 1
    if state["writes"] < actors.release.after_writes:
        return
    state["released"] = True
    db, now = episode.db, episode.now()
    version = sql.one(db, "SELECT * FROM versions WHERE id = ?",
                      (int(resolve(actors.release.version, episode.vars)),))
    assert version is not None, "the release's version is the task's"
    lead = sql.one(db, "SELECT lead_id FROM projects WHERE id = ?", (version["project_id"],))
    assert lead is not None
    for ref in actors.release.finish:
        issue = sql.one(db, "SELECT i.*, p.key AS project_key FROM issues i JOIN projects p "
                        "ON p.id = i.project_id WHERE i.id = ?", (int(resolve(ref, episode.vars)),))
        if issue is None:  # the agent deleted it
            continue
        finished = flow(issue["project_key"], issue["issue_type"]).finished
        fixes = sorted({*orjson.loads(issue["fix_versions"]), version["id"]})
        write_as(db, issue, {"status": finished, "resolution": issue["resolution"] or "Done",
                             "resolution_date": issue["resolution_date"] or iso(now),
                             "fix_versions": orjson.dumps(fixes).decode()},
                 lead["lead_id"], now)
    sql.update(db, "versions", version["id"],
               {"released": 1, "release_date": now.date().isoformat()})
