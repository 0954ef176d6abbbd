"""The bench's progress on stderr: a bar redrawn in place on a terminal (episodes done of
the total, passed, errors, elapsed, ETA), one plain line per episode otherwise (a CI log,
a file). No dependency: a dozen lines do what a progress library would, and the line
can carry the bench's own counts."""

from __future__ import annotations

import shutil
import sys
import time
from typing import Any, TextIO


def clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """``total`` episodes, ``done`` of them (``passed``, ``errors``) recorded before."""

    def __init__(self, total: int, done: int = 0, passed: int = 0, errors: int = 0,
                 stream: TextIO | None = None, tty: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.total, self.done, self.passed, self.errors = total, done, passed, errors
        self.infra = 0
        self._resumed = done
        self._started = time.monotonic()

    def _counts(self) -> str:
        elapsed = time.monotonic() - self._started
        ran = self.done - self._resumed
        eta = clock(elapsed / ran * (self.total - self.done)) if ran else "?"
        errors = f" · {self.errors} error{'s' * (self.errors != 1)}" if self.errors else ""
        if self.infra:
            errors += f" · {self.infra} infra failure{'s' * (self.infra != 1)}"
        return f"{self.passed} passed{errors} · {clock(elapsed)} elapsed · ETA {eta}"

    def update(self, episode: dict[str, Any]) -> None:
        """One more episode recorded."""
        self.done += 1
        self.passed += bool(episode["success"])
        self.errors += episode.get("error") is not None
        self.infra += bool(episode.get("infra_error"))
        if self.tty:
            self.draw()
            return
        status = "error" if episode.get("error") else "infra failure" if episode.get(
            "infra_error") else ("pass" if episode["success"] else "fail")
        print(f"bench {self.done}/{self.total}  {episode['task']} seed {episode['seed']} "
              f"trial {episode['trial']}: {status}, reward {episode['reward']:.2f}, "
              f"{episode['duration_s']:.1f} s · {self._counts()}", file=self.stream, flush=True)

    def draw(self) -> None:
        """Redraw the bar (a terminal only)."""
        if not self.tty:
            return
        text = f" {self.done}/{self.total} · {self._counts()}"
        width = max(10, min(30, shutil.get_terminal_size().columns - len(text) - 10))
        filled = width * self.done // max(self.total, 1)
        self.stream.write(f"\r\x1b[Kbench [{'#' * filled}{'.' * (width - filled)}]{text}")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
