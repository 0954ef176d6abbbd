"""Runs a task's ``browser:`` script (:class:`workgym.browser_steps.BrowserSolution`) through a
:class:`BrowserEnv`, as an agent would act: each element step finds its element on the active
page the way a person names it (role and name, label, test-id or its beginning, text; those
that have a text; the ``nth`` of several), takes that element's bid from the observation's
DOM and sends ONE BrowserGym action string (``click('a12')``, ``fill('a40', 'Hi')``) to the
environment. ``read`` and ``expect`` only look at the page: ``read`` saves an element's text,
an input's value or a select's chosen option (``all``: the list of every match's). A step
whose ``when`` does not hold is passed over, as the API reference's is (its ``runs``).
Strings are templated as the API reference's are (its ``given`` and ``fill``). A step that
cannot be done raises :class:`BrowserScriptFailed` with its number and what the page showed.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Locator, Page

from ..agents.reference import ReferenceFailed, fill, given, runs
from ..browser_steps import BrowserSolution, BrowserStep, Target
from ..tasks import Task
from . import axtree
from .env import BrowserEnv

# What an element shows a person: a select its chosen option, an input its value.
_SHOWN = """e => e.tagName === 'SELECT' ? (e.selectedOptions[0]?.text ?? '')
    : ['INPUT', 'TEXTAREA'].includes(e.tagName) ? e.value : e.innerText"""


class BrowserScriptFailed(ReferenceFailed):
    """A browser script met a page it was not written for."""


def shown(page: Page) -> str:
    """What the page shows, in short, for a failure: its URL, heading, alerts and text."""
    body = " ".join(page.locator("body").inner_text().split())
    return f"{page.url}: {body[:400]}"


def _text(value: str | None, saved: dict[str, Any]) -> str:
    """A step's string with the saved values in it."""
    return str(fill(value, saved))


def matches(page: Page, target: Target, saved: dict[str, Any]) -> Locator:
    """Every element ``target``'s locator names on ``page`` (its strings filled from
    ``saved``) that has its ``has_text``, ``nth`` aside."""
    scope: Page | Locator = page
    if target.within is not None:
        scope = page.get_by_test_id(_text(target.within, saved))
    if target.role is not None:
        found = scope.get_by_role(target.role,  # type: ignore[arg-type]
                                  name=_text(target.name, saved), exact=True)
    elif target.label is not None:
        found = scope.get_by_label(_text(target.label, saved), exact=True)
    elif target.testid is not None:
        found = scope.get_by_test_id(_text(target.testid, saved))
    elif target.testid_prefix is not None:
        prefix = _text(target.testid_prefix, saved).replace("\\", "\\\\").replace('"', '\\"')
        found = scope.locator(f'[data-testid^="{prefix}"]')
    else:
        found = scope.get_by_text(_text(target.text, saved), exact=True)
    if target.has_text is not None:
        found = found.filter(has_text=_text(target.has_text, saved))
    return found


def locate(page: Page, target: Target, saved: dict[str, Any]) -> Locator:
    """The one element ``target`` names on ``page``: its only match, or its ``nth``."""
    found = matches(page, target, saved)
    count = found.count()
    if target.nth is None:
        if count != 1:
            raise ValueError(f"{target.described()} matches {count} elements")
        return found
    if not -count <= target.nth < count:
        raise ValueError(f"{target.described()}: no such match, it matches {count} elements")
    return found.nth(target.nth % count)


def _action(env: BrowserEnv, step: BrowserStep, saved: dict[str, Any]) -> list[str]:
    """The action strings of a step that acts (none for read and expect)."""
    if step.target is not None and step.action != "read":
        bid = locate(env.page, step.target, saved).get_attribute(axtree.BID_ATTRIBUTE)
        extra = {"fill": step.value, "select_option": step.value, "press": step.key}
        argument = extra.get(step.action)
        return [f"{step.action}({bid!r}" +
                (f", {_text(argument, saved)!r})" if argument is not None else ")")]
    if step.goto is not None:
        return [f"goto({page_url(env, _text(step.goto, saved))!r})"]
    if step.new_tab is not None:
        return ["new_tab()", f"goto({page_url(env, _text(step.new_tab, saved))!r})"]
    if step.tab_focus is not None:
        return [f"tab_focus({step.tab_focus})"]
    if step.scroll is not None:
        return [f"scroll({step.scroll[0]}, {step.scroll[1]})"]
    if step.send_msg_to_user is not None:
        return [f"send_msg_to_user({_text(step.send_msg_to_user, saved)!r})"]
    return []


def page_url(env: BrowserEnv, page: str) -> str:
    """The URL of ``'<app>:<path>'`` in the episode (through the proxy)."""
    app, _, path = page.partition(":")
    apps = env.observation.apps
    if app not in apps:
        raise ValueError(f"no app {app!r} in this episode ({', '.join(apps)})")
    return apps[app] + path


def _look(env: BrowserEnv, step: BrowserStep, saved: dict[str, Any]) -> None:
    """``read`` and ``expect``: what the active page shows."""
    if step.expect is not None:
        wanted = _text(step.expect, saved)
        if wanted not in env.page.locator("body").inner_text():
            raise ValueError(f"the page does not show {wanted!r}")
    elif step.read is not None and step.save is not None:
        elements = (matches(env.page, step.read, saved).all() if step.all else
                    [locate(env.page, step.read, saved)])
        found = [_read(step, str(element.evaluate(_SHOWN)).strip()) for element in elements]
        saved[step.save] = found if step.all else found[0]


def _read(step: BrowserStep, found: str) -> str:
    """What ``read`` saves of an element's text: all of it, or its ``pattern``'s group."""
    if step.pattern is None or step.read is None:
        return found
    match = re.search(step.pattern, found)
    if match is None:
        raise ValueError(f"{step.read.described()} says {found!r}: no /{step.pattern}/ in it")
    return match.group(1) if match.groups() else match.group(0)


def run_browser_script(env: BrowserEnv, script: BrowserSolution) -> list[str]:
    """Run ``script`` on the environment's current episode (after ``reset``); the action
    strings it sent, in order."""
    saved = given(script, env.observation.instruction)
    sent: list[str] = []
    for number, step in enumerate(script.steps, 1):
        try:
            if not runs(step, saved):
                continue
            actions = _action(env, step, saved)
            for action in actions:
                observation = env.step(action)[0]
                sent.append(action)
                if observation["last_action_error"]:
                    raise ValueError(f"{action}: {observation['last_action_error']}")
            _look(env, step, saved)
        except (ValueError, KeyError, ReferenceFailed) as exc:
            raise BrowserScriptFailed(f"browser step {number} ({step.action}): {exc}; the page "
                                      f"showed {shown(env.page)}") from exc
    return sent


def solve(env: BrowserEnv, task: Task, seed: int, faults: str = "none") -> dict[str, Any]:
    """A new episode of ``task`` on ``seed`` solved by its ``browser:`` script; the report."""
    if task.browser is None:
        raise ValueError(f"task {task.id} has no browser: solution")
    env.reset(task=task.id, seed=seed, faults=faults)
    run_browser_script(env, task.browser)
    return env.finish()
