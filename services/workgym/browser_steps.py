"""The ``browser:`` key of a task file: the task's reference solution done through the apps'
pages alone, in BrowserGym's action set (``workgym.browser.script`` runs it).

Each step is exactly one action: ``goto`` / ``new_tab`` (``"<app>:<path>"``, that app of the
episode), ``click``, ``fill`` (+ ``value``), ``select_option`` (+ ``value``), ``press``
(+ ``key``), ``read`` (+ ``save``, optional ``pattern`` and ``all``), ``expect`` (text the
active page must show), ``tab_focus`` (a tab's index), ``scroll`` (``[dx, dy]``),
``send_msg_to_user``. An element step names its element by a :class:`Target`: exactly one
locator (``role`` and ``name`` | ``label`` | ``testid`` | ``testid_prefix`` | ``text``),
optionally ``within`` an element's test-id, only those that ``has_text``, and ``nth`` of several
matches. Any step may have a
``when``: it runs only when that holds, exactly as an API reference step's ``when``.
Strings are templated as the API reference's are (``{name}``, ``{{ jinja }}``).
"""

from __future__ import annotations

import re
from typing import Self

import jmespath
import jmespath.exceptions
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .given import Script

# The page a step goes to: "<app>:<path>", e.g. "helpdesk:/agent/search?q={number}".
PAGE = r"^[a-z][a-z0-9_]*:/\S*$"
LOCATORS = ("role", "label", "testid", "testid_prefix", "text")
ELEMENT_ACTIONS = ("click", "fill", "select_option", "press", "read")
ACTIONS = ("goto", *ELEMENT_ACTIONS, "expect", "new_tab", "tab_focus", "scroll",
           "send_msg_to_user")
# The actions that may load a page (a link, a form's post, an address).
LOADS = frozenset({"goto", "new_tab", "click", "press"})
# What each action needs beside it, and what it may have.
NEEDS: dict[str, tuple[str, ...]] = {"fill": ("value",), "select_option": ("value",),
                                     "press": ("key",), "read": ("save",)}
MAY: dict[str, tuple[str, ...]] = {"read": ("pattern", "all")}


class Target(BaseModel):
    """An element of the active page, as a person names it: by its role and accessible name
    (exact), its label, its test-id (or how its test-id begins) or its text (exact);
    ``within``: inside the element of that test-id; ``has_text``: only the matches whose text
    contains that; ``nth``: the one of that index among several matches (without it, more
    than one match is an error)."""

    model_config = ConfigDict(extra="forbid")

    role: str | None = Field(None, description="ARIA role (with name): button, link, ...")
    name: str | None = Field(None, description="Exact accessible name (with role).")
    label: str | None = Field(None, description="The text of the input's <label>.")
    testid: str | None = Field(None, description="The element's data-testid.")
    testid_prefix: str | None = Field(None, min_length=1, description="How the element's "
                                      "data-testid begins ([data-testid^=...]).")
    text: str | None = Field(None, description="The element's exact text.")
    within: str | None = Field(None, description="The data-testid of an element around it.")
    has_text: str | None = Field(None, min_length=1, description="Only the matches whose "
                                 "text contains this (case-insensitive): the row that says "
                                 "'(deactivated)'.")
    nth: int | None = Field(None, description="Which of the matches, in page order: 0 the "
                            "first, -1 the last.")

    @model_validator(mode="after")
    def _one_locator(self) -> Self:
        if (self.role is None) != (self.name is None):
            raise ValueError("role and name go together (a role and its exact accessible name)")
        given = [locator for locator in LOCATORS if getattr(self, locator) is not None]
        if len(given) != 1:
            raise ValueError(f"exactly one locator of role+name, label, testid, text; "
                             f"got {given or 'none'}")
        return self

    @property
    def locator(self) -> str:
        """Which locator it uses: role, label, testid or text."""
        return next(locator for locator in LOCATORS if getattr(self, locator) is not None)

    def described(self) -> str:
        """How a failure names it."""
        found = (f"{self.role} {self.name!r}" if self.role else
                 f"{self.locator} {getattr(self, self.locator)!r}")
        return found + (f" within {self.within!r}" if self.within else "") + (
            f" with text {self.has_text!r}" if self.has_text else "") + (
            f" (nth {self.nth})" if self.nth is not None else "")


