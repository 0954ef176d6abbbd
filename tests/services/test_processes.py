"""``workgym.processes.serving``: the server a test talks to is the one it started, even when
another process takes its port first (two test workers starting servers at once: the other
server's operator key made every call a 401)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import httpx
import pytest

from workgym import processes
from workgym.processes import listens, serving
from workgym_core.credentials import find_api_key


class _Healthy(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def another_server() -> Iterator[int]:
    """Another process's server answering 200 to anything, on a port of its own."""
    server = HTTPServer(("127.0.0.1", 0), _Healthy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_listens_tells_a_process_holding_the_port_from_one_that_does_not() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert listens(os.getpid(), port)
        other = subprocess.Popen([sys.executable, "-c", "import time; print(flush=True); "
                                  "time.sleep(30)"], stdout=subprocess.PIPE)
        assert other.stdout is not None
        try:
            other.stdout.readline()  # running its own program: the fork's copies are closed
            assert not listens(other.pid, port)
        finally:
            other.kill()
            other.wait()
            other.stdout.close()


@pytest.mark.slow
def test_a_port_taken_first_is_not_mistaken_for_the_server(
        another_server: int, monkeypatch: pytest.MonkeyPatch) -> None:
    real = processes.free_port
    ports = iter([another_server])
    monkeypatch.setattr(processes, "free_port", lambda: next(ports, None) or real())
    with serving() as url:
        assert not url.endswith(f":{another_server}")
        answered = httpx.get(f"{url}/v1/tasks", headers={
            "authorization": f"Bearer {find_api_key()}"}, timeout=30)
        assert answered.status_code == 200
