"""The final-state class of an episode: what it changed, with the values two correct solutions
may legitimately write differently left out, so that a solution through the apps' pages can
be compared with the API reference (the same class: the same change, done another way).

Per app, per table that differs from the initial state:

* ``changed``: each pre-existing row that changed (by its ``id``: the seed's rows are the same
  in both episodes) -> the sorted names of the columns that changed, **not their values**:
  free text (a reply's wording, a comment, a name typed in a form) and the values a rule
  derives from the moment (times) legitimately differ between two correct solutions, while
  which fields of which records were touched does not. Bookkeeping columns that every write of
  a row refreshes (:data:`BOOKKEEPING`: when and by whom it was last written) are left out.
* ``added``: how many rows were added, **not which**: their ids are generated in the order the
  requests arrive (a page may read or write in another order than the API script), and their
  values are the new record's free text and times.
* ``removed``: the ids of pre-existing rows that are gone.

Tables whose name starts with ``_`` (change logs) are not app data (:mod:`.diff`). The channel
a change came through is a value (an audit's ``via``), never a column's presence, so it is
ignored like any other value.
"""

from __future__ import annotations

from typing import Any

from .diff import Diff

# Columns each write of a row refreshes: when, and by whom, it was last written.
BOOKKEEPING = frozenset({"updated_at", "updated", "status_updated_at", "update_author_id"})

StateClass = dict[str, dict[str, Any]]
"""table -> {"changed": {id: [column, ...]}, "added": count, "removed": [id, ...]}."""


def state_class(diff: Diff) -> StateClass:
    """The class of one app's final state, from its diff."""
    found: StateClass = {}
    for table, rows in diff.items():
        changed = {str(row_id): sorted(change.fields - BOOKKEEPING)
                   for row_id, change in sorted(rows.changed.items())
                   if change.fields - BOOKKEEPING}
        if changed or rows.added or rows.removed:
            found[table] = {"changed": changed, "added": len(rows.added),
                            "removed": sorted(rows.removed)}
    return found
