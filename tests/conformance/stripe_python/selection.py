"""Which of stripe-python's tests reach the network, and what they ask: read from the
sdist's test files (their syntax, never run here).

A test reaches the network (stripe-mock's address) when it takes the suite's
``http_client_mock`` (or a client built on it) and neither it nor a fixture it takes calls
``stub_request`` (a stubbed client answers from the test's own table). What it asks is read
from its ``assert_requested(method, path=...)`` calls, the path a literal or a literal ``%``
the test module's (or class's) constants: ``"/v1/refunds/%s" % TEST_RESOURCE_ID``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

# The suite's fixtures whose client goes to stripe-mock (tests/conftest.py).
NETWORK_FIXTURES = frozenset({"http_client_mock", "stripe_mock_stripe_client",
                              "file_stripe_mock_stripe_client"})


def network_tests(sdist: Path, folders: tuple[str, ...]) -> dict[str, list[tuple[str, str]]]:
    """node id -> the (METHOD, path) requests it asserts, for every test reaching the network
    in ``folders`` (files or folders under the sdist)."""
    found: dict[str, list[tuple[str, str]]] = {}
    for folder in folders:
        root = sdist / folder
        for file in sorted(root.rglob("test_*.py")) if root.is_dir() else [root]:
            module = ast.parse(file.read_text())
            prefix = file.relative_to(sdist).as_posix()
            for name, test, scope in _tests(module):
                if _reaches_network(test, scope):
                    found[f"{prefix}::{name}"] = list(_requests(test, scope))
    return found


# The string constants in scope; the fixtures in scope -> (stubs?, reaches the network?).
Scope = tuple[dict[str, str], dict[str, tuple[bool, bool]]]


def _tests(module: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef,
                                                 Scope]]:
    outer = _scope(module.body, ({}, {}))
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            inner = _scope(node.body, outer)
            for test in _functions(node.body):
                if test.name.startswith("test_"):
                    yield f"{node.name}::{test.name}", test, inner
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and \
                node.name.startswith("test_"):
            yield node.name, node, outer


def _functions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    return (node for node in body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


def _scope(body: list[ast.stmt], outer: Scope) -> Scope:
    constants, fixtures = dict(outer[0]), dict(outer[1])
    for node in body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str):
            constants.update((target.id, node.value.value) for target in node.targets
                             if isinstance(target, ast.Name))
    for function in _functions(body):
        if any("fixture" in ast.unparse(decorator) for decorator in function.decorator_list):
            fixtures[function.name] = (_stubs(function), _takes_network(function, fixtures))
    return constants, fixtures


def _stubs(function: ast.AST) -> bool:
    return any(isinstance(node, ast.Attribute) and node.attr == "stub_request"
               for node in ast.walk(function))


def _takes_network(function: ast.FunctionDef | ast.AsyncFunctionDef,
                   fixtures: dict[str, tuple[bool, bool]]) -> bool:
    taken = {arg.arg for arg in function.args.args}
    return bool(taken & NETWORK_FIXTURES) or any(fixtures.get(name, (False, False))[1]
                                                 for name in taken)


def _reaches_network(test: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> bool:
    stubbed = _stubs(test) or any(scope[1].get(arg.arg, (False, False))[0]
                                  for arg in test.args.args)
    return not stubbed and _takes_network(test, scope[1])


def _requests(test: ast.AST, scope: Scope) -> Iterator[tuple[str, str]]:
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "assert_requested":
            given = dict(zip(("method", "path"), node.args, strict=False))
            given.update((k.arg, k.value) for k in node.keywords if k.arg)
            method, path = (_text(given.get(key), scope[0]) for key in ("method", "path"))
            if method and path:
                yield method.upper(), path


def _text(node: ast.expr | None, constants: dict[str, str]) -> str | None:
    """A literal string, a name of one, or a literal ``%`` those; else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = _text(node.left, constants)
        items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        values = [_text(item, constants) for item in items]
        if left is not None and None not in values:
            return left % tuple(values)
    return None
