"""The parent's end of the private channel to one worker, and the worker's output pipes.

JSON lines over a socket (:mod:`grader.sandbox.protocol`), read while the worker's stdout and
stderr are drained into capped buffers, so a worker that prints a lot never blocks on a full
pipe. Every wait, a request's send included, has a deadline, and may be watched
(:class:`~grader.sandbox.watch.Watch`): the parent's own limits on the worker, checked at least
ten times a second.
"""

from __future__ import annotations

import json
import os
import re
import select
import socket
import time
from typing import Any

from grader.sandbox.capture import CappedBuffer
from grader.sandbox.process import Closed
from grader.sandbox.protocol import (
    MAX_MESSAGE_BYTES,
    MAX_MESSAGE_ITEMS,
    Unreadable,
    checked_message,
    line_text,
    text_message,
)
from grader.sandbox.watch import Watch, next_wake


class RequestFilter:
    r"""What every line of a message of request ``seq`` holds: ``search(line, pos, endpos)`` is
    true where the regex ``"seq"\s*:\s*<seq>(?![\d.eE])`` finds a match. The worker writes
    ``"seq": <seq>`` (json.dumps' separators), found by a plain search; only a line without it
    (stale, or forged) compiles the regex, which costs 0.1 ms of the grader's CPU (every seq
    differs, so Python's cache of patterns never has it) and decides."""

    __slots__ = ("quick", "_pattern", "seq")

    def __init__(self, seq: int) -> None:
        self.seq = seq
        self.quick = b'"seq": %d' % seq
        self._pattern: re.Pattern[bytes] | None = None

    def search(self, data: bytes | bytearray, pos: int = 0, endpos: int | None = None) -> bool:
        end = len(data) if endpos is None else min(endpos, len(data))
        at = data.find(self.quick, pos, end)
        if at >= 0:
            after = at + len(self.quick)
            if after >= end or data[after] not in b"0123456789.eE":
                return True
        if self._pattern is None:
            self._pattern = re.compile(rb'"seq"\s*:\s*%d(?![\d.eE])' % self.seq)
        return self._pattern.search(data, pos, end) is not None


def request_pattern(seq: int | None) -> RequestFilter | None:
    """What every line of a message of request ``seq`` holds (None: any line will do)."""
    return RequestFilter(seq) if seq is not None else None


