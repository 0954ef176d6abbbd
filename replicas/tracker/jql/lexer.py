"""JQL's lexer: a query's text as tokens (words, quoted strings with Jira's escapes,
operators), and the error every stage raises.

Syntax errors carry Jira's message, naming the character and its (line, character).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class JqlError(ValueError):
    """A query Jira refuses (400), with Jira's message."""


PREFIX = "Error in the JQL Query"
_SPACE = re.compile(r"\s+")
_OPERATOR = re.compile(r"!=|!~|>=|<=|&&|\|\||[=<>~(),!&|\[\]]")
_WORD = re.compile(r"""[^\s"'=!<>~(),&|\[\]{}*/%+^$#@?;\\]+""")
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[\"'tnr\\ ])")
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r"}
# a text search's value: its "inner quoted" phrases and its words
TEXT_TERM = re.compile(r'"([^"]*)"|(\S+)')


@dataclass(frozen=True)
class Token:
    kind: str  # word, string, op or end
    text: str  # the value (a string unescaped)
    raw: str  # as written
    pos: int


def syntax_error(text: str, pos: int, message: str, prefix: str = PREFIX) -> JqlError:
    line, column = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
    return JqlError(f"{prefix}: {message} (line {line}, character {column})")


def _string(text: str, start: int) -> tuple[int, str]:
    """The end of the quoted string at ``start`` and its value."""
    quote, pos, out = text[start], start + 1, []
    while pos < len(text) and text[pos] != quote:
        if text[pos] != "\\":
            out.append(text[pos])
            pos += 1
            continue
        escape = _ESCAPE.match(text, pos)
        if escape is None:
            raise syntax_error(text, pos, f"'{text[pos:pos + 2]}' is an illegal JQL escape "
                               "sequence. The valid escape sequences are \\', \\\", \\t, \\n, "
                               "\\r, \\\\, '\\ ' and \\uXXXX.")
        sequence = escape[1]
        out.append(chr(int(sequence[1:], 16)) if len(sequence) > 1
                   else _ESCAPES.get(sequence, sequence))
        pos = escape.end()
    if pos == len(text):
        partial = "".join(out).replace("\n", " ")
        named = f" '{partial}'" if partial else ""
        raise syntax_error(text, start, f"The quoted string{named} has not been completed.")
    return pos + 1, "".join(out)


def is_one_of(token: Token, *words: str) -> bool:
    """Whether ``token`` is one of ``words`` (keywords, any case, or operators)."""
    return token.kind in ("op", "word") and token.text.lower() in words


def tokens(text: str) -> list[Token]:
    found: list[Token] = []
    pos = 0
    while True:
        space = _SPACE.match(text, pos)
        pos = space.end() if space else pos
        if pos == len(text):
            return [*found, Token("end", "", "", pos)]
        if text[pos] in "\"'":
            end, value = _string(text, pos)
            found.append(Token("string", value, text[pos:end], pos))
        elif match := _OPERATOR.match(text, pos) or _WORD.match(text, pos):
            end = match.end()
            kind = "op" if match.re is _OPERATOR else "word"
            found.append(Token(kind, match[0], match[0], pos))
        else:
            raise syntax_error(text, pos, f"The character '{text[pos]}' is a reserved JQL "
                               f"character. You must enclose it in a string or use the escape "
                               f"'\\u{ord(text[pos]):04x}' instead.")
        pos = end
