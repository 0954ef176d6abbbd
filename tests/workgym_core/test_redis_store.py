"""The redis-server WorkGym starts for other machines (`workgym ray up`'s): reachable on its
address with the password its URL carries, and only with it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis

from workgym_core import redis_store


def test_a_served_redis_answers_only_with_its_password(tmp_path: Path) -> None:
    url = redis_store.serve_tcp(tmp_path, "127.0.0.1")
    address = urlsplit(url)
    assert address.hostname == "127.0.0.1" and address.password and address.port
    with redis.Redis.from_url(url) as client:
        assert client.set("k", "v") and client.get("k") == b"v"
    with redis.Redis(host=address.hostname, port=address.port) as anonymous, \
            pytest.raises(redis.AuthenticationError):
        anonymous.get("k")
