"""Jira's text, duration and time formats: pure functions the tracker's routes and rules share.

- ADF (Atlassian Document Format), what REST v3 reads and writes and what the tables store:
  `validate_adf` checks a body against the subset of nodes and marks the replica supports,
  `adf_to_text` renders it as REST v2 returns it (wiki markup), `text_to_adf` reads a v2
  string (plain text with a few wiki markups) and `adf_text` collects the words for search.
- Durations as Jira's time tracking writes them ('1w 2d 3h 30m'), in configurable days/weeks.
- Timestamps: the tables' 'YYYY-MM-DDTHH:MM:SSZ' and Jira's '2025-06-16T09:00:00.000+0000'.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from workgym_core.timestamps import iso

ADFNode = dict[str, Any]


class FormatError(ValueError):
    """A value Jira would refuse; the message names the value (or ADF path) and the fix."""


# ---- ADF ---------------------------------------------------------------------------------

_INLINE = frozenset({"text", "hardBreak", "mention"})
_IN_ITEM = frozenset({"paragraph", "bulletList", "orderedList", "codeBlock"})
_LIST = frozenset({"listItem"})
_CHILDREN: dict[str, frozenset[str]] = {  # node type -> the types its content may hold
    "doc": _IN_ITEM | {"heading", "blockquote", "rule"}, "paragraph": _INLINE,
    "heading": _INLINE, "bulletList": _LIST, "orderedList": _LIST, "listItem": _IN_ITEM,
    "blockquote": _IN_ITEM, "codeBlock": frozenset({"text"}), "rule": frozenset(),
    **{kind: frozenset() for kind in _INLINE},
}
_NEEDS_CHILDREN = frozenset({"bulletList", "orderedList", "listItem", "blockquote"})
_LISTS = frozenset({"bulletList", "orderedList"})
# Lists nest at most this deep, as in Jira's editor; only lists nest, so this bounds every
# stored document (a deeper v2 '*'/'#' marker is literal text, a deeper v3 list is refused).
MAX_LIST_DEPTH = 6
# Wiki delimiters of each mark, in the order marks nest (outermost first) when rendered.
_MARKS = {"strong": ("*", "*"), "em": ("_", "_"), "strike": ("-", "-"), "underline": ("+", "+"),
          "link": ("[", "|{}]"), "code": ("{{", "}}")}
_RANK = {kind: rank for rank, kind in enumerate(_MARKS)}


def validate_adf(doc: object) -> ADFNode:
    """Return `doc` if it is a v3 document the replica supports, else raise FormatError
    naming the first invalid node's path, e.g. "content[0].content[1]: unknown node type"."""
    return _check(doc, "", frozenset({"doc"}), 0)


def _check(node: object, path: str, allowed: frozenset[str], lists: int) -> ADFNode:
    """``lists``: how many lists hold ``node``."""
    where = path or "doc"
    if not isinstance(node, dict):
        raise FormatError(f"{where}: a node must be an object")
    kind = node.get("type")
    if not isinstance(kind, str) or kind not in _CHILDREN:
        raise FormatError(f"{where}: unknown node type {kind!r}")
    if kind not in allowed:
        raise FormatError(f"{where}: {kind!r} is not allowed here")
    attrs, content = node.get("attrs", {}), node.get("content", [])
    if not isinstance(attrs, dict) or not isinstance(content, list):
        raise FormatError(f"{where}: attrs must be an object and content a list")
    if kind in _LISTS and lists == MAX_LIST_DEPTH:
        raise FormatError(f"{where}: lists nest at most {MAX_LIST_DEPTH} levels deep")
    if kind in _NEEDS_CHILDREN and not content:
        raise FormatError(f"{where}: {kind} needs at least one child node")
    if kind == "doc" and (node.get("version") != 1 or "content" not in node):
        raise FormatError(f"{where}: a document has version 1 and a content list")
    if kind == "text":
        if not isinstance(node.get("text"), str) or not node["text"]:
            raise FormatError(f"{where}: a text node needs a non-empty text")
        _check_marks(node.get("marks", []), where)
    elif kind == "heading":
        level = attrs.get("level")
        if not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= 6:
            raise FormatError(f"{where}.attrs.level: a heading level is 1 to 6")
    elif kind == "mention":
        mention_id, label = attrs.get("id"), attrs.get("text", "")
        if not mention_id or not isinstance(mention_id, str) or not isinstance(label, str):
            raise FormatError(f"{where}.attrs: a mention's id (accountId) and text are strings")
    elif kind == "codeBlock" and not isinstance(attrs.get("language", ""), str):
        raise FormatError(f"{where}.attrs.language: must be a string")
    for i, child in enumerate(content):
        child_path = f"{path}.content[{i}]" if path else f"content[{i}]"
        _check(child, child_path, _CHILDREN[kind], lists + (kind in _LISTS))
        if kind == "codeBlock" and child.get("marks"):
            raise FormatError(f"{child_path}: text in a codeBlock takes no marks")
    return node


