"""Run the student's ``search.py`` in a worker process, never in the grader's.

:class:`Worker` starts ``python -m grader.sandbox.worker`` (:mod:`grader.sandbox.worker`) in a
session of its own and talks to it over a private socket (JSON lines, one message a line, never
stdout); the worker's stdout and stderr are pipes the parent drains and caps. One worker serves many
requests; after a time-out, a crash or a memory error the next :meth:`Worker.run` starts a
fresh one.

Defences, innermost first:

* a per-call time limit inside the worker (``timeout_decorator``, SIGALRM) raising
  :class:`~grader.sandbox.worker.WorkerTimeout`, a ``BaseException`` that ``except Exception`` does
  not swallow; a call that returns after its limit is a time-out too, whatever it caught;
* a hard wall-clock kill of the whole process group at ``time + kill_margin`` (C loops, code
  that swallows every exception);
* ``resource`` limits: address space, CPU seconds, processes, file size, open files, no core;
* as root: the worker drops to an unprivileged user (``user``, else ``$GRADER_WORKER_USER``,
  else ``nobody``) before it imports the submission, and runs in a scratch copy of it;
* where the kernel has Landlock (as root or not): reads only the interpreter's libraries and
  ``grader/``, writes only its scratch folder, no TCP, no signals to outside processes
  (``$GRADER_LANDLOCK=0`` turns this off, to test the other layers alone);
* a minimal environment (no secrets), ``PYTHONHASHSEED=0`` and the global ``random`` seeded
  before each call (a regrade gives the same result); only JSON crosses back, and every field
  of a reply is rebuilt as the plain type it should be;
* a call that prints more than ``limits.flood`` bytes fails ("printed too much").

docs/security.md is the whole security model: these layers, the others, and what is not
defended.


The protocol is :mod:`grader.sandbox.protocol`, values cross as :mod:`grader.sandbox.values` says.
"""

from __future__ import annotations

import json
import math
import os
import select
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from grader.errors import GraderError, SubmissionError
from grader.sandbox.capture import CappedBuffer, join_output
from grader.sandbox.limits import LANDLOCK_ENV, Limits, resolve_user
from grader.sandbox.notebook import ConvertedNotebook, relabel_reply
from grader.sandbox.process import (
    Closed,
    Deadline,
    describe_exit,
    has_exited,
    kill_and_clean,
    kill_group,
    prepare_scratch,
    remove_tree,
    scratch_problem,
    worker_environment,
)
from grader.sandbox.private import isolator
from grader.sandbox.protocol import (
    ERROR_KEYS,
    MAX_MESSAGE_BYTES,
    MAX_MESSAGE_ITEMS,
    MAX_TRACE,
    STATUSES,
    Unreadable,
    WorkerReply,
    check_case_builds,
    finite_number,
    items_allowed,
    mcts_dict,
    parse_message,
    reply_from_message,
)

# --- the parent's side ----------------------------------------------------------------------








