"""A plain progress line every few seconds when nobody watches a terminal.

Rich's live displays draw nothing when output goes to a pipe or a file, so a command run by
CI, ``nohup`` or ``| tee`` looked hung for the length of the job (about a minute for the
demo). :class:`Heartbeat` prints one line to standard error every :data:`INTERVAL_S`
seconds while it is open, saying what the command is doing (a phase, and runs done of the
scheduled total when it runs episodes). It stays silent on a terminal, where the live
display shows the same, and when ``SSCBENCH_HEARTBEAT=off`` (the test suite's default: a
progress line would be a second line after a one-line error).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType
from typing import TextIO

INTERVAL_S = 5.0
"""Seconds between two progress lines (the promise is at least one every 10 s)."""
ENV = "SSCBENCH_HEARTBEAT"


class Heartbeat:
    """Progress lines for ``command`` on ``stream`` (standard error) while open."""

    def __init__(
        self, command: str, stream: TextIO | None = None, interval: float | None = None
    ) -> None:
        self.command = command
        self.stream = stream if stream is not None else sys.stderr
        self.interval = INTERVAL_S if interval is None else interval
        self.phase = "starting"
        self.total: int | None = None
        self.done = 0
        self.failed = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()

    @property
    def active(self) -> bool:
        """Whether lines are printed: not on a terminal, and not switched off."""
        if os.environ.get(ENV, "").lower() in ("off", "0", "no"):
            return False
        isatty = getattr(self.stream, "isatty", None)
        return not (callable(isatty) and isatty())

    def set(self, phase: str, total: int | None = None) -> None:
        """Enter a phase (``total``: runs it will finish, counted by :meth:`advance`)."""
        self.phase, self.total, self.done, self.failed = phase, total, 0, 0

    def advance(self, failed: bool = False) -> None:
        """One more run finished (``failed`` when it ended in an error)."""
        self.done += 1
        self.failed += failed

    def line(self) -> str:
        """The progress line as printed now."""
        elapsed = int(time.monotonic() - self._started)
        text = f"{self.command}: {self.phase}"
        if self.total is not None:
            text += f" — {self.done:,}/{self.total:,} runs"
            if self.failed:
                text += f", {self.failed:,} failed"
        return f"{text} ({elapsed // 60}:{elapsed % 60:02d} elapsed)"

    def _beat(self) -> None:
        while not self._stop.wait(self.interval):
            print(self.line(), file=self.stream, flush=True)

    def __enter__(self) -> Heartbeat:
        global _current
        _current = self
        self._started = time.monotonic()
        if self.active:
            self._thread = threading.Thread(target=self._beat, name="heartbeat", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        global _current
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        _current = None


_current: Heartbeat | None = None
"""The heartbeat of the command running in this process (``sscbench.cli.main`` opens it)."""


def phase(text: str, total: int | None = None) -> None:
    """Say what the running command does now (nothing when no heartbeat is open)."""
    if _current is not None:
        _current.set(text, total)


def advance(failed: bool = False) -> None:
    """Count one finished run towards the current phase's total."""
    if _current is not None:
        _current.advance(failed)