def _check_marks(marks: object, where: str) -> None:
    if not isinstance(marks, list):
        raise FormatError(f"{where}.marks: must be a list")
    for i, mark in enumerate(marks):
        kind = mark.get("type") if isinstance(mark, dict) else None
        if not isinstance(kind, str) or kind not in _MARKS:
            raise FormatError(f"{where}.marks[{i}]: unknown mark type {kind!r}")
        attrs = mark.get("attrs")
        href = attrs.get("href") if isinstance(attrs, dict) else None
        if kind == "link" and (not isinstance(href, str) or not href):
            raise FormatError(f"{where}.marks[{i}].attrs.href: a link needs an href")


def adf_to_text(doc: ADFNode) -> str:
    """The document as REST v2 returns it: wiki markup, blocks separated by a blank line."""
    return "\n\n".join(_block(node, "") for node in doc.get("content", []))


def _block(node: ADFNode, bullets: str) -> str:
    kind, content = node["type"], node.get("content", [])
    if kind == "paragraph":
        return _inline(content)
    if kind == "heading":
        return f"h{node['attrs']['level']}. {_inline(content)}"
    if kind in ("bulletList", "orderedList"):
        marker = bullets + ("*" if kind == "bulletList" else "#")
        return "\n".join(_item(item, marker) for item in content)
    if kind == "codeBlock":
        language = node.get("attrs", {}).get("language")
        code = "".join(child["text"] for child in content)
        return f"{{code{':' + language if language else ''}}}\n{code}\n{{code}}"
    if kind == "blockquote":
        return "{quote}\n" + "\n\n".join(_block(child, "") for child in content) + "\n{quote}"
    return "----"  # rule


def _item(item: ADFNode, marker: str) -> str:
    lines: list[str] = []
    for child in item["content"]:
        if child["type"] in ("bulletList", "orderedList"):
            lines.append(_block(child, marker))
        else:
            lines.append(f"{marker} {_block(child, '')}" if not lines else _block(child, ""))
    return "\n".join(lines)


def _mark_key(mark: ADFNode) -> tuple[str, str]:
    return mark["type"], (mark.get("attrs") or {}).get("href", "")


def _closing(marks: list[tuple[str, str]]) -> str:
    return "".join(_MARKS[kind][1].replace("{}", href) for kind, href in reversed(marks))


def _inline(nodes: list[ADFNode]) -> str:
    """Inline nodes as wiki markup; a mark shared by neighbouring text nodes opens once."""
    out: list[str] = []
    open_marks: list[tuple[str, str]] = []
    for node in nodes:
        marks = sorted({_mark_key(m) for m in node.get("marks", [])}, key=lambda m: _RANK[m[0]])
        keep = 0
        while keep < min(len(marks), len(open_marks)) and marks[keep] == open_marks[keep]:
            keep += 1
        out.append(_closing(open_marks[keep:]))
        out.extend(_MARKS[kind][0] for kind, _ in marks[keep:])
        open_marks = marks
        if node["type"] == "text":
            out.append(node["text"])
        elif node["type"] == "mention":
            out.append(f"[~accountid:{node['attrs']['id']}]")
        else:
            out.append("\n")  # hardBreak
    return "".join(out) + _closing(open_marks)


