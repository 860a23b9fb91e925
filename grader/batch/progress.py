"""The batch's progress: a bar with an ETA on a terminal, one plain line a submission otherwise."""

from __future__ import annotations

import time
from typing import Any, TextIO


class Progress:
    """A progress bar with an ETA on a terminal; one plain line a submission otherwise."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.stream, self.done, self.graded = total, stream, 0, 0
        self.started = time.perf_counter()
        self.tty = stream.isatty()

    def say(self, text: str) -> None:
        """A line of its own (below the bar, on a terminal)."""
        if self.tty and 0 < self.done < self.total:
            self.stream.write("\n")
        self.stream.write(text + "\n")
        self.stream.flush()

    def update(self, name: str, summary: dict[str, Any], skipped: bool) -> None:
        self.done += 1
        self.graded += 0 if skipped else 1
        elapsed = time.perf_counter() - self.started
        left = self.total - self.done
        if self.graded:
            eta = f"{elapsed / self.graded * left:.0f} s"
        else:
            eta = "0 s" if not left else "?"
        what = "up to date" if skipped else f"{summary['score']:g}/{summary['max_score']:g}"
        if summary["error"]:
            what += f", error: {summary['error'][:80]}"
        if self.tty:
            if summary["error"]:  # kept above the bar
                self.stream.write(f"\r{name}: {summary['error'][:100]}\033[K\n")
            filled = int(30 * self.done / max(self.total, 1))
            bar = "#" * filled + "." * (30 - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} ETA {eta:>6}  {name[:30]:30}")
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"[{self.done}/{self.total}] {name}: {what} (ETA {eta})\n")
        self.stream.flush()
