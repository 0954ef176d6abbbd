"""Jira's query language (JQL), compiled to SQLite over the tracker's ``issues`` table.

Three stages, each its own module: ``lexer`` (text -> tokens; ``JqlError``, the error every
stage raises with Jira's message), ``parser`` (tokens -> a ``Query`` tree; ``parse``,
``terms``, ``check_terms``, ``is_bounded``) and ``sql`` (tree -> a WHERE clause with its
parameters, ``compile``, and ORDER BY text, ``order_by``).
"""

from .lexer import JqlError
from .parser import (
    And,
    Clause,
    Function,
    Node,
    Not,
    Operand,
    Or,
    Query,
    Sort,
    Value,
    check_terms,
    is_bounded,
    parse,
    terms,
)
from .sql import Sql, compile, order_by

__all__ = ["And", "Clause", "Function", "JqlError", "Node", "Not", "Operand", "Or", "Query", "Sort",
           "Sql", "Value", "check_terms", "compile", "is_bounded", "order_by", "parse", "terms"]
