"""Arithmetic over bound rows, for task templates: ``$order.total * $deal.pct // 100``.

A tiny, safe evaluator: numbers, references (:mod:`.refs`), ``+ - * / // %``, unary minus,
parentheses and ``round``, ``min``, ``max``, ``abs``, ``int``. Nothing else parses: no
names, attributes, calls of other functions or comprehensions (a ``ValueError`` naming
what was refused), so a task file can compute amounts but never run code.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from .refs import REFERENCE, Others, Vars, lookup

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "round": round, "min": min, "max": max, "abs": abs, "int": int,
}
MAX_LENGTH = 300


def evaluate(text: str, vars: Vars, others: Others | None = None) -> Any:
    """The value of the expression ``text`` over these bound rows."""
    if len(text) > MAX_LENGTH:
        raise ValueError(f"an expression has at most {MAX_LENGTH} characters")
    refs: dict[str, Any] = {}

    def name(match: Any) -> str:
        key = f"_r{len(refs)}"
        refs[key] = lookup(match.group(0) if match.group(0).startswith("$")
                           else "$" + match.group(0), vars, others)
        return key

    source = REFERENCE.sub(name, text)
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not an expression: {text!r}") from exc
    return _eval(tree.body, refs, text)


def _eval(node: ast.AST, refs: dict[str, Any], text: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name) and node.id in refs:
        return refs[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, refs, text), _eval(node.right, refs, text))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, refs, text)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS and not node.keywords):
        return _FUNCTIONS[node.func.id](*(_eval(arg, refs, text) for arg in node.args))
    raise ValueError(f"{text!r}: only numbers, references, + - * / // %, and "
                     f"{', '.join(_FUNCTIONS)} are allowed")
