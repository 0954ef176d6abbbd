"""The page's elements named by ``bid`` and its accessibility tree as text, as BrowserGym's
observations give them.

Bids are written into the DOM (attribute ``bid``: ``a0``, ``a1``, ... in document order of the
body's elements) before each observation, so they are deterministic for a page and reassigned
after every action. The accessibility tree is Chromium's own (CDP
``Accessibility.getFullAXTree``), each node shown with its element's bid, one line each,
indented by depth: ``[a12] button 'Submit as Solved'``. Ignored nodes, unnamed generic
containers and text a named parent already says are left out (their children are kept)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import CDPSession, Page

BID_ATTRIBUTE = "bid"
_MARK = """() => { let i = 0;
  for (const el of document.querySelectorAll('body, body *')) {
    el.setAttribute('bid', 'a' + i++); } }"""
# Roles shown only when they have a name (containers with nothing to say of their own).
_QUIET = frozenset({"generic", "none", "LineBreak", "paragraph", "group", "section"})
_SKIPPED = frozenset({"InlineTextBox", "ListMarker"})
# Properties worth a word after the name (BrowserGym shows these).
_STATES = ("focused", "checked", "selected", "expanded", "disabled", "required", "readonly")


def mark(page: Page) -> None:
    """(Re)write every element's bid on ``page``."""
    page.evaluate(_MARK)


def text(cdp: CDPSession) -> str:
    """The page's accessibility tree as text, each element with its bid."""
    bids = _bids(cdp)
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    by_id = {node["nodeId"]: node for node in nodes}
    lines: list[str] = []
    roots = [node for node in nodes if "parentId" not in node]
    for root in roots:
        _render(root, by_id, bids, 0, "", lines)
    return "\n".join(lines)


def _bids(cdp: CDPSession) -> dict[int, str]:
    """Backend DOM node id -> its bid, from one DOM snapshot."""
    snapshot = cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
    strings: list[str] = snapshot["strings"]
    found: dict[int, str] = {}
    for document in snapshot["documents"]:
        nodes = document["nodes"]
        for backend, attributes in zip(nodes["backendNodeId"], nodes["attributes"], strict=True):
            for name, value in zip(attributes[::2], attributes[1::2], strict=True):
                if strings[name] == BID_ATTRIBUTE:
                    found[backend] = strings[value]
    return found


def _value(field: dict[str, Any] | None) -> str:
    value = (field or {}).get("value", "")
    return "" if value is None else str(value)


def _render(node: dict[str, Any], by_id: dict[str, dict[str, Any]], bids: dict[int, str],
            depth: int, parent_name: str, lines: list[str]) -> None:
    role, name = _value(node.get("role")), _value(node.get("name")).strip()
    if role in _SKIPPED:
        return
    shown = not node.get("ignored") and not (role in _QUIET and not name) and not (
        role == "StaticText" and (not name or name == parent_name))
    if shown:
        bid = bids.get(node.get("backendDOMNodeId", -1))
        line = ("\t" * depth + (f"[{bid}] " if bid else "") + role
                + (f" {name!r}" if name else ""))
        value = _value(node.get("value"))
        if value and value != name:
            line += f", value={value!r}"
        for prop in node.get("properties", []):
            if prop["name"] in _STATES and prop["value"].get("value") not in (False, "false"):
                state = prop["value"].get("value")
                line += f", {prop['name']}" + ("" if state is True else f"={state!r}")
        lines.append(line)
    for child in node.get("childIds", []):
        if child in by_id:
            _render(by_id[child], by_id, bids, depth + 1 if shown else depth,
                    name if shown else parent_name, lines)
