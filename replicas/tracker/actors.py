"""The tracker's scripted actors, as a task declares them (``actors:`` in its file)::

    actors:
      release:
        version: $fix.id          # the version the developers release
        finish: [$bug.id]         # the issues they finish in it
        after_writes: 1           # after the agent's first write to the tracker

The developers finish each issue of ``finish`` (its workflow's finished status, resolution
Done, the version added to its fix versions), then release the version (released, dated
today), as of the agent's ``after_writes``-th successful write to the tracker: a fix that
lands while the agent works, which it sees only by reading again. ``developers.py`` plays
them. Pydantic only (replicas/runtime/actors.py).
"""

from __future__ import annotations

from pydantic import Field

from replicas.runtime.actors import ActorModel, RowId


class Release(ActorModel):
    """A release the engineering team ships during the episode."""

    version: RowId = Field(description="The version released.")
    finish: list[RowId] = Field(default_factory=list, description="The issues finished in it.")
    after_writes: int = Field(1, ge=1, le=50, description="As of the agent's n-th write to "
                              "the tracker.")


class Actors(ActorModel):
    release: Release | None = None
