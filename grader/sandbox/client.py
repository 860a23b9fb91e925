"""Run the student's ``search.py`` in a worker process, never in the grader's.

:class:`Worker` starts ``python -m grader.sandbox.worker`` (:mod:`grader.sandbox.worker`) in a session of its
own and talks to it over a private socket (JSON lines, one message a line, never stdout); the
worker's stdout and stderr are pipes the parent drains and caps. One worker serves many
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

Values cross as JSON: numbers, strings, ``None``, lists as themselves; NaN and infinities,
tuples, dicts and every other object are tagged (:func:`encode_value`, :func:`decode_value`);
objects the grader does not know arrive as an :class:`OpaqueValue` (type name and ``repr``),
which equals nothing but an identical :class:`OpaqueValue`.
"""

from __future__ import annotations

import json
import math
import os
import pwd
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from grader.errors import GraderError, SubmissionError
from grader.paths import REPO_ROOT

MiB = 1024 * 1024

STATUSES = (
    "ok",  # the function returned in time: value + trace
    "error",  # it raised (error: type, message, traceback of the submission's frames)
    "timeout",  # it passed the time limit (interrupted, or caught the time-out and returned late)
    "killed_timeout",  # it ignored the time-out: the process group was killed at time + margin
    "crashed",  # the worker died (os._exit, a signal, the memory or CPU limit, ...)
    "missing_function",  # search.py has no function of the name the algorithm calls
    "import_error",  # search.py could not be imported (reported on every request)
)

ERROR_KEYS = ("type", "message", "traceback")
WORKER_USER_ENV = "GRADER_WORKER_USER"
LANDLOCK_ENV = "GRADER_LANDLOCK"  # "0": do not confine the worker with Landlock
MAX_MESSAGE_BYTES = 64 * MiB  # a longer reply is a broken (or forged) one
MAX_TRACE = 1_000_000  # ids of each trace list sent back (all of tic-tac-toe: 549,945)


@dataclass(frozen=True)
class Limits:
    """What one worker may use. Times in seconds, sizes in bytes."""

    time: float = 2.0  # per-call time limit when ``run`` is given none
    kill_margin: float = 1.0  # the process group is killed at time + kill_margin (wall clock)
    setup_time: float = 10.0  # the worker's own work: starting, building a game, replying
    import_time: float = 5.0  # importing search.py (its top-level code)
    memory: int = 512 * MiB  # RLIMIT_AS (Gradescope's container has 768 MB in all)
    cpu_time: int = 300  # RLIMIT_CPU over the worker's life (a fresh worker is started before
    #                      a request could cross it); each call also gets a soft limit
    processes: int = 1  # RLIMIT_NPROC: 1 = no fork, no threads (unless the worker runs as root)
    file_size: int = 1 * MiB  # RLIMIT_FSIZE: a write past it fails with EFBIG
    open_files: int = 64  # RLIMIT_NOFILE
    output: int = 10_000  # bytes of stdout, and of stderr, kept per request
    flood: int = 10 * MiB  # a call printing more (stdout + stderr, all ways) fails

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"expected limit {item.name!r} to be a number, got: {value!r}")
            if not (value > 0 and math.isfinite(value)):
                raise ValueError(f"expected limit {item.name!r} to be positive, got: {value!r}")


@dataclass(frozen=True)
class OpaqueValue:
    """A value the grader cannot carry as data: its type's name and its (truncated) ``repr``."""

    type: str
    repr: str

    def __str__(self) -> str:
        return self.repr


