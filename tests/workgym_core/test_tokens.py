"""Episode tokens: an access token never reads as a refresh token, whatever its random
nonce begins with (a nonce starting with ``r`` once made 1 token in 64 a "refresh" one)."""

from __future__ import annotations

from workgym_core.registry import Tokens


def test_access_and_refresh_tokens_are_told_apart_every_time() -> None:
    tokens = Tokens("secret")
    for _ in range(2000):
        access = tokens.parse(tokens.mint("ep1", 2e9))
        refresh = tokens.parse(tokens.mint("ep1", 2e9, refresh=True))
        assert access is not None and not access.refresh
        assert refresh is not None and refresh.refresh
    assert tokens.parse(tokens.mint("ep1", 2e9) + "x") is None