_HEADING = re.compile(r"h([1-6])\.\s+(.*)")
_LIST_ITEM = re.compile(r"([*#]+) (.*)")
_CODE_OPEN = re.compile(r"\{code(?::([\w+#.-]+))?\}")
_WIKI = re.compile(
    r"\{\{(?P<code>.+?)\}\}"
    r"|\[~accountid:(?P<mention>[^\]\s]+)\]"
    r"|\[(?P<label>[^|\]]+)\|(?P<href>[^\]\s]+)\]"
    r"|(?<![\w*])\*(?P<strong>\S(?:.*?\S)?)\*(?![\w*])"
    r"|(?<![\w_])_(?P<em>\S(?:.*?\S)?)_(?![\w_])"
)


def text_to_adf(text: str) -> ADFNode:
    """A v2 string as ADF: blank lines separate paragraphs, a newline is a hardBreak; wiki's
    h1.-h6., '* '/'# ' lists (up to MAX_LIST_DEPTH markers), {code} blocks, *bold*, _italic_
    (each once: inside bold, '*' is text), {{code}}, [text|url] and [~accountid:ID] mentions
    are understood, everything else is literal text."""
    blocks: list[ADFNode] = []
    paragraph: list[str] = []
    items: list[tuple[str, str]] = []

    def flush() -> None:
        if paragraph:
            inline = _parse_inline(paragraph[0], [])
            for line in paragraph[1:]:
                inline += [{"type": "hardBreak"}, *_parse_inline(line, [])]
            blocks.append({"type": "paragraph", "content": inline})
        blocks.extend(_lists(items, 1))
        paragraph.clear()
        items.clear()

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    i = 0
    while i < len(lines):
        line, i = lines[i], i + 1
        if (code := _CODE_OPEN.fullmatch(line.strip())) and "{code}" in lines[i:]:
            flush()
            end = lines.index("{code}", i)
            block: ADFNode = {"type": "codeBlock", "content": _texts("\n".join(lines[i:end]), [])}
            if code[1]:
                block["attrs"] = {"language": code[1]}
            blocks.append(block)
            i = end + 1
        elif heading := _HEADING.fullmatch(line):
            flush()
            level, inline = int(heading[1]), _parse_inline(heading[2], [])
            blocks.append({"type": "heading", "attrs": {"level": level}, "content": inline})
        elif (item := _LIST_ITEM.fullmatch(line)) and len(item[1]) <= MAX_LIST_DEPTH:
            if paragraph:
                flush()
            items.append((item[1], item[2]))
        else:
            if not line.strip() or items:
                flush()
            if line.strip():
                paragraph.append(line)
    flush()
    return {"type": "doc", "version": 1, "content": blocks}


def _lists(items: list[tuple[str, str]], depth: int) -> list[ADFNode]:
    """Consecutive '*'/'#' items at `depth` as lists, deeper items nested in the last item."""
    lists: list[ADFNode] = []
    for marker, text in items:
        kind = "bulletList" if marker[depth - 1] == "*" else "orderedList"
        if not lists or lists[-1]["type"] != kind and len(marker) == depth:
            lists.append({"type": kind, "content": []})
        entries = lists[-1]["content"]
        if len(marker) == depth:
            entries.append({"type": "listItem", "content": [
                {"type": "paragraph", "content": _parse_inline(text, [])}]})
        else:
            if not entries:
                entries.append({"type": "listItem", "content": []})
            entries[-1].setdefault("deeper", []).append((marker, text))
    for entry in (e for lst in lists for e in lst["content"]):
        entry["content"].extend(_lists(entry.pop("deeper", []), depth + 1))
    return lists


def _texts(text: str, marks: list[ADFNode]) -> list[ADFNode]:
    if not text:
        return []
    node: ADFNode = {"type": "text", "text": text}
    if marks:
        node["marks"] = sorted(marks, key=lambda m: _RANK[m["type"]])
    return [node]


