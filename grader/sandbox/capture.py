"""Output capture, on both sides of the worker: printing never fills the grader's memory.

In the worker, :class:`Captured` swaps ``sys.stdout`` / ``sys.stderr`` for capped buffers while
student code runs; in the parent, :class:`CappedBuffer` keeps the first bytes of the worker's
fd-level output (``os.write``, C code, fatal errors) and counts the rest.
"""

from __future__ import annotations

import io
import sys
from typing import Any


class CappedBuffer:
    """Keeps the first ``limit`` bytes fed to it and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    @property
    def total(self) -> int:
        """Bytes fed since the last :meth:`take`."""
        return len(self.data) + self.dropped

    def text(self) -> str:
        """The text kept so far, with a note of what was dropped."""
        text = self.data.decode("utf-8", "replace")
        if self.dropped:
            text += f"\n[... {self.dropped} more bytes not shown]\n"
        return text

    def take(self) -> str:
        """:meth:`text`, and the buffer emptied."""
        text = self.text()
        self.data = bytearray()
        self.dropped = 0
        return text


def join_output(first: str, second: str, limit: int) -> str:
    text = first + second
    if len(text) > limit + 200:  # each side is capped already; this bounds the pair
        text = text[:limit] + f"\n[... {len(text) - limit} more characters not shown]\n"
    return text


class Capture(CappedBuffer, io.RawIOBase):
    """The worker's side: a :class:`CappedBuffer` written to as a binary stream (what
    ``sys.stdout.buffer`` is), so printing never fills memory."""

    def __init__(self, limit: int) -> None:
        io.RawIOBase.__init__(self)
        CappedBuffer.__init__(self, limit)

    def writable(self) -> bool:
        return True

    def write(self, chunk: Any) -> int:
        chunk = bytes(chunk)
        self.feed(chunk)
        return len(chunk)


class CapturedText(io.TextIOBase):
    """``sys.stdout`` / ``sys.stderr`` while student code runs (``.buffer`` works too)."""

    encoding = "utf-8"
    errors = "backslashreplace"

    def __init__(self, capture: Capture) -> None:
        super().__init__()
        self.buffer = capture

    def writable(self) -> bool:
        return True

    def write(self, text: Any) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if len(self.buffer.data) >= self.buffer.limit:
            self.buffer.dropped += len(text)  # past the cap: count, do not even encode
        else:
            self.buffer.write(text.encode("utf-8", "backslashreplace"))
        return len(text)


class Captured:
    """Context manager: sys.stdout and sys.stderr into capped buffers."""

    def __init__(self, limit: int) -> None:
        self.out, self.err = Capture(limit), Capture(limit)

    def __enter__(self) -> Captured:  # noqa: PYI034
        self.saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = CapturedText(self.out), CapturedText(self.err)
        return self

    def __exit__(self, *exc_info: object) -> None:
        sys.stdout, sys.stderr = self.saved