@dataclass
class WorkerReply:
    """What one :meth:`Worker.run` produced. Only plain data: no student object ever gets here.

    ``status`` is one of :data:`STATUSES`. ``value`` is decoded (:func:`decode_value`) and set
    only for ``ok``. ``generated`` / ``evaluated`` are the trace's ids (for ``error`` and
    ``timeout``: what was recorded before the failure). ``error`` is ``{"type", "message",
    "traceback"}`` (the traceback keeps only the submission's frames) or None. ``message`` is one
    lowercase line saying what happened, for every status but ``ok``.
    """

    status: str
    value: Any = None
    generated: list[str] = field(default_factory=list)
    evaluated: list[str] = field(default_factory=list)
    error: dict[str, str] | None = None
    stdout: str = ""
    stderr: str = ""
    elapsed: float | None = None  # seconds in the student's function (None: not called)
    function: str | None = None  # the stub the algorithm called (``max_value``, ...)
    algorithm: str = ""
    time_limit: float = 0.0
    message: str = ""
    trace_truncated: bool = False  # a list passed MAX_TRACE ids and was cut

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the value encoded as :func:`encode_value` does."""
        data = asdict(self)
        data["value"] = encode_value(self.value)
        return data


# --- values across the channel --------------------------------------------------------------

FLOAT_TAG, TUPLE_TAG, DICT_TAG, OBJECT_TAG = "$float", "$tuple", "$dict", "$object"
MAX_ITEMS = 10_000  # elements of one value
MAX_DEPTH = 32
MAX_REPR = 200
MAX_INT_BITS = 10_000


def _float(value: float) -> Any:
    if math.isfinite(value):
        return value
    return {FLOAT_TAG: "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def _opaque(kind: type, text: str) -> dict[str, str]:
    name = getattr(kind, "__qualname__", None)
    module = getattr(kind, "__module__", None)
    name = name if isinstance(name, str) else "?"
    if isinstance(module, str) and module not in ("builtins", "search"):
        name = f"{module}.{name}"
    return {OBJECT_TAG: name, "repr": text}


def encode_value(value: Any, safe_repr: Any = None) -> Any:
    """``value`` as JSON-safe data.

    Subclasses of ``int``, ``float``, ``str``, ``tuple``, ``list`` and ``dict`` are read through
    the base type (an overridden ``__eq__`` or ``__iter__`` is never called); anything else
    becomes ``{"$object": type name, "repr": ...}``, its ``repr`` taken by ``safe_repr`` (the
    worker passes a time-limited one). Sizes are bounded (MAX_ITEMS, MAX_DEPTH).
    """
    budget = [MAX_ITEMS]
    safe_repr = safe_repr or _plain_repr

    def encode(item: Any, depth: int) -> Any:
        budget[0] -= 1
        kind = type(item)  # type(), unlike isinstance, cannot be fooled by a __class__ property
        if budget[0] < 0 or depth > MAX_DEPTH:
            return _opaque(kind, "<value too large to show>")
        try:
            if item is None or kind is bool:
                return item
            if issubclass(kind, int):
                number = int.__int__(item)
                if number.bit_length() > MAX_INT_BITS:
                    return _opaque(kind, f"<int of {number.bit_length()} bits>")
                return number
            if issubclass(kind, float):
                return _float(float.__float__(item))
            if issubclass(kind, str):
                return str.__str__(item)
            if issubclass(kind, tuple):
                return {TUPLE_TAG: [encode(x, depth + 1) for x in tuple.__iter__(item)]}
            if issubclass(kind, list):
                return [encode(x, depth + 1) for x in list.__iter__(item)]
            if issubclass(kind, dict):
                pairs = dict.items(item)
                return {DICT_TAG: [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in pairs]}
        except (TypeError, ValueError, RuntimeError):
            pass
        return _opaque(kind, safe_repr(item))

    return encode(value, 0)


def _plain_repr(item: Any) -> str:
    try:
        text = repr(item)
        text = str.__str__(text) if isinstance(text, str) else object.__repr__(item)
    except Exception as error:  # noqa: BLE001 - a broken __repr__: the value's problem
        text = f"<{type(item).__name__} object; repr() raised {type(error).__name__}>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


def decode_value(data: Any) -> Any:
    """The inverse of :func:`encode_value`: tuples, NaN and infinities come back as
    themselves; unknown objects as :class:`OpaqueValue`."""
    if isinstance(data, list):
        return [decode_value(item) for item in data]
    if isinstance(data, dict):
        if FLOAT_TAG in data:
            return float(data[FLOAT_TAG])
        if TUPLE_TAG in data:
            return tuple(decode_value(item) for item in data[TUPLE_TAG])
        if DICT_TAG in data:
            pairs = [(decode_value(k), decode_value(v)) for k, v in data[DICT_TAG]]
            try:
                return dict(pairs)
            except TypeError:  # an unhashable key (a list): keep the pairs
                return OpaqueValue("dict", repr(pairs))
        if OBJECT_TAG in data:
            return OpaqueValue(str(data[OBJECT_TAG]), str(data.get("repr", "")))
    return data


# --- output -------------------------------------------------------------------------------


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

    def take(self) -> str:
        """The text kept so far (with a note of what was dropped); empties the buffer."""
        text = self.data.decode("utf-8", "replace")
        if self.dropped:
            text += f"\n[... {self.dropped} more bytes not shown]\n"
        self.data = bytearray()
        self.dropped = 0
        return text


def _join_output(first: str, second: str, limit: int) -> str:
    text = first + second
    if len(text) > limit + 200:  # each side is capped already; this bounds the pair
        text = text[:limit] + f"\n[... {len(text) - limit} more characters not shown]\n"
    return text


# --- users ----------------------------------------------------------------------------------


def resolve_user(user: str | int | None) -> tuple[int, int] | None:
    """(uid, gid) the worker drops to, or None (no drop: the grader is not root, or ``user``
    is root). As root the default is ``$GRADER_WORKER_USER``, else ``nobody``."""
    if os.geteuid() != 0:
        if user is None or _lookup_user(user).pw_uid == os.geteuid():
            return None
        raise GraderError(
            f"running the worker as user {user!r} needs root; the grader runs as uid {os.geteuid()}"
        )
    if user is None:
        user = os.environ.get(WORKER_USER_ENV) or "nobody"
    entry = _lookup_user(user)
    if entry.pw_uid == 0:
        return None
    return entry.pw_uid, entry.pw_gid


def _lookup_user(user: str | int) -> pwd.struct_passwd:
    try:
        return pwd.getpwuid(user) if isinstance(user, int) else pwd.getpwnam(user)
    except KeyError:
        raise GraderError(
            f"no user {user!r} to run student code as; create one (useradd --system) "
            f"or set {WORKER_USER_ENV}"
        ) from None


# --- the parent's side ----------------------------------------------------------------------


class _Deadline(Exception):
    """The worker did not answer in time."""


class _Closed(Exception):
    """The channel closed (no args: EOF) or carried something that is not a message."""


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = {
            "SIGKILL": " (the memory or CPU limit, or the system ran out of memory?)",
            "SIGSEGV": " (a crash in C code: recursion too deep?)",
            "SIGXCPU": " (the CPU time limit)",
            "SIGXFSZ": " (the file size limit)",
            "SIGABRT": " (aborted: out of memory?)",
        }.get(name, "")
        return f"was killed by {name}{why}"
    hint = " (did the code call os._exit()?)" if code == 0 else ""
    return f"exited with code {code} before replying{hint}"


def _mcts_dict(mcts: Any) -> dict[str, Any] | None:
    names = ("iterations", "seed", "c")
    if mcts is None:
        return None
    if isinstance(mcts, Mapping):
        source = dict(mcts)
    else:
        source = {name: getattr(mcts, name) for name in names if hasattr(mcts, name)}
    return {name: source[name] for name in names if source.get(name) is not None}


class Worker:
    """The student's ``search.py`` in a worker process. Use as a context manager.

    ``submission`` is a ``search.py``, or a folder or zip holding one (copied into a scratch
    folder; only that file). :meth:`run` starts the worker when needed. A missing or
    unimportable submission is an ``import_error`` reply on every request, never an exception;
    failures of the grader's own side (the worker cannot start, a case does not build in it)
    raise :class:`~grader.errors.GraderError`.
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
        self._proc, self._sock = None, None
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
                    key: int(_number(confinement.get(key), -1)) for key in ("uid", "landlock")
                }
        except (_Deadline, _Closed) as error:
            detail = self._kill_and_drain(error)
            stderr = self._take_output()[1]
            self.close()
            raise GraderError(
                f"the sandbox worker did not start: it {detail}; stderr:\n{stderr}"
            ) from None
        try:
            deadline = time.monotonic() + self.limits.import_time + self.limits.kill_margin
            ready = self._expect("ready", deadline)
        except (_Deadline, _Closed) as error:
            detail = self._kill_and_drain(error)
            if isinstance(error, _Deadline):
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
        self._cpu = _number(ready.get("cpu"), 0.0)
        stdout, stderr = self._take_output()
        stdout = _join_output(str(ready.get("stdout", "")), stdout, self.limits.output)
        stderr = _join_output(str(ready.get("stderr", "")), stderr, self.limits.output)
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
        from grader.sandbox.submission import locate_submission

        scratch = Path(tempfile.mkdtemp(prefix="grader-worker-"))
        try:
            source = locate_submission(self.submission, scratch / "unzipped")
            target = scratch / "search.py"
            shutil.copyfile(source, target)
            shutil.rmtree(scratch / "unzipped", ignore_errors=True)
            os.chmod(target, 0o600)
            os.chmod(scratch, 0o700)
            if self._ids is not None:  # the worker's user owns its scratch folder, and no more
                os.chown(target, *self._ids)
                os.chown(scratch, *self._ids)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        env = {  # nothing of the grader's environment: no tokens, no paths to answers
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONPATH": str(REPO_ROOT),  # where grader/ is
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",  # set and dict-of-str orders are the same in every run
            "PYTHONNOUSERSITE": "1",
            "PYTHONIOENCODING": "utf-8",
            "HOME": str(scratch),
            "TMPDIR": str(scratch),
        }
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
            )
        except BaseException:
            parent_end.close()
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        finally:
            child_end.close()
        self.starts += 1
        self._proc, self._sock, self._inbox = proc, parent_end, bytearray()
        self._streams = {
            "stdout": CappedBuffer(self.limits.output),
            "stderr": CappedBuffer(self.limits.output),
        }
        self._pipes = {
            proc.stdout.fileno(): self._streams["stdout"],
            proc.stderr.fileno(): self._streams["stderr"],
        }
        self._finalizer = weakref.finalize(self, _kill, proc, scratch)
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
                raise _Closed(f"sent {message.get('event')!r} where {event!r} was due")
            return message

    def _receive(self, deadline: float) -> dict[str, Any]:
        """The next message, draining stdout/stderr meanwhile. Raises _Deadline or _Closed."""
        assert self._sock is not None
        sock = self._sock.fileno()
        scanned = 0  # bytes of the inbox known to hold no newline
        while True:
            line_end = self._inbox.find(b"\n", scanned)
            scanned = len(self._inbox)
            if line_end >= 0:
                line = bytes(self._inbox[:line_end])
                del self._inbox[: line_end + 1]
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if not isinstance(message, dict):
                    raise _Closed("wrote something unreadable to the grader's private channel")
                return message
            if len(self._inbox) > MAX_MESSAGE_BYTES:
                raise _Closed("wrote more than the grader reads to its private channel")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Deadline()
            readable, _, _ = select.select([sock, *self._pipes], [], [], remaining)
            for fd in readable:
                chunk = os.read(fd, 1 << 20)
                if fd == sock:
                    if not chunk:
                        raise _Closed()
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
        if isinstance(error, _Closed) and not error.args:  # EOF: the worker is probably exiting
            deadline = time.monotonic() + 1.0
            while not (exited := _has_exited(proc)) and time.monotonic() < deadline:
                time.sleep(0.005)
        _killpg(proc)  # before reaping: while the leader is a zombie, the group id stays ours
        code = proc.wait()
        if exited:
            detail = _describe_exit(code)
        elif isinstance(error, _Closed):
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
    ) -> WorkerReply:
        """Run ``algorithm``'s function of the submission on ``case`` (its public dict, no
        answers; a Case is turned into its ``public_dict()``).

        ``mcts``: an object or mapping with ``iterations``, ``seed``, ``c`` (default: the case's).
        ``time_limit``: seconds for the call (default ``limits.time``). Never raises for anything
        the student's code does; raises :class:`GraderError` when the grader's side fails.
        """
        time_limit = self.limits.time if time_limit is None else float(time_limit)
        if not (time_limit > 0 and math.isfinite(time_limit)):
            raise ValueError(f"expected time_limit to be positive, got: {time_limit!r}")
        if hasattr(case, "public_dict"):
            case = case.public_dict()
        if self._proc is not None and (
            self._proc.poll() is not None  # it died between requests
            or self._cpu + time_limit + self.limits.kill_margin + 2 > self.limits.cpu_time
        ):
            self.close()  # start afresh
        self.start()
        if self._import_failure is not None:
            failure = self._import_failure
            return WorkerReply(
                failure.status,
                error=dict(failure.error or {}),
                stdout=failure.stdout,
                stderr=failure.stderr,
                algorithm=algorithm,
                time_limit=time_limit,
                message=failure.message,
            )
        self._seq += 1
        request = {
            "seq": self._seq,
            "case": case,
            "algorithm": algorithm,
            "mcts": _mcts_dict(mcts),
            "time_limit": time_limit,
        }
        reply = self._exchange(request, time_limit)
        reply.algorithm, reply.time_limit = algorithm, time_limit
        if self._import_output != ("", ""):
            stdout, stderr = self._import_output
            reply.stdout = _join_output(stdout, reply.stdout, self.limits.output)
            reply.stderr = _join_output(stderr, reply.stderr, self.limits.output)
            self._import_output = ("", "")
        return reply

    def _exchange(self, request: dict[str, Any], time_limit: float) -> WorkerReply:
        seq = request["seq"]
        self._send(request)
        function = None
        try:
            first = self._receive_for(seq, time.monotonic() + self.limits.setup_time)
            if first.get("event") == "reply":  # answered without calling anything
                return self._finish(first, before_student=True)
            if first.get("event") != "started":
                raise _Closed(f"sent {first.get('event')!r} where 'started' was due")
            function = first.get("function")
            deadline = time.monotonic() + time_limit + self.limits.kill_margin
            return self._finish(self._expect("reply", deadline, seq), function)
        except _Deadline:
            self._kill_and_drain(_Deadline())
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
        except _Closed as error:
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
        status = message.get("status")
        if status == "grader_error" and not before_student:
            # Once the student's function has started, the channel is theirs to write on: a
            # "grader error" then is forged (it would hide the student's total), not ours.
            status = "crashed-forged"
        if status == "grader_error":
            error = message.get("error") or {}
            self.close()
            raise GraderError(
                f"the sandbox worker failed: {error.get('message')}\n{error.get('traceback', '')}"
            )
        if status not in STATUSES:
            self.close()
            return WorkerReply(
                "crashed", function=function, message=f"sent an unknown status {status!r}"
                if status != "crashed-forged" else "sent a forged grader-error reply"
            )
        printed = sum(buffer.total for buffer in self._streams.values())
        printed += int(_number(message.get("printed"), 0))
        stdout, stderr = self._take_output()
        error = message.get("error")
        # Every field is rebuilt as the plain type it should be: the message came from a
        # process the student controls, and nothing of it reaches the grader but data.
        reply = WorkerReply(
            status,
            value=decode_value(message.get("value")) if status == "ok" else None,
            generated=_strings(message.get("generated")),
            evaluated=_strings(message.get("evaluated")),
            error={k: str(error.get(k, "")) for k in ERROR_KEYS}
            if isinstance(error, dict)
            else None,
            stdout=_join_output(str(message.get("stdout", "")), stdout, self.limits.output),
            stderr=_join_output(str(message.get("stderr", "")), stderr, self.limits.output),
            elapsed=_number(message.get("elapsed"), None),
            function=str(message.get("function") or function or "") or None,
            message=str(message.get("message", "")),
            trace_truncated=bool(message.get("trace_truncated")),
        )
        self._cpu = _number(message.get("cpu"), self._cpu)
        if printed > self.limits.flood and status in ("ok", "error"):
            text = (
                f"printed {printed:,} bytes in one call, more than the limit of "
                f"{self.limits.flood:,} (leftover debugging output?)"
            )
            reply.status, reply.value = "error", None
            reply.error = {"type": "OutputLimitExceeded", "message": text, "traceback": ""}
            reply.message = f"OutputLimitExceeded: {text}"
        if status == "timeout" or message.get("recycle"):
            self.close()  # the process may be in any state: the next request gets a fresh one
        return reply


def _number(value: Any, default: Any) -> Any:
    """``value`` as a finite float, else ``default`` (fields of a reply the worker forged)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return default


def _strings(items: Any) -> list[str]:
    return [str(item) for item in items] if isinstance(items, list) else []


def _has_exited(proc: subprocess.Popen) -> bool:
    """True once the worker has exited, without reaping it."""
    if proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _killpg(proc: subprocess.Popen) -> None:
    if proc.returncode is None:  # not reaped yet, so the group id is still the worker's
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _kill(proc: subprocess.Popen, scratch: Path) -> None:
    """Finalizer: kill the worker's process group, reap it, close its pipes, remove scratch."""
    _killpg(proc)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    shutil.rmtree(scratch, ignore_errors=True)


__all__ = [
    "STATUSES",
    "Limits",
    "OpaqueValue",
    "Worker",
    "WorkerReply",
    "decode_value",
    "encode_value",
    "resolve_user",
]
