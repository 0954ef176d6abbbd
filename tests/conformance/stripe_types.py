"""Stripe's object shapes, read from the ``stripe`` npm package's generated ``types/*.d.ts``
(fetched at test time, never copied here), and a validator of answers against them.

Our own small reader of the subset of TypeScript those files use: ``declare module 'stripe' {
namespace Stripe { ... } }`` holding interfaces, type aliases and nested namespaces; members
with ``?`` (optional), unions with ``null`` and string literals, ``Array<X>``/``X[]``,
``Stripe.X`` references (so an expandable field is ``string | Stripe.X``), generics
(``ApiList<T>``, ``Emptyable<T>``), index signatures (``Stripe.Metadata``) and inline object
types. Classes, functions and methods (the SDK's surface, not the wire) are skipped.

``validate(shape, body)`` takes a shape as a type expression in the same language
(``"Charge"``, ``"ApiList<Checkout.Session>"``, ``"DeletedCustomer"``) or ``"Error"`` (Stripe's
``{"error": {...}}``) and returns the problems: a member the type always has but the body lacks,
a ``null`` where the type has none, a wrong type, a value outside its literal union, and each
member the type lacks (``EXTRA``-prefixed, so a figure can leave them out)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from tests.conformance.registry import npm_package

PACKAGE = ("stripe", "18.3.0")
EXTRA = "extra member"
# Stripe's error object (docs.stripe.com/api/errors): the SDK's StripeRawError has the members
# the SDK reads; the wire also carries these documented ones.
ERROR_WIRE_MEMBERS = """{ advice_code?: string; doc_url?: string; network_advice_code?: string;
    network_decline_code?: string; payment_method_type?: string; request_log_url?: string; }"""


# -- the type language -------------------------------------------------------------------

@dataclass(frozen=True)
class Lit:
    value: str | int | float | bool


@dataclass(frozen=True)
class Prim:
    name: str  # string, number, boolean, null, any


@dataclass(frozen=True)
class Ref:
    name: str
    args: tuple[Type, ...] = ()


@dataclass(frozen=True)
class OneOf:
    options: tuple[Type, ...]


@dataclass(frozen=True)
class Arr:
    item: Type


@dataclass(frozen=True)
class Obj:
    members: tuple[tuple[str, bool, Type], ...]  # (name, optional, type)
    index: Type | None = None
    bases: tuple[Type, ...] = ()


Type = Lit | Prim | Ref | OneOf | Arr | Obj
PRIMITIVES = frozenset({"string", "number", "boolean", "null", "any", "unknown", "object",
                        "void", "undefined", "never"})


@dataclass(frozen=True)
class Declared:
    scope: str  # the namespace it is declared in ("" for Stripe's own)
    params: tuple[str, ...]
    type: Type


# -- reading the .d.ts ---------------------------------------------------------------------

TOKEN = re.compile(r"""\s+|//[^\n]*|/\*.*?\*/|(?P<tok>=>|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"
                       |-?\d+(?:\.\d+)?|[A-Za-z_$][\w$]*|[{}()\[\]<>;:?|&,=.*])""",
                   re.S | re.X)


def tokens(text: str) -> list[str]:
    return [m.group("tok") for m in TOKEN.finditer(text) if m.group("tok")]


@dataclass
class Reader:
    toks: list[str]
    pos: int = 0
    declared: dict[str, Declared] = field(default_factory=dict)

    def peek(self, ahead: int = 0) -> str:
        at = self.pos + ahead
        return self.toks[at] if at < len(self.toks) else ""

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if expected is not None and tok != expected:
            raise SyntaxError(f"expected {expected!r}, found {tok!r} at token {self.pos}")
        self.pos += 1
        return tok

    def body(self, scope: str) -> None:
        """Declarations up to the closing brace (or the end)."""
        while self.peek() not in ("}", ""):
            tok = self.take()
            if tok in ("export", "declare", "readonly"):
                continue
            if tok in ("module", "namespace"):
                name = self.take().strip("'\"")
                while self.peek() == ".":
                    self.take()
                    name += "." + self.take()
                inner = scope if name in ("stripe", "Stripe") else _join(scope, name)
                self.take("{")
                self.body(inner)
                self.take("}")
            elif tok == "interface":
                name, params = self.take(), self.params()
                bases: list[Type] = []
                if self.peek() == "extends":
                    self.take()
                    bases.append(self.type_())
                    while self.peek() == ",":
                        self.take()
                        bases.append(self.type_())
                members = self.object_()
                self.declared[_join(scope, name)] = Declared(
                    scope, params, Obj(members.members, members.index, tuple(bases)))
            elif tok == "type":
                name, params = self.take(), self.params()
                self.take("=")
                self.declared[_join(scope, name)] = Declared(scope, params, self.type_())
                self.skip_statement()
            else:  # class, function, const, import ...: not the wire's shapes
                self.skip_statement()

    def params(self) -> tuple[str, ...]:
        if self.peek() != "<":
            return ()
        self.take()
        names = []
        while self.peek() != ">":
            names.append(self.take())
            self.skip_until({",", ">"})
            if self.peek() == ",":
                self.take()
        self.take(">")
        return tuple(names)

    def skip_until(self, stops: set[str]) -> None:
        depth = 0
        while self.peek() and not (depth == 0 and self.peek() in stops):
            tok = self.take()
            depth += tok in "({[<" and len(tok) == 1
            depth -= tok in ")}]>" and len(tok) == 1

    def skip_statement(self) -> None:
        """Past a statement: up to ``;`` or through its block, whichever closes it."""
        depth = 0
        while self.peek():
            tok = self.take()
            if tok in ("(", "[", "<", "{"):
                depth += 1
            elif tok in (")", "]", ">", "}"):
                depth -= 1
                if depth == 0 and tok == "}" and self.peek() != "&" and self.peek() != "|":
                    if self.peek() == ";":
                        self.take()
                    return
            elif tok == ";" and depth == 0:
                return

    def object_(self) -> Obj:
        self.take("{")
        members: list[tuple[str, bool, Type]] = []
        index: Type | None = None
        while self.peek() != "}":
            if self.peek() in (";", ","):
                self.take()
                continue
            if self.peek() == "readonly":
                self.take()
            if self.peek() == "[":  # [key: string]: T
                self.take()
                self.skip_until({"]"})
                self.take("]")
                self.take(":")
                index = self.type_()
                continue
            name = self.take().strip("'\"")
            optional = self.peek() == "?"
            if optional:
                self.take()
            if self.peek() in ("(", "<"):  # a method: the SDK's, not the wire's
                self.skip_until({";", "}"})
                continue
            self.take(":")
            members.append((name, optional, self.type_()))
        self.take("}")
        return Obj(tuple(members), index)

    def type_(self) -> Type:
        if self.peek() == "|":
            self.take()
        options = [self.intersection()]
        while self.peek() == "|":
            self.take()
            options.append(self.intersection())
        return options[0] if len(options) == 1 else OneOf(tuple(options))

    def intersection(self) -> Type:
        first = self.postfix()
        parts = [first]
        while self.peek() == "&":
            self.take()
            parts.append(self.postfix())
        if len(parts) == 1:
            return first
        return Obj((), None, tuple(parts))

    def postfix(self) -> Type:
        found = self.primary()
        while self.peek() == "[" and self.peek(1) == "]":
            self.take(), self.take()
            found = Arr(found)
        return found

    def primary(self) -> Type:
        tok = self.peek()
        if tok == "{":
            return self.object_()
        if tok == "(":
            self.take()
            if self.peek() == ")" or self.peek(1) in (":", "?", ","):  # a function type
                self.skip_until({")"})
                self.take(")")
                self.take("=>")
                self.type_()
                return Prim("any")
            inner = self.type_()
            self.take(")")
            return inner
        self.take()
        if tok[0] in "'\"":
            return Lit(tok[1:-1])
        if tok in ("true", "false"):
            return Lit(tok == "true")
        if re.fullmatch(r"-?\d+(\.\d+)?", tok):
            return Lit(int(tok) if tok.lstrip("-").isdigit() else float(tok))
        if tok in PRIMITIVES:
            return Prim("any" if tok in ("unknown", "object", "void", "never") else tok)
        name = tok
        while self.peek() == ".":
            self.take()
            name += "." + self.take()
        args: list[Type] = []
        if self.peek() == "<":
            self.take()
            args.append(self.type_())
            while self.peek() == ",":
                self.take()
                args.append(self.type_())
            self.take(">")
        if name == "Array":
            return Arr(args[0])
        return Ref(name.removeprefix("Stripe."), tuple(args))


def _join(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope else name


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.d.ts")):
        if not path.name.endswith("Resource.d.ts"):  # request parameters and methods only
            yield path


@cache
def declarations() -> dict[str, Declared]:
    """Every interface and type alias of the package's types, by its name under ``Stripe``."""
    root = npm_package(*PACKAGE) / "types"
    found: dict[str, Declared] = {}
    for path in _files(root):
        reader = Reader(tokens(path.read_text()), declared=found)
        reader.body("")
    return found