class BrowserStep(BaseModel):
    """One step of a browser script: exactly one action, with what that action needs."""

    model_config = ConfigDict(extra="forbid")

    goto: str | None = Field(None, pattern=PAGE, description="'<app>:<path>' to open.")
    click: Target | None = None
    fill: Target | None = None
    select_option: Target | None = None
    press: Target | None = None
    read: Target | None = Field(None, description="Save the element's text (an input's value).")
    expect: str | None = Field(None, min_length=1, description="Text the active page must show.")
    new_tab: str | None = Field(None, pattern=PAGE, description="Open '<app>:<path>' in a new "
                                "tab (the active one from then on).")
    tab_focus: int | None = Field(None, ge=0, description="Make the tab of this index active.")
    scroll: tuple[int, int] | None = Field(None, description="[delta_x, delta_y] in pixels.")
    send_msg_to_user: str | None = Field(None, description="The episode's answer.")
    value: str | None = Field(None, description="What fill types / the option select_option "
                              "picks (its label or value).")
    key: str | None = Field(None, description="The key (combination) press sends: 'Enter'.")
    save: str | None = Field(None, pattern=r"^[A-Za-z_]\w*$", description="The name read saves "
                             "its text as.")
    pattern: str | None = Field(None, description="A regular expression over what read found: "
                                "its first group (else the match) is saved.")
    all: bool | None = Field(None, description="read saves the list of every match's text "
                             "(none matching: an empty list), not one element's.")
    when: str | None = Field(None, description="JMESPath over nothing but saved('name'), as an "
                             "API reference step's: the step runs only when it is truthy.")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {exc}") from exc
        return value

    @field_validator("when")
    @classmethod
    def _parses(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                jmespath.compile(value)
            except jmespath.exceptions.JMESPathError as exc:
                raise ValueError(f"not a JMESPath expression: {exc}") from exc
        return value

    @model_validator(mode="after")
    def _one_action(self) -> Self:
        actions = [name for name in ACTIONS if getattr(self, name) is not None]
        if len(actions) != 1:
            raise ValueError(f"exactly one action of {', '.join(ACTIONS)}; "
                             f"got {actions or 'none'}")
        action = actions[0]
        for needed in NEEDS.get(action, ()):
            if getattr(self, needed) is None:
                raise ValueError(f"{action} needs {needed!r}")
        allowed = {*NEEDS.get(action, ()), *MAY.get(action, ())}
        if strays := [extra for extra in ("value", "key", "save", "pattern", "all")
                      if getattr(self, extra) is not None and extra not in allowed]:
            raise ValueError(f"{action} takes no {', '.join(map(repr, strays))}")
        if self.all and self.read is not None and self.read.nth is not None:
            raise ValueError("read takes 'all' or a target's 'nth', not both")
        return self

    @property
    def action(self) -> str:
        """The step's action (exactly one is set)."""
        return next(name for name in ACTIONS if getattr(self, name) is not None)

    @property
    def target(self) -> Target | None:
        """The element an element step acts on."""
        found = getattr(self, self.action)
        return found if isinstance(found, Target) else None


class BrowserSolution(Script):
    """A task's reference solution through the pages alone (no API call): what it takes from
    the instruction (``given``) and its steps."""

    steps: list[BrowserStep] = Field(min_length=1)

    def steps_taken(self, apps: int) -> int:
        """Its steps as the episode counts them (``workgym_reward.signals``: one per page
        load an agent asks for): each app's start page the environment opens, and each action
        that may load a page (goto, new_tab, click, press), on its shortest path (the steps
        without a ``when``, as the API reference's are counted)."""
        return apps + sum(1 for step in self.steps
                          if step.action in LOADS and step.when is None)
