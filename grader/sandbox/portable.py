"""The portable worker: local checks on machines without the sandbox's POSIX pieces (issue 22).

:class:`PortableWorker` is a :class:`~grader.sandbox.client.Worker` that uses only what every
platform's Python has: a child process started with :mod:`subprocess` (no session, no
``pass_fds``), the child's stdin and stdout as the private channel (JSON lines, the same
protocol, :mod:`grader.sandbox.protocol`), a thread per pipe instead of ``select`` and, for
time, the parent's wall-clock kill (``Popen.kill``) as the only backstop: no ``resource``
limits, no ``pwd`` user, no Landlock, no CPU timer in the child. The child
(:mod:`grader.sandbox.portable_worker`) serves requests with the sandboxed worker's own
functions: the same game, the same traced run, the same work budget, the same reply, so the
same verdicts. Code that makes no game call and never returns is killed by the wall clock here
(``killed_timeout``) where the sandbox's CPU guard stops it in the worker (``timeout``): both
score nothing; only the message differs.

It is for ``grader check`` and the pytest front end on a student's own computer, where the
sandbox would protect nothing that matters (their own code, their own files). It is chosen
where the full sandbox cannot run (:func:`portable_reason`: not Linux, or a POSIX piece
missing) or forced with ``GRADER_PORTABLE=1``; ``GRADER_PORTABLE=0`` forces the sandbox.
``grader grade`` never uses it (:func:`require_sandbox`). ``grader render --trace`` opens its
worker the same way (:func:`open_worker`), so it draws what ``grader check`` grades.

How the child starts, on every platform: :class:`subprocess.Popen` of ``sys.executable -m
grader.sandbox.portable_worker``, never :mod:`multiprocessing`, so no start method's default
(``fork`` on Linux, ``spawn`` on macOS and Windows, ``forkserver`` from Python 3.14) changes
anything: the child is a fresh interpreter importing only what it needs, like ``spawn``, and
nothing of the parent's state (threads, open files, a macOS framework) is copied into it.
macOS (python.org's and Homebrew's Pythons alike) has ``resource``, ``pwd`` and ``fcntl`` but is
not Linux (no Landlock, no ``/proc``): :func:`portable_reason` chooses this worker there, and the
parent's watch (:mod:`grader.sandbox.watch`) falls back to its wall-clock limit. On Windows a
venv's ``python.exe`` is CPython's launcher, which runs the real interpreter as its child in a
job object closed (and the child killed) with it: ``Popen.kill`` ends both (not tried on
Windows yet).
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import secrets
import shutil
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from grader.errors import GraderError
from grader.paths import REPO_ROOT
from grader.sandbox.capture import CappedBuffer
from grader.sandbox.channel import Channel, request_pattern
from grader.sandbox.client import Worker
from grader.sandbox.limits import Limits
from grader.sandbox.process import Closed, prepare_scratch
from grader.sandbox.protocol import (
    MAX_MESSAGE_BYTES,
    MAX_MESSAGE_ITEMS,
    Unreadable,
    parse_message,
)
from grader.sandbox.watch import Watch, next_wake

PORTABLE_ENV = "GRADER_PORTABLE"  # "1": always the portable worker; "0": never
# Wall seconds a reply waits for its mark on the output pipe (see PortableChannel). The mark is
# in the pipe before the reply is written, so only a line the submission wrote to the channel
# itself (no mark follows it) ever waits this long.
MARK_WAIT = 5.0
_EOF, _TOO_LONG = object(), object()


def portable_reason() -> str | None:
    """Why student code here runs in the portable worker, or None (the full sandbox)."""
    forced = os.environ.get(PORTABLE_ENV, "").strip()
    if forced == "0":
        return None
    if forced:
        return f"{PORTABLE_ENV}={forced} is set"
    if not sys.platform.startswith("linux"):
        return f"the full sandbox needs Linux, and this is {sys.platform}"
    missing = [name for name in ("resource", "pwd", "fcntl") if importlib.util.find_spec(name) is None]
    missing += [f"os.{name}" for name in ("killpg", "setsid", "waitid") if not hasattr(os, name)]
    if missing:
        return f"this Python lacks {', '.join(missing)}"
    return None


def require_sandbox(command: str) -> None:
    """Raise :class:`GraderError` unless the full sandbox runs here (``grader grade``)."""
    reason = portable_reason()
    if reason is not None:
        raise GraderError(
            f"{command} runs student code only in the full sandbox, which is not available "
            f"here ({reason}); the portable worker is for `grader check` on a student's own "
            f"computer (unset {PORTABLE_ENV}, and grade on Linux)"
        )


def open_worker(submission: Path | str, *, limits: Limits | None = None,
                calibration: float | None = None,
                user: str | int | tuple[int, int] | None = None) -> Worker:
    """The worker for this machine: the sandboxed one, or :class:`PortableWorker`
    (``calibration`` and ``user``: see :class:`Worker`; the portable one runs as the parent)."""
    if portable_reason() is None:
        return Worker(submission, limits=limits, calibration=calibration, user=user)
    return PortableWorker(submission, limits=limits, calibration=calibration)


def portable_environment(scratch: Path) -> dict[str, str]:
    """The child's environment: the parent's (a Windows Python needs ``SYSTEMROOT`` and the
    like; on the student's own computer there is nothing in it to hide) with the settings that
    make runs the same everywhere: the hash seed, UTF-8 I/O, ``grader/`` on the path."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env.update(
        PYTHONPATH=str(REPO_ROOT),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",  # a set of str: one order every run (of one Python: 3.10 differs)
        PYTHONNOUSERSITE="1",
        PYTHONIOENCODING="utf-8",
        PYTHONUTF8="1",
        TMPDIR=str(scratch), TMP=str(scratch), TEMP=str(scratch),
    )
    return env