class Channel:
    """One worker's socket (``sock``) and output pipes (fd -> buffer, for ``stdout``/``stderr``)."""

    def __init__(self, sock: socket.socket, pipes: dict[str, int], output: int) -> None:
        self.sock = sock
        self.inbox = bytearray()
        self.max_items = MAX_MESSAGE_ITEMS  # JSON items a message may hold (the request's)
        self.streams = {name: CappedBuffer(output) for name in pipes}  # kept after EOF
        self.pipes = {fd: self.streams[name] for name, fd in pipes.items()}  # still open

    def close(self) -> None:
        self.sock.close()
        self.pipes, self.inbox = {}, bytearray()

    def send(self, message: dict[str, Any], deadline: float | None = None,
             watch: Watch | None = None) -> None:
        """Write ``message``; with a ``deadline``, never blocked past it (nor past ``watch``'s
        limits): a worker that stops reading (a signal handler of the submission's spinning
        between requests) with a request larger than the socket's buffer raises
        :class:`Deadline` instead of hanging the grader. The output pipes are drained
        meanwhile."""
        data = memoryview(json.dumps(message).encode() + b"\n")
        if deadline is None:
            try:
                self.sock.sendall(data)
            except OSError:
                pass  # the worker is gone; the next read says how
            return
        sock = self.sock.fileno()
        while data:
            try:
                data = data[self.sock.send(data, socket.MSG_DONTWAIT):]
                if watch is not None:
                    watch.heard()  # the worker reads: it is not asleep
                continue
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                return  # the worker is gone; the next read says how
            wake = next_wake(deadline, watch)
            _, writable, _ = select.select(list(self.pipes), [sock], [],
                                           max(wake - time.monotonic(), 0))
            if not writable:
                self._drain_ready()

    def _drain_ready(self) -> None:
        """Read what the output pipes hold now, without waiting."""
        readable, _, _ = select.select(list(self.pipes), [], [], 0)
        for fd in readable:
            self._read_pipe(fd)

    def _read_pipe(self, fd: int) -> None:
        """Feed what output pipe ``fd`` holds to its capped buffer; forget it at its end."""
        chunk = os.read(fd, 1 << 20)
        if chunk:
            self.pipes[fd].feed(chunk)
        else:
            del self.pipes[fd]

    def expect(self, event: str, deadline: float, seq: int | None = None,
               watch: Watch | None = None) -> dict[str, Any]:
        """The next message of this request; earlier requests' leftovers are skipped."""
        while True:
            message = self.receive(deadline, watch, seq)
            if seq is not None and message.get("seq") != seq:
                continue  # a stale line (code that wrote to the channel itself)
            if message.get("event") != event:
                raise Closed(f"sent {message.get('event')!r} where {event!r} was due")
            return message

    def receive_for(self, seq: int, deadline: float, watch: Watch | None = None) -> dict[str, Any]:
        """The next message of request ``seq``."""
        while True:
            message = self.receive(deadline, watch, seq)
            if message.get("seq") == seq:
                return message

    def receive(self, deadline: float, watch: Watch | None = None,
                seq: int | None = None) -> dict[str, Any]:
        """The next message, draining stdout/stderr meanwhile. Raises Deadline or Closed.

        With ``seq``, a line that nowhere says ``"seq": N`` (a search of its bytes, in C) is
        not a message of request ``seq`` and is dropped unparsed: code that writes
        valid-looking replies of 24 MiB for a request that does not exist cost the grader 0.73
        CPU s each to parse, until the wall clock ended the call."""
        sock = self.sock.fileno()
        scanned = 0  # bytes of the inbox known to hold no newline
        ours = request_pattern(seq)
        while True:
            line_end = self.inbox.find(b"\n", scanned)
            scanned = len(self.inbox)
            if line_end >= 0 and ours is not None and not ours.search(self.inbox, 0, line_end):
                del self.inbox[: line_end + 1]  # another request's (or no request's): stale
                scanned = 0
                continue
            if line_end >= 0:
                try:  # sizes checked before decoding, then the schema: nothing here is trusted
                    text = line_text(self.inbox, line_end, self.max_items)
                except Unreadable as error:
                    raise Closed(str(error)) from None
                finally:  # the line's bytes freed before it is parsed and its traces unpacked
                    del self.inbox[: line_end + 1]
                    if not self.inbox:  # a fresh one: a bytearray keeps its largest size (a
                        self.inbox = bytearray()  # full tic-tac-toe reply: 5 MB) for good
                try:
                    message = text_message(text)
                    del text  # (3 MB: not kept while the traces are unpacked)
                    return checked_message(message, self.max_items)
                except Unreadable as error:
                    raise Closed(str(error)) from None
            if len(self.inbox) > MAX_MESSAGE_BYTES:
                raise Closed(f"sent a message longer than the {MAX_MESSAGE_BYTES:,} bytes the "
                             "grader reads")
            remaining = next_wake(deadline, watch) - time.monotonic()
            readable, _, _ = select.select([sock, *self.pipes], [], [], max(remaining, 0))
            if readable and watch is not None:
                watch.heard()  # a worker writing (a long reply, output) is not asleep
            for fd in readable:
                if fd != sock:
                    self._read_pipe(fd)
                    continue
                try:
                    chunk = os.read(fd, 1 << 20)
                except ConnectionResetError:  # the worker died with unread data on its end
                    chunk = b""
                if not chunk:
                    raise Closed()
                self.inbox += chunk

    def drain(self, seconds: float) -> None:
        """Collect what is left in the output pipes, for at most ``seconds``."""
        deadline = time.monotonic() + seconds
        while self.pipes and time.monotonic() < deadline:
            readable, _, _ = select.select(list(self.pipes), [], [], deadline - time.monotonic())
            for fd in readable:
                self._read_pipe(fd)

    def printed(self) -> int:
        """Bytes the worker wrote to stdout and stderr so far (kept or not)."""
        return sum(buffer.total for buffer in self.streams.values())

    def take_output(self) -> tuple[str, str]:
        """fd-level output (os.write, C code, fatal errors) captured since the last take."""
        return self.streams["stdout"].take(), self.streams["stderr"].take()
