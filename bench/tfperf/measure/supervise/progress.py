"""A one-line progress bar on stderr: case, done/total, elapsed, estimated remaining."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _clock(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    return f"{seconds // 60:d}:{seconds % 60:02d}"


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.t0 = time.monotonic()
        self._last_line = 0.0

    def eta(self) -> float | None:
        if self.done == 0:
            return None
        return (time.monotonic() - self.t0) / self.done * (self.total - self.done)

    def update(self, name: str, finished: bool = False) -> None:
        if finished:
            self.done += 1
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.t0
        eta = self.eta()
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        line = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"{_clock(elapsed)} elapsed, {'?' if eta is None else _clock(eta)} left  {name}")
        if self.tty:
            cols = 120
            self.stream.write("\r" + line[:cols].ljust(cols))
        elif finished or time.monotonic() - self._last_line > 10:
            self.stream.write(line + "\n")
            self._last_line = time.monotonic()
        self.stream.flush()

    def advance(self, name: str, count: int) -> None:
        """Count ``count`` tasks as done without running them (another run stored them)."""
        self.done += max(count - 1, 0)
        self.update(name, finished=count > 0)

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