def _parse_inline(line: str, marks: list[ADFNode]) -> list[ADFNode]:
    nodes: list[ADFNode] = []
    start = 0
    for match in _WIKI.finditer(line):
        nodes += _texts(line[start:match.start()], marks)
        start = match.end()
        if match["code"]:
            nodes += _texts(match["code"], [*marks, {"type": "code"}])
        elif match["mention"]:
            nodes.append({"type": "mention", "attrs": {"id": match["mention"]}})
        elif match["label"]:
            link = {"type": "link", "attrs": {"href": match["href"]}}
            nodes += _texts(match["label"], [*marks, link])
        elif (kind := "strong" if match["strong"] else "em") in {m["type"] for m in marks}:
            nodes += _texts(match[0], marks)  # a mark applies once: inside it, it is text
        else:
            nodes += _parse_inline(match[kind], [*marks, {"type": kind}])
    return nodes + _texts(line[start:], marks)


def adf_text(doc: ADFNode) -> str:
    """Every word of the document (text, mentions' names), for search's `~` operator."""
    kind = doc.get("type")
    if kind == "text":
        return str(doc["text"])
    if kind == "mention":
        return str(doc.get("attrs", {}).get("text", ""))
    if kind == "hardBreak":
        return "\n"
    joiner = "" if kind in ("paragraph", "heading", "codeBlock") else "\n"
    return joiner.join(adf_text(child) for child in doc.get("content", [])).strip("\n")


# ---- durations ---------------------------------------------------------------------------

_PARTS = re.compile(r"(?:\d+(?:\.\d+)?[wdhm]\s*)+")
_PART = re.compile(r"(\d+(?:\.\d+)?)([wdhm])")


def _unit_seconds(hours_per_day: int, days_per_week: int) -> dict[str, int]:
    return {"w": days_per_week * hours_per_day * 3600, "d": hours_per_day * 3600,
            "h": 3600, "m": 60}


def parse_duration(text: str, *, hours_per_day: int = 8, days_per_week: int = 5) -> int:
    """Seconds in a Jira duration: '2h 30m', '1d', '1w 2d', '90m', '1.5h'; a bare number is
    minutes (Jira's default unit). A day is `hours_per_day`, a week `days_per_week` days."""
    spec = text.strip().lower()
    if spec.isdigit():
        spec += "m"
    if not _PARTS.fullmatch(spec):
        raise FormatError(f"Invalid time duration entered. {text!r} is not a duration: use "
                          "weeks, days, hours and minutes, e.g. '1w 2d 3h 30m', '1.5h', '90m'")
    units = _unit_seconds(hours_per_day, days_per_week)
    return round(sum(float(amount) * units[unit] for amount, unit in _PART.findall(spec)))


def format_duration(seconds: int, *, hours_per_day: int = 8, days_per_week: int = 5) -> str:
    """Jira's rendering of a duration, '1w 2d 3h 30m' ('0m' for nothing); seconds below a
    minute are dropped, as Jira does."""
    if seconds < 0:
        raise FormatError(f"A duration cannot be negative ({seconds} seconds)")
    parts, rest = [], seconds - seconds % 60
    for unit, size in _unit_seconds(hours_per_day, days_per_week).items():
        if rest >= size:
            parts.append(f"{rest // size}{unit}")
            rest %= size
    return " ".join(parts) or "0m"


# ---- timestamps --------------------------------------------------------------------------

_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)")


def _instant(text: str) -> datetime:
    try:
        if _TIMESTAMP.fullmatch(text.strip()):
            return datetime.fromisoformat(text.strip()).astimezone(UTC)
    except ValueError:
        pass
    raise FormatError(f"{text!r} is not a date-time: use Jira's format "
                      "'2025-06-16T09:00:00.000+0000' (or ISO 8601 with an offset)")


def parse_jira_time(text: str) -> str:
    """Jira's '2025-06-16T09:00:00.000+0200' (worklog `started`) or an ISO 8601 date-time
    with an offset, as the tables' UTC 'YYYY-MM-DDTHH:MM:SSZ' (fractions dropped)."""
    return iso(_instant(text))


def jira_time(iso: str) -> str:
    """A stored timestamp ('2025-06-16T09:00:00Z') as Jira renders it: milliseconds, +0000."""
    instant = _instant(iso)
    return f"{instant:%Y-%m-%dT%H:%M:%S}.{instant.microsecond // 1000:03d}+0000"