# -- validating --------------------------------------------------------------------------

Env = dict[str, tuple[Type, str]]


@dataclass
class Validator:
    types: dict[str, Declared]

    def resolve(self, ref: Ref, scope: str, env: Env) -> tuple[Type, str, Env]:
        if not ref.args and ref.name in env:
            return env[ref.name][0], env[ref.name][1], env
        parts = scope.split(".") if scope else []
        for depth in range(len(parts), -1, -1):
            name = _join(".".join(parts[:depth]), ref.name)
            if name in self.types:
                found = self.types[name]
                bound = {param: (arg, scope) for param, arg in zip(found.params, ref.args,
                                                                     strict=False)}
                return found.type, found.scope, {**env, **bound}
        raise KeyError(f"no Stripe type {ref.name!r} (from {scope or 'Stripe'})")

    def check(self, value: Any, kind: Type, scope: str, env: Env, at: str) -> list[str]:
        if isinstance(kind, Ref):
            target, where, inner = self.resolve(kind, scope, env)
            return self.check(value, target, where, inner, at)
        if isinstance(kind, OneOf):
            return self.union(value, kind, scope, env, at)
        if isinstance(kind, Lit):
            return [] if value == kind.value and type(value) is type(kind.value) else [
                f"{at}: {value!r} is not {kind.value!r}"]
        if isinstance(kind, Prim):
            return self.primitive(value, kind.name, at)
        if isinstance(kind, Arr):
            if not isinstance(value, list):
                return [f"{at}: {_kind(value)}, expected an array"]
            return [p for i, item in enumerate(value)
                    for p in self.check(item, kind.item, scope, env, f"{at}[{i}]")]
        return self.object_(value, kind, scope, env, at)

    def primitive(self, value: Any, name: str, at: str) -> list[str]:
        fits = {"any": True, "null": value is None, "string": isinstance(value, str),
                "boolean": isinstance(value, bool),
                "number": isinstance(value, int | float) and not isinstance(value, bool),
                "undefined": False}[name]
        if fits:
            return []
        if value is None:
            return [f"{at}: null, but the type has no null"]
        return [f"{at}: {_kind(value)}, expected {name}"]

    def union(self, value: Any, kind: OneOf, scope: str, env: Env, at: str) -> list[str]:
        tries = [self.check(value, option, scope, env, at) for option in kind.options]
        best = min(tries, key=lambda found: _fit(found, at))
        if not best or not _fit(best, at)[0]:
            return best
        if all(isinstance(o, Lit) for o in kind.options):
            return [f"{at}: {value!r} is not one of "
                    f"{', '.join(repr(o.value) for o in kind.options if isinstance(o, Lit))}"]
        return [f"{at}: {_kind(value)}, expected {' | '.join(map(_named, kind.options))}"]

    def members(self, kind: Obj, scope: str, env: Env
                ) -> tuple[dict[str, tuple[bool, Type, str, Env]], tuple[Type, str] | None]:
        found: dict[str, tuple[bool, Type, str, Env]] = {}
        index: tuple[Type, str] | None = None
        for base in kind.bases:
            target, where, inner = (self.resolve(base, scope, env) if isinstance(base, Ref)
                                    else (base, scope, env))
            if isinstance(target, Obj):
                more, more_index = self.members(target, where, inner)
                found.update(more)
                index = more_index or index
        for name, optional, member in kind.members:
            found[name] = (optional, member, scope, env)
        return found, ((kind.index, scope) if kind.index is not None else index)

    def object_(self, value: Any, kind: Obj, scope: str, env: Env, at: str) -> list[str]:
        if not isinstance(value, dict):
            return [f"{at}: {_kind(value)}, expected an object"]
        members, index = self.members(kind, scope, env)
        problems = []
        for name, (optional, member, where, inner) in members.items():
            if name in value:
                problems += self.check(value[name], member, where, inner, f"{at}.{name}")
            elif not optional:
                problems.append(f"{at}.{name}: missing")
        for name in value.keys() - members.keys():
            if index is not None:
                problems += self.check(value[name], index[0], index[1], env, f"{at}.{name}")
            else:
                problems.append(f"{EXTRA} {at}.{name}")
        return problems