class PortableChannel(Channel):
    """:class:`~grader.sandbox.channel.Channel` over the child's stdin and stdout, read by
    threads. The child's fd-level output (``os.write``, C code, tracebacks) all arrives on its
    stderr: its stdout is the channel.

    Two pipes read by two threads have no order between them: a reply could be taken while
    output written before it was still unread in the stderr pipe (a test saw its ``os.write``
    at import missing now and then). So the child writes ``mark`` to the stderr pipe before
    each message it sends, and :meth:`receive` hands a message over only once the output reader
    has passed as many marks as lines were read (or the output ended, or :data:`MARK_WAIT`
    passed: a line the submission wrote itself has no mark). The marks are not output: they
    are cut out of it."""

    def __init__(self, proc: subprocess.Popen, output: int, mark: bytes = b"") -> None:
        self.proc = proc
        self.streams = {"stdout": CappedBuffer(output), "stderr": CappedBuffer(output)}
        self.pipes = {}
        self.inbox = bytearray()
        self.max_items = MAX_MESSAGE_ITEMS  # as the sandboxed channel: the request's limit
        self.mark = mark
        self._lock = threading.Lock()
        self._marked = threading.Condition(self._lock)
        self._marks = 0  # marks the output reader has passed
        self._lines = 0  # channel lines receive has read
        self._output_ended = False
        self._messages: queue.Queue[Any] = queue.Queue()
        self._closed = False
        self._output = threading.Thread(target=self._read_output, args=(proc.stderr,),
                                        daemon=True)
        threading.Thread(target=self._read_channel, args=(proc.stdout,), daemon=True).start()
        self._output.start()

    def _read_channel(self, stream: IO[bytes]) -> None:
        try:
            while True:
                line = stream.readline(MAX_MESSAGE_BYTES + 1)
                if not line.endswith(b"\n"):
                    self._messages.put(_TOO_LONG if len(line) > MAX_MESSAGE_BYTES else _EOF)
                    return
                self._messages.put(line)
        except (OSError, ValueError):  # closed under the thread
            self._messages.put(_EOF)

    def _read_output(self, stream: IO[bytes]) -> None:
        pending = b""  # read, not yet fed: at most a tail that may begin a mark
        try:
            while chunk := stream.read1(1 << 16):
                with self._lock:
                    pending = self._feed_output(pending + chunk)
                    self._marked.notify_all()
        except (OSError, ValueError):
            pass
        finally:
            with self._lock:
                self.streams["stderr"].feed(pending)
                self._output_ended = True
                self._marked.notify_all()

    def _feed_output(self, data: bytes) -> bytes:
        """Feed ``data`` to the stderr buffer, counting and cutting out the marks in it; return
        the tail held back because it may be the start of a mark split between reads."""
        mark = self.mark
        if not mark:
            self.streams["stderr"].feed(data)
            return b""
        while (at := data.find(mark)) >= 0:
            self.streams["stderr"].feed(data[:at])
            data = data[at + len(mark):]
            self._marks += 1
        held = len(data)
        start = data.rfind(mark[:1], max(len(data) - len(mark) + 1, 0))
        if start >= 0 and mark.startswith(data[start:]):
            held = start
        self.streams["stderr"].feed(data[:held])
        return data[held:]

    def close(self) -> None:
        self._closed = True
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass

    def send(self, message: dict[str, Any], deadline: float | None = None,
             watch: Watch | None = None) -> None:
        """Write ``message`` (blocking: the student's own machine, where a worker that stops
        reading hangs only the student's own check)."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            pass  # the worker is gone; the next read says how

    def receive(self, deadline: float, watch: Watch | None = None,
                seq: int | None = None) -> dict[str, Any]:
        """The next message (of request ``seq``: others dropped unparsed, as the sandboxed
        channel does). Raises Deadline or Closed."""
        ours = request_pattern(seq)
        while True:
            wake = next_wake(deadline, watch)
            try:
                item = self._messages.get(timeout=max(wake - time.monotonic(), 0.001))
            except queue.Empty:
                continue
            if item is _EOF:
                self._messages.put(_EOF)  # every later read sees the end too
                raise Closed()
            if item is _TOO_LONG:
                self._messages.put(_EOF)
                raise Closed("wrote more than the grader reads to its private channel")
            self._lines += 1
            line = item.rstrip(b"\n")
            if ours is not None and not ours.search(line):
                continue  # another request's line: stale
            self._await_output()
            try:  # the sandboxed channel's checks: sizes before decoding, then the schema
                return parse_message(line, len(line), self.max_items)
            except Unreadable as error:
                raise Closed(str(error)) from None

    def _await_output(self) -> None:
        """Wait until the output reader has passed the mark of every line read so far: all the
        output written before them is then in the buffers."""
        if not self.mark:
            return
        with self._marked:
            if not self._marked.wait_for(
                    lambda: self._marks >= self._lines or self._output_ended, MARK_WAIT):
                self._lines = self._marks  # unmarked lines (the submission's): counted from here

    def drain(self, seconds: float) -> None:
        self._output.join(seconds)

    def take_output(self) -> tuple[str, str]:
        with self._lock:
            return self.streams["stdout"].take(), self.streams["stderr"].take()


def _kill_and_clean(proc: subprocess.Popen, scratch: Path) -> None:
    """Finalizer: kill the child, reap it, close its pipes, remove its scratch folder."""
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    shutil.rmtree(scratch, ignore_errors=True)


class PortableWorker(Worker):
    """The student's ``search.py`` in a plain child process (see the module docstring); the
    requests, the replies and what they mean are :class:`~grader.sandbox.client.Worker`'s.
    It runs as the user running the grader: ``user`` must be None."""

    @staticmethod
    def resolve_ids(user: str | int | None) -> None:
        if user is not None:
            raise GraderError("the portable worker runs student code as the user running the "
                              f"grader; it cannot run it as {user!r}")
        return None

    def _spawn(self) -> None:
        scratch, target, self.notebook = prepare_scratch(self.submission, None)
        command = [sys.executable, "-s", "-B", "-m", "grader.sandbox.portable_worker"]
        try:
            proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, cwd=str(scratch),
                                    env=portable_environment(scratch))
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        self.starts += 1
        self._proc = proc
        mark = f"\0grader-output-mark-{secrets.token_hex(8)}\0"
        self._channel = PortableChannel(proc, self.limits.output, mark.encode())
        self._finalizer = weakref.finalize(self, _kill_and_clean, proc, scratch)
        self._channel.send({"submission": str(target), "scratch": str(scratch),
                            "limits": asdict(self.limits),
                            "calibration": self.given_calibration, "mark": mark})

    @staticmethod
    def _has_exited(proc: subprocess.Popen) -> bool:
        return proc.poll() is not None

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        if proc.poll() is None:  # one child, no process group to kill
            proc.kill()


__all__ = ["PORTABLE_ENV", "PortableWorker", "open_worker", "portable_reason", "require_sandbox"]
