"""Path patterns: what fault targets and trajectory assertions match paths with.

A pattern is a path whose segments are literals or wildcards:

    /refunds                      exactly that path
    /tickets/{ticket_id}/comments one segment in the middle: any ticket
    /tickets/*/comments           the same, unnamed
    /orders/**                    /orders and everything below it

``{name}`` and ``*`` match exactly one non-empty segment, ``**`` any number of segments
(none included). A field may also hold a list of patterns (any of them). Never a regular
expression: matching is a table over segments, so its cost is bounded by (segments of the
path) x (segments of the pattern) whatever either holds.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

_NAME = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
MAX_SEGMENTS = 32
# Characters no literal segment of an app's routes has: they mean someone wrote a regex.
_SPECIAL = frozenset("*{}\\()[]|^$?+")


def _segments(path: str) -> list[str]:
    return path.strip("/").split("/") if path.strip("/") else []


def _wild(segment: str) -> bool:
    return segment == "*" or _NAME.fullmatch(segment) is not None


def check(pattern: str) -> str:
    """``pattern`` if it is a valid path pattern; ValueError naming the problem otherwise."""
    if not pattern.startswith("/"):
        raise ValueError(f"a path pattern starts with '/': {pattern!r}")
    segments = _segments(pattern)
    if len(segments) > MAX_SEGMENTS:
        raise ValueError(f"a path pattern has at most {MAX_SEGMENTS} segments")
    for segment in segments:
        if not segment:
            raise ValueError(f"empty segment in path pattern {pattern!r}")
        if segment != "**" and not _wild(segment) and any(c in segment for c in _SPECIAL):
            raise ValueError(
                f"segment {segment!r} of {pattern!r}: wildcards are whole segments ('*', "
                "'**' or '{name}'); path patterns are not regular expressions")
    return pattern


def matches(pattern: str, path: str) -> bool:
    """Whether ``path`` (decoded, inside the app) matches ``pattern``."""
    want, have = _segments(pattern), _segments(path)
    # reach[j]: the first i pattern segments can match the first j path segments.
    reach = [True] + [False] * len(have)
    for segment in want:
        if segment == "**":
            for j in range(1, len(have) + 1):
                reach[j] = reach[j] or reach[j - 1]
            continue
        wild = _wild(segment)
        for j in range(len(have), 0, -1):
            reach[j] = reach[j - 1] and (have[j - 1] == segment or (wild and have[j - 1] != ""))
        reach[0] = False
    return reach[len(have)]


def any_matches(patterns: str | list[str], path: str) -> bool:
    return any(matches(p, path) for p in ([patterns] if isinstance(patterns, str) else patterns))


def _check_all(value: str | list[str]) -> str | list[str]:
    if isinstance(value, str):
        return check(value)
    if not value:
        raise ValueError("give at least one path pattern")
    return [check(p) for p in value]


PathPattern = Annotated[str | list[str], AfterValidator(_check_all)]