def _fit(problems: list[str], at: str) -> tuple[int, int, int, int]:
    """How far a union's option is from the value (the nearest names the problems): a value
    of another kind, then another literal in a member (``object``, ``type``) of this object,
    then the problems inside, then the extras."""
    own = sum(p.startswith(f"{at}: ") for p in problems)
    tags = sum(p.startswith(f"{at}.") and "." not in p[len(at) + 1:].partition(":")[0]
               and " is not " in p for p in problems)
    extras = sum(p.startswith(EXTRA) for p in problems)
    return own, tags, len(problems) - extras, extras


def _named(kind: Type) -> str:
    if isinstance(kind, Lit):
        return repr(kind.value)
    if isinstance(kind, Prim | Ref):
        return kind.name
    return "array" if isinstance(kind, Arr) else "object"


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


@cache
def _validator() -> Validator:
    types = dict(declarations())
    wire = Reader(tokens(ERROR_WIRE_MEMBERS)).object_()
    types["Error.Object"] = Declared("", (), Obj(wire.members, None, (Ref("StripeRawError"),)))
    types["Error"] = Declared("", (), Obj((("error", False, Ref("Error.Object")),)))
    return Validator(types)


@cache
def _shape(shape: str) -> Type:
    return Reader(tokens(shape)).type_()


def validate(shape: str, body: Any) -> list[str]:
    """What in ``body`` does not match Stripe's ``shape`` (extras marked ``EXTRA``)."""
    return _validator().check(body, _shape(shape), "", {}, shape)
