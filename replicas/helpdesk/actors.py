"""The helpdesk's scripted actors, as a task declares them (``actors:`` in its file)::

    actors:
      customer:
        ticket: $ticket.id            # a bound row reference or a literal id
        replies:
          - when_any: ["order number", "order #"]   # case-insensitive substrings
            reply: "Sure — it's order A-10423."
          - when_any: [""]                          # "" matches any public reply
            reply: "Thanks!"

Pydantic only: the task catalogue validates tasks with :class:`Actors` without importing
the app (its routes). ``customer.py`` plays them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

# This app's bound row (``$name.field``) or a literal id.
RowId = Annotated[int, Field(ge=1, le=2**31 - 1)] | Annotated[
    str, Field(pattern=r"^\$[A-Za-z_]\w*\.[A-Za-z_]\w*$")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Reply(_Model):
    when_any: list[str] = Field(
        default_factory=lambda: [""], min_length=1,
        description="Case-insensitive substrings of an agent's public reply, any of which "
        "triggers this reply ('' matches any reply).")
    reply: str = Field(min_length=1, description="The customer's answer. '{verification_code}' "
                       "is the code of their latest pending email change: the reply is only "
                       "eligible while one is pending.")


class ScriptedCustomer(_Model):
    """The requester of ``ticket``: answers the agent's public replies on it, each reply at
    most once, in the order given (the first unused one that matches)."""

    ticket: RowId = Field(description="The ticket whose public replies the customer answers.")
    replies: list[Reply] = Field(default_factory=list)


class Actors(_Model):
    customer: ScriptedCustomer | None = None
