"""What every app's scripted actors (``replicas/<app>/actors.py``) are built from: a
frozen, strict pydantic model and a row reference. Pydantic only: the task catalogue
validates actors without importing an app."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

# This app's bound row (``$name.field``) or a literal id.
RowId = Annotated[int, Field(ge=1, le=2**31 - 1)] | Annotated[
    str, Field(pattern=r"^\$[A-Za-z_]\w*\.[A-Za-z_]\w*$")]


class ActorModel(BaseModel):
    """An actor's declaration: unknown keys refused, never changed once read."""

    model_config = ConfigDict(extra="forbid", frozen=True)
