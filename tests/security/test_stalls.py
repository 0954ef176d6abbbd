"""One request cannot stall everyone: nothing an operator or agent sends is run as a regular
expression, and oversized requests are refused before any work is done on them.

Before: a custom fault target was a regular expression (catastrophic backtracking stalled
the event loop for seconds), and the proxy handled thousands of headers in quadratic time."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic import ValidationError

from workgym.local import LocalServer
from workgym.sdk import Env
from workgym_core import paths
from workgym_proxy.faults.base import Target

from .conftest import TASK, operator

MakeEnv = Callable[..., Env]
REDOS = "/(a+)+$"


@pytest.mark.parametrize("pattern", [REDOS, r"/api/v2/tickets/\d+", "/api/v2/tickets/[0-9]*",
                                     "/(a|b)", "tickets", "/a//b"])
def test_fault_targets_are_never_regular_expressions(local: LocalServer, make_env: MakeEnv,
                                                     pattern: str) -> None:
    with pytest.raises(ValidationError):
        Target(path=pattern)
    env = make_env(TASK, 1, "none")
    obs = env.reset()
    refused = local.request("POST", f"/v1/control/episodes/{obs.episode_id}/faults",
                            headers=operator(local),
                            json={"kind": "latency", "target": {"path": pattern}})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == \
        "faults.0.target.path"


def test_path_patterns_match_by_segments_whatever_the_input() -> None:
    assert paths.matches("/api/v2/tickets/{id}/comments", "/api/v2/tickets/301/comments")
    assert paths.matches("/api/v2/tickets/*/comments", "/api/v2/tickets/301/comments")
    assert not paths.matches("/api/v2/tickets/*/comments", "/api/v2/tickets//comments")
    assert not paths.matches("/api/v2/tickets/*", "/api/v2/tickets/301/comments")
    assert paths.matches("/orders/**", "/orders") and paths.matches("/orders/**", "/orders/1/x")
    assert paths.any_matches(["/a", "/b/*"], "/b/2") and not paths.any_matches(["/a"], "/b")
    # The classic backtracking trap for a regex engine is a table walk here: the pattern's
    # segments times the path's, whatever they hold.
    hostile = "/" + "a/" * 10_000 + "!"
    assert not paths.matches("/**/**/**/**/**/**/**/**/b", hostile)
    assert paths.matches("/**/**/**/**/**/**/**/**/!", hostile)
