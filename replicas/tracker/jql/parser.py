"""JQL's parser: a query's tokens as a tree (``Query``), and what a tree costs.

``parse`` reads clauses ``field operator operand`` joined by AND (``&&``, ``&``), OR (``||``,
``|``) and NOT (``!``) with Jira's precedence (NOT, then AND, then OR) and parentheses, then
``ORDER BY field [ASC|DESC], ...``. Operators: ``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=``,
``~``, ``!~``, ``IN``, ``NOT IN``, ``IS [NOT]``; operands: bare words, "double" or 'single'
quoted strings (Jira's escapes), lists ``(a, b)``, functions ``name(args)``, and EMPTY / NULL.
Keywords and field names are case-insensitive. Syntax errors are JqlError with Jira's message,
naming the token and its (line, character).

``terms`` counts what a query costs (``check_terms`` refuses one past a limit: Jira documents
none; ours is the request's, ``WORKGYM_MAX_QUERY_TERMS``); ``is_bounded`` tells whether the
query restricts anything (enhanced search refuses it otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass

from .lexer import PREFIX, TEXT_TERM, JqlError, Token, is_one_of, syntax_error, tokens


@dataclass(frozen=True)
class Value:
    text: str
    quoted: bool = False

    @property
    def empty(self) -> bool:
        return not self.quoted and self.text.upper() in ("EMPTY", "NULL")

    def __str__(self) -> str:
        return f'"{self.text}"' if self.quoted else self.text


@dataclass(frozen=True)
class Function:
    name: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})"


Operand = Value | Function


@dataclass(frozen=True)
class Clause:
    field: str  # as written; 'cf[10016]' for the custom field form
    operator: str  # '=', '!=', '<', '<=', '>', '>=', '~', '!~', 'IN', 'NOT IN', 'IS', 'IS NOT'
    operands: tuple[Operand, ...]  # one, unless written as a list
    is_list: bool = False


@dataclass(frozen=True)
class Not:
    node: Node


@dataclass(frozen=True)
class And:
    nodes: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    nodes: tuple[Node, ...]


Node = Clause | Not | And | Or


@dataclass(frozen=True)
class Sort:
    field: str
    direction: str | None = None  # 'ASC' or 'DESC'; None: the field's default


@dataclass(frozen=True)
class Query:
    where: Node | None = None
    order: tuple[Sort, ...] = ()


_KEYWORDS = frozenset({"and", "or", "not", "in", "is", "order", "by", "asc", "desc"})
_COMPARISONS = ("=", "!=", "<", ">", "<=", ">=", "~", "!~")
_VALID_OPERATORS = ("The valid operators are '=', '!=', '<', '>', '<=', '>=', '~', '!~', 'IN', "
                    "'NOT IN', 'IS' and 'IS NOT'.")
_MAX_DEPTH = 64


class _Parser:
    """Recursive descent over the tokens: or_ > and_ > not_ > clause, then ORDER BY."""

    def __init__(self, text: str) -> None:
        self.text, self.tokens, self.i = text, tokens(text), 0

    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        token = self.tokens[self.i]
        self.i += token.kind != "end"
        return token

    def accept(self, *words: str) -> bool:
        """Take the next token if it is one of ``words`` (keywords or operators)."""
        if is_one_of(self.peek(), *words):
            self.i += 1
            return True
        return False

    def fail(self, token: Token, expected: str, *, surround: str = "", tail: str = "",
             end: str = "before the end of the query", prefix: str = PREFIX) -> JqlError:
        if token.kind == "end":
            return JqlError(f"{prefix}: Expecting {expected} {end}.{tail}")
        hint = (f" You must surround '{token.raw}' in quotation marks to use it as {surround}."
                if surround else "")
        return syntax_error(self.text, token.pos,
                       f"Expecting {expected} but got '{token.raw}'.{hint}{tail}", prefix)

    def query(self) -> Query:
        where = None
        if self.peek().kind != "end" and not is_one_of(self.peek(), "order"):
            where = self.or_(0)
        order = self.order_by() if self.accept("order") else ()
        if self.peek().kind != "end":
            raise self.fail(self.peek(), "either 'OR' or 'AND'")
        return Query(where, order)

    def or_(self, depth: int) -> Node:
        nodes = [self.and_(depth)]
        while self.accept("or", "||", "|"):
            nodes.append(self.and_(depth))
        return nodes[0] if len(nodes) == 1 else Or(tuple(nodes))

    def and_(self, depth: int) -> Node:
        nodes = [self.not_(depth)]
        while self.accept("and", "&&", "&"):
            nodes.append(self.not_(depth))
        return nodes[0] if len(nodes) == 1 else And(tuple(nodes))

    def not_(self, depth: int) -> Node:
        if depth > _MAX_DEPTH:
            raise JqlError(f"{PREFIX}: The query nests parentheses or NOT more than "
                           f"{_MAX_DEPTH} levels deep.")
        if self.accept("not", "!"):
            return Not(self.not_(depth + 1))
        if not self.accept("("):
            return self.clause()
        node = self.or_(depth + 1)
        if not self.accept(")"):
            raise self.fail(self.peek(), "')'")
        return node

    def field(self) -> str:
        token = self.take()
        if token.kind == "word" and token.text.lower() == "cf" and self.accept("["):
            number = self.take()
            if number.kind != "word" or not number.text.isdigit():
                raise self.fail(number, "a custom field id (a positive number)")
            if not self.accept("]"):
                raise self.fail(self.peek(), "']'")
            return f"cf[{number.text}]"
        if token.kind == "string" or (token.kind == "word" and token.text.lower() not in _KEYWORDS):
            return token.text
        raise self.fail(token, "a field name", surround="a field name",
                        end="at the end of the query")

    def clause(self) -> Clause:
        field, token = self.field(), self.take()
        if token.kind == "op" and token.text in _COMPARISONS:
            operator = token.text
        elif is_one_of(token, "in"):
            operator = "IN"
        elif is_one_of(token, "is"):
            operator = "IS NOT" if self.accept("not") else "IS"
        elif is_one_of(token, "not"):
            if not self.accept("in"):
                raise self.fail(self.peek(), "'IN'")
            operator = "NOT IN"
        else:
            raise self.fail(token, "operator", tail=" " + _VALID_OPERATORS)
        if not self.accept("("):
            return Clause(field, operator, (self.operand(),))
        operands = [self.operand()]
        while self.accept(","):
            operands.append(self.operand())
        if not self.accept(")"):
            raise self.fail(self.peek(), "')'")
        return Clause(field, operator, tuple(operands), is_list=True)

    def operand(self) -> Operand:
        token = self.take()
        if token.kind == "string" or (token.kind == "word" and token.text.lower() not in _KEYWORDS):
            if not self.accept("("):
                return Value(token.text, quoted=token.kind == "string")
            args: list[str] = []
            while not self.accept(")"):
                if args and not self.accept(","):
                    raise self.fail(self.peek(), "')' or ','")
                argument = self.take()
                if argument.kind not in ("string", "word"):
                    raise self.fail(argument, "a function argument", surround="an argument")
                args.append(argument.text)
            return Function(token.text, tuple(args))
        raise self.fail(token, "either a value, list or function", surround="a value",
                        prefix="Error in JQL Query")  # sic: Cloud's wording here

    def order_by(self) -> tuple[Sort, ...]:
        if not self.accept("by"):
            raise self.fail(self.peek(), "'by'")
        sorts: list[Sort] = []
        while True:
            field, direction = self.field(), None
            if self.accept("asc", "desc"):
                direction = self.tokens[self.i - 1].text.upper()
            sorts.append(Sort(field, direction))
            if self.accept(","):
                continue
            if self.peek().kind != "end":
                raise self.fail(self.peek(), "','" if direction else "either 'ASC' or 'DESC'")
            return tuple(sorts)


def parse(text: str) -> Query:
    """The query ``text`` as a tree; JqlError (Jira's message) if it is malformed."""
    return _Parser(text).query()


def is_bounded(query: Query) -> bool:
    """Whether ``query`` restricts the issues at all. Enhanced search refuses an empty query
    or one with only ORDER BY: 400 "Unbounded JQL queries are not allowed here. Please add a
    search restriction to your query." """
    return query.where is not None


def terms(query: Query) -> int:
    """What ``query`` costs to run, in terms: each clause counts its values (a list's values,
    a text search's words and phrases), at least one."""
    def count(node: Node) -> int:
        if isinstance(node, Not):
            return count(node.node)
        if isinstance(node, Clause) and node.operator in ("~", "!~"):
            return max(1, sum(len(TEXT_TERM.findall(o.text)) for o in node.operands
                              if isinstance(o, Value)))
        if isinstance(node, Clause):
            return len(node.operands)
        return sum(count(child) for child in node.nodes)
    return count(query.where) if query.where is not None else 0


def check_terms(query: Query, most: int) -> None:
    """JqlError if ``query`` has more than ``most`` terms (:func:`terms`)."""
    if (n := terms(query)) > most:
        raise JqlError(f"{PREFIX}: The query is too complex: it has {n} terms (clauses, list "
                       f"values and the words of text searches); at most {most} are allowed.")