class Worker:
    """The student's ``search.py`` in a worker process. Use as a context manager.

    ``submission`` is a ``search.py``, or a folder or zip holding one (copied into a scratch
    folder; only that file). :meth:`run` starts the worker when needed. A missing or
    unimportable submission is an ``import_error`` reply on every request, never an exception;
    failures of the grader's own side (the worker cannot start, a case the parent cannot build)
    raise :class:`~grader.errors.GraderError`; nothing the worker sends ever does.
    """

    def __init__(
        self, submission: Path | str, *, limits: Limits = Limits(), user: str | int | None = None
    ) -> None:
        self.submission = Path(submission)
        self.limits = limits
        self.user = user
        self.starts = 0  # processes started so far
        self.startup_seconds: float | None = None  # the last start, until the import was done
        self._ids = resolve_user(user)
        self._proc: subprocess.Popen | None = None
        self._scratch: Path | None = None
        self._max_items = MAX_MESSAGE_ITEMS  # JSON items a message may hold (this request's)
        self._sock: socket.socket | None = None
        self._inbox = bytearray()
        self._pipes: dict[int, CappedBuffer] = {}  # open output pipes
        self._streams: dict[str, CappedBuffer] = {}  # stdout/stderr, kept after EOF
        self._seq = 0
        self._cpu = 0.0
        self._import_failure: WorkerReply | None = None
        self._import_output = ("", "")
        self._finalizer: weakref.finalize | None = None
        # how the last worker was confined: {"uid": its uid, "landlock": ABI applied, 0 = none}
        self.confinement: dict[str, int] = {}
        self.notebook: ConvertedNotebook | None = None  # a notebook submission, once converted

    # --- lifecycle ------------------------------------------------------------------------
    def __enter__(self) -> Worker:  # noqa: PYI034
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The running worker's pid (its process group id too), or None."""
        return self._proc.pid if self._proc is not None else None

    def close(self) -> None:
        """Kill the worker's process group and remove its scratch folder. Idempotent."""
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
        if self._sock is not None:
            self._sock.close()
        self._proc, self._sock, self._scratch = None, None, None
        self._pipes, self._streams, self._inbox = {}, {}, bytearray()

    def start(self) -> None:
        """Start the worker and import the submission (:meth:`run` does this when needed)."""
        if self._proc is not None or self._import_failure is not None:
            return
        started = time.perf_counter()
        try:
            self._spawn()
        except SubmissionError as error:
            self._import_failure = self._import_error("SubmissionError", str(error))
            return
        try:
            importing = self._expect("importing", time.monotonic() + self.limits.setup_time)
            confinement = importing.get("confinement")  # sent before any student code ran
            if isinstance(confinement, dict):
                self.confinement = {
                    key: int(finite_number(confinement.get(key), -1)) for key in ("uid", "landlock")
                }
        except (Deadline, Closed) as error:
            detail = self._kill_and_drain(error)
            stderr = self._take_output()[1]
            self.close()
            raise GraderError(
                f"the sandbox worker did not start: it {detail}; stderr:\n{stderr}"
            ) from None
        try:
            deadline = time.monotonic() + self.limits.import_time + self.limits.kill_margin
            ready = self._expect("ready", deadline)
        except (Deadline, Closed) as error:
            detail = self._kill_and_drain(error)
            if isinstance(error, Deadline):
                message = (
                    f"importing search.py took longer than {self.limits.import_time:g} s "
                    "and ignored the time-out (a loop at the top level of the file?)"
                )
            else:
                message = f"the process importing search.py {detail}"
            self._import_failure = self._import_error("ImportFailed", message, *self._take_output())
            self.close()
            return
        self.startup_seconds = time.perf_counter() - started
        self._cpu = finite_number(ready.get("cpu"), 0.0)
        stdout, stderr = self._take_output()
        stdout = join_output(str(ready.get("stdout", "")), stdout, self.limits.output)
        stderr = join_output(str(ready.get("stderr", "")), stderr, self.limits.output)
        if ready.get("status") != "ok":
            error = {k: str((ready.get("error") or {}).get(k, "")) for k in ERROR_KEYS}
            message = f"search.py could not be imported: {error['type']}: {error['message']}"
            self._import_failure = WorkerReply(
                "import_error", error=error, stdout=stdout, stderr=stderr, message=message
            )
            self.close()
            return
        self._import_output = (stdout, stderr)  # shown with the next reply

    @staticmethod
    def _import_error(kind: str, message: str, stdout: str = "", stderr: str = "") -> WorkerReply:
        error = {"type": kind, "message": message, "traceback": ""}
        return WorkerReply(
            "import_error", error=error, stdout=stdout, stderr=stderr, message=message
        )

    def _spawn(self) -> None:
        scratch, target, self.notebook = prepare_scratch(self.submission, self._ids)
        env = worker_environment(scratch)
        parent_end, child_end = socket.socketpair()
        command = [sys.executable, "-s", "-B", "-m", "grader.sandbox.worker", str(child_end.fileno())]
        try:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(child_end.fileno(),),
                cwd="/",
                env=env,
                start_new_session=True,
                # its own /tmp, /var/tmp, /dev/shm and a size-bounded scratch, where it can be
                preexec_fn=isolator(scratch, target.read_bytes(), self._ids, self.limits),
            )
        except BaseException:
            parent_end.close()
            remove_tree(scratch)
            raise
        finally:
            child_end.close()
        self.starts += 1
        self._proc, self._sock, self._inbox = proc, parent_end, bytearray()
        self._scratch = scratch
        self._streams = {
            "stdout": CappedBuffer(self.limits.output),
            "stderr": CappedBuffer(self.limits.output),
        }
        self._pipes = {
            proc.stdout.fileno(): self._streams["stdout"],
            proc.stderr.fileno(): self._streams["stderr"],
        }
        self._finalizer = weakref.finalize(self, kill_and_clean, proc, scratch)
        self._send(
            {
                "submission": str(target),
                "scratch": str(scratch),
                "ids": list(self._ids) if self._ids else None,
                "limits": asdict(self.limits),
                "landlock": os.environ.get(LANDLOCK_ENV, "1") != "0",
            }
        )

    # --- the channel ----------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        assert self._sock is not None
        try:
            self._sock.sendall(json.dumps(message).encode() + b"\n")
        except OSError:
            pass  # the worker is gone; the next read says how

    def _expect(self, event: str, deadline: float, seq: int | None = None) -> dict[str, Any]:
        """The next message of this request; earlier requests' leftovers are skipped."""
        while True:
            message = self._receive(deadline)
            if seq is not None and message.get("seq") != seq:
                continue  # a stale line (code that wrote to the channel itself)
            if message.get("event") != event:
                raise Closed(f"sent {message.get('event')!r} where {event!r} was due")
            return message

    def _receive(self, deadline: float) -> dict[str, Any]:
        """The next message, draining stdout/stderr meanwhile. Raises Deadline or Closed."""
        assert self._sock is not None
        sock = self._sock.fileno()
        scanned = 0  # bytes of the inbox known to hold no newline
        while True:
            line_end = self._inbox.find(b"\n", scanned)
            scanned = len(self._inbox)
            if line_end >= 0:
                try:  # sizes checked before decoding, then the schema: nothing here is trusted
                    return parse_message(self._inbox, line_end, self._max_items)
                except Unreadable as error:
                    raise Closed(str(error)) from None
                finally:
                    del self._inbox[: line_end + 1]
            if len(self._inbox) > MAX_MESSAGE_BYTES:
                raise Closed(f"sent a message longer than the {MAX_MESSAGE_BYTES:,} bytes the "
                             "grader reads")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Deadline()
            readable, _, _ = select.select([sock, *self._pipes], [], [], remaining)
            for fd in readable:
                chunk = os.read(fd, 1 << 20)
                if fd == sock:
                    if not chunk:
                        raise Closed()
                    self._inbox += chunk
                elif chunk:
                    self._pipes[fd].feed(chunk)
                else:
                    del self._pipes[fd]

    def _kill_and_drain(self, error: Exception) -> str:
        """Kill the group, collect the remaining output, and say how the worker ended."""
        proc = self._proc
        assert proc is not None
        exited = False
        if isinstance(error, Closed) and not error.args:  # EOF: the worker is probably exiting
            deadline = time.monotonic() + 1.0
            while not (exited := has_exited(proc)) and time.monotonic() < deadline:
                time.sleep(0.005)
        kill_group(proc)  # before reaping: while the leader is a zombie, the group id stays ours
        code = proc.wait()
        if exited:
            detail = describe_exit(code)
        elif isinstance(error, Closed):
            detail = str(error.args[0]) if error.args else "closed the grader's private channel"
        else:
            detail = "stopped answering"
        deadline = time.monotonic() + 0.5
        while self._pipes and time.monotonic() < deadline:
            readable, _, _ = select.select(list(self._pipes), [], [], deadline - time.monotonic())
            for fd in readable:
                chunk = os.read(fd, 1 << 20)
                if chunk:
                    self._pipes[fd].feed(chunk)
                else:
                    del self._pipes[fd]
        return detail

    def _take_output(self) -> tuple[str, str]:
        """fd-level output (os.write, C code, fatal errors) captured so far."""
        if not self._streams:
            return "", ""
        return self._streams["stdout"].take(), self._streams["stderr"].take()

    # --- requests -------------------------------------------------------------------------
    def run(
        self,
        case: Mapping[str, Any],
        algorithm: str,
        *,
        mcts: Any = None,
        time_limit: float | None = None,
        trace_limit: int | None = None,
    ) -> WorkerReply:
        """Run ``algorithm``'s function of the submission on ``case`` (its public dict, no
        answers; a Case is turned into its ``public_dict()``).

        ``mcts``: an object or mapping with ``iterations``, ``seed``, ``c`` (default: the case's).
        ``time_limit``: seconds for the call (default ``limits.time``). Never raises for anything
        the student's code does; raises :class:`GraderError` when the grader's side fails.
        ``trace_limit``: ids kept of each trace list (default and most: ``MAX_TRACE``); the
        reply may hold no more items than that allows, so a forged one costs the parent little.
        """
        time_limit = self.limits.time if time_limit is None else float(time_limit)
        if not (time_limit > 0 and math.isfinite(time_limit)):
            raise ValueError(f"expected time_limit to be positive, got: {time_limit!r}")
        if hasattr(case, "public_dict"):
            case = case.public_dict()
        check_case_builds(case)  # the grader's own failure is raised here, never by the worker
        if self._proc is not None and (
            self._proc.poll() is not None  # it died between requests
            or self._cpu + time_limit + self.limits.kill_margin + 2 > self.limits.cpu_time
        ):
            self.close()  # start afresh
        self.start()
        if self._import_failure is not None:
            failure = self._import_failure
            return relabel_reply(WorkerReply(
                failure.status,
                error=dict(failure.error or {}),
                stdout=failure.stdout,
                stderr=failure.stderr,
                algorithm=algorithm,
                time_limit=time_limit,
                message=failure.message,
            ), self.notebook)
        self._seq += 1
        request = {
            "seq": self._seq,
            "case": case,
            "algorithm": algorithm,
            "mcts": mcts_dict(mcts),
            "time_limit": time_limit,
            "trace_limit": min(int(trace_limit or MAX_TRACE), MAX_TRACE),
        }
        self._max_items = items_allowed(request["trace_limit"])
        try:
            reply = self._exchange(request, time_limit)
        finally:
            self._max_items = MAX_MESSAGE_ITEMS
        reply.algorithm, reply.time_limit = algorithm, time_limit
        if self._import_output != ("", ""):
            stdout, stderr = self._import_output
            reply.stdout = join_output(stdout, reply.stdout, self.limits.output)
            reply.stderr = join_output(stderr, reply.stderr, self.limits.output)
            self._import_output = ("", "")
        return relabel_reply(reply, self.notebook)  # a notebook's lines named by cell

    def _exchange(self, request: dict[str, Any], time_limit: float) -> WorkerReply:
        seq = request["seq"]
        self._send(request)
        function = None
        try:
            first = self._receive_for(seq, time.monotonic() + self.limits.setup_time)
            if first.get("event") == "reply":  # answered without calling anything
                return self._finish(first, before_student=True)
            if first.get("event") != "started":
                raise Closed(f"sent {first.get('event')!r} where 'started' was due")
            function = first.get("function")
            deadline = time.monotonic() + time_limit + self.limits.kill_margin
            return self._finish(self._expect("reply", deadline, seq), function)
        except Deadline:
            self._kill_and_drain(Deadline())
            stdout, stderr = self._take_output()
            self.close()
            return WorkerReply(
                "killed_timeout",
                stdout=stdout,
                stderr=stderr,
                function=function,
                message=(
                    f"did not finish within {time_limit:.2f} s and ignored the time-out; "
                    f"the process was killed after {time_limit + self.limits.kill_margin:.2f} s"
                ),
            )
        except Closed as error:
            detail = self._kill_and_drain(error)
            stdout, stderr = self._take_output()
            self.close()
            return WorkerReply(
                "crashed", stdout=stdout, stderr=stderr, function=function, message=detail
            )

    def _receive_for(self, seq: int, deadline: float) -> dict[str, Any]:
        while True:
            message = self._receive(deadline)
            if message.get("seq") == seq:
                return message

    def _finish(self, message: dict[str, Any], function: str | None = None, *,
                before_student: bool = False) -> WorkerReply:
        # No status the worker sends is the grader's failure, "grader_error" included (student
        # code may have written it): reply_from_message makes a status outside STATUSES a crash.
        # The parent checked that the case builds before sending it (run), so a genuine
        # failure to build is raised there, as the grader's own.
        status = message.get("status")
        printed = sum(buffer.total for buffer in self._streams.values())
        stdout, stderr = self._take_output()
        reply = reply_from_message(message, function, stdout=stdout, stderr=stderr,
                                   printed=printed, limits=self.limits)
        self._cpu = finite_number(message.get("cpu"), self._cpu)
        overfull = scratch_problem(self._scratch, self.limits) if self._scratch else ""
        if overfull and reply.status in ("ok", "error"):  # the folder goes with the worker
            reply.status, reply.value, reply.message = "error", None, f"ScratchLimitExceeded: {overfull}"
            reply.error = {"type": "ScratchLimitExceeded", "message": overfull, "traceback": ""}
        if overfull or status not in STATUSES or status == "timeout" or message.get("recycle"):
            self.close()  # the process may be in any state: the next request gets a fresh one
        return reply








__all__ = ["Worker"]
