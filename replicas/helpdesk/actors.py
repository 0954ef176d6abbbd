"""The helpdesk's scripted actors, as a task declares them (``actors:`` in its file)::

    actors:
      customer:
        ticket: $ticket.id                   # the ticket whose requester answers
        knows:                               # what they can tell the agent, in this order
          - {kind: order_number, value: "{{order.number}}"}
          - {kind: verification_code, to: "{{checkout.new.email}}"}  # the code mailed there
        persona: [cooperative, wrong_first]  # one of these, drawn by the seed

The customer answers what a public agent message on the ticket asks them for, in any
wording: each thing it names in a question or request (its kind), in their language (the
requester's locale). A message that asks them nothing gets no answer; one that asks for what
they do not know gets "I can't give you that"; one in a language they do not read (neither
their locale's nor the one they wrote the ticket in) gets a request for theirs, and nothing
else. A ``to`` code exists only once another app mailed it there (an email change started in
the checkout); before, they have not received anything. Personas: ``cooperative`` tells each
fact as asked;
``wrong_first`` first gives a wrong value for each fact that has one (``wrong``, else a
near miss of the right one: two digits swapped) and corrects it when asked again;
``cannot_verify`` never gives a ``verification_code``, ``card_last4`` or ``phone_last4``
(they cannot prove who they are: the right outcome is to refuse what needs it).

Pydantic only: the task catalogue validates tasks with :class:`Actors` without importing
the app (its routes). ``customer.py`` plays them.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field, model_validator

from replicas.runtime.actors import ActorModel, RowId

Kind = Literal["order_number", "verification_code", "card_last4", "phone_last4",
               "account_email", "detail"]
Persona = Literal["cooperative", "wrong_first", "cannot_verify"]
PERSONAS = frozenset(get_args(Persona))
# What proves who someone is: a customer who cannot verify never gives these.
PROOFS = frozenset({"verification_code", "card_last4", "phone_last4"})


class Known(ActorModel):
    """One thing the customer can tell."""

    kind: Kind = Field(description="What it is (it names it in the customer's language).")
    value: str | None = Field(None, description="What they say ({{ }} templates of the "
                              "task's rows).")
    wrong: str | None = Field(None, description="What a wrong_first customer says first.")
    to: str | None = Field(None, description="A verification_code's address, instead of a "
                           "value: the last code another app mailed there in the episode (the "
                           "checkout's email change to it), none before ({{ }} templates).")

    @model_validator(mode="after")
    def _says_something(self) -> Known:
        if (self.value is None) == (self.to is None) and self.kind != "detail":
            raise ValueError(f"{self.kind}: give a value, or (a verification_code) to")
        if self.to is not None and self.kind != "verification_code":
            raise ValueError("to is for a verification_code only")
        return self


class ScriptedCustomer(ActorModel):
    """The requester of ``ticket``, answering the agent's public messages on it."""

    ticket: RowId = Field(description="The ticket whose public messages the customer answers.")
    knows: list[Known] = Field(default_factory=list, description="What they can tell, each "
                               "when asked for it (the first of a kind).")
    persona: Persona | list[Persona] | Annotated[
        str, Field(pattern=r"^\$[A-Za-z_]\w*(\.[A-Za-z_]\w*){1,2}$")] = Field(
        "cooperative", description="Their persona, or personas to draw one from by the seed, "
        "or a reference to one the setup drew ($verdict.persona: a decision's outcome).")
    thanks: bool = Field(True, description="Once they told everything, answer the next "
                         "message that asks nothing once with thanks.")


class Actors(ActorModel):
    customer: ScriptedCustomer | None = None
