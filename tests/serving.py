"""An ASGI app really served by uvicorn on a free loopback port, in a thread, for the tests
that need a server over the network (one way to start one, for every such test)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal

import uvicorn


@contextlib.contextmanager
def serving_app(make_app: Callable[[str], Any], *,
                lifespan: Literal["auto", "on", "off"] = "on") -> Iterator[str]:
    """``make_app(url)`` served at ``url`` (its own address: a server that names itself, as a
    public URL, knows it before it is built) for the block; yields the URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(make_app(url), log_level="warning", ws="auto",
                                           lifespan=lifespan))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def dead_url() -> str:
    """A loopback URL where nothing listens (a port the system just gave and took back)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"
