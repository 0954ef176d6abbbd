"""BrowserGym's high-level action strings, read safely: one call such as ``click('a12')`` or
``fill('a40', 'Hi')``, its arguments Python literals (``ast.literal_eval``, never ``eval``),
bound to the action's signature. What cannot be read is an :class:`ActionError`, which the
environment reports as the observation's ``last_action_error``."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# An element's bid as the environment writes them (a0, a1, ...): nothing else reaches a selector.
BID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class ActionError(ValueError):
    """An action that cannot be done: unreadable, unknown, wrong arguments, a missing bid."""


@dataclass(frozen=True)
class Action:
    """One action read: its name and its arguments bound to the action's signature."""

    name: str
    arguments: Mapping[str, Any]


def parse(text: str, actions: Mapping[str, Callable[..., Any]]) -> Action:
    """``text`` as one call of one of ``actions`` (name -> the function that does it; its
    parameters are the action's)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ActionError(f"unreadable action {text!r}: {exc.msg}") from exc
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise ActionError(f"not an action call: {text!r} (e.g. click('a12'))")
    name = call.func.id
    if name not in actions:
        raise ActionError(f"unknown action {name!r}; the actions are {', '.join(actions)}")
    try:
        args = [ast.literal_eval(arg) for arg in call.args]
        kwargs = {}
        for keyword in call.keywords:
            if keyword.arg is None:
                raise ActionError(f"{name}(): no **arguments")
            kwargs[keyword.arg] = ast.literal_eval(keyword.value)
    except ValueError as exc:
        raise ActionError(f"{name}(): arguments must be literals ({exc})") from exc
    try:
        bound = inspect.signature(actions[name]).bind(*args, **kwargs)
    except TypeError as exc:
        raise ActionError(f"{name}(): {exc}") from exc
    bound.apply_defaults()
    return Action(name, dict(bound.arguments))


def bid_of(value: Any) -> str:
    """An action's ``bid`` argument, checked."""
    if not isinstance(value, str) or not BID.fullmatch(value):
        raise ActionError(f"bid must be an element's id from the AX tree (e.g. 'a12'), "
                          f"not {value!r}")
    return value


def text_of(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ActionError(f"{what} must be a string, not {value!r}")
    return value
