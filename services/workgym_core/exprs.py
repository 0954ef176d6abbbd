"""Arithmetic over bound rows, for task templates: ``$order.total * $deal.pct // 100``.

A tiny, safe evaluator: numbers, references (:mod:`.refs`), ``+ - * / // %``, unary minus,
parentheses and ``round``, ``min``, ``max``, ``abs``, ``int``; and, for conditions (a setup
op's or an assertion's ``when``), comparisons (``== != < <= > >=``, strings quoted) and
``and``, ``or``, ``not``. Nothing else parses: no names, attributes, calls of other
functions or comprehensions (a ``ValueError`` naming what was refused), so a task file can
compute amounts and conditions but never run code.
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
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
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
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float | str):
        return node.value
    if isinstance(node, ast.Name) and node.id in refs:
        return refs[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, refs, text), _eval(node.right, refs, text))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, refs, text)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _eval(node.operand, refs, text)
    if isinstance(node, ast.BoolOp):
        values = (_eval(value, refs, text) for value in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        left, holds = _eval(node.left, refs, text), True
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _eval(right_node, refs, text)
            holds = holds and _COMPARE[type(op)](left, right)
            left = right
        return holds
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS and not node.keywords):
        return _FUNCTIONS[node.func.id](*(_eval(arg, refs, text) for arg in node.args))
    raise ValueError(f"{text!r}: only numbers, strings, references, + - * / // %, "
                     f"comparisons, and, or, not, and {', '.join(_FUNCTIONS)} are allowed")
