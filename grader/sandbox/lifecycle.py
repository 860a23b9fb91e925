"""A worker process's life: starting it, importing the submission, ending it.

:class:`WorkerProcess` is the half of :class:`~grader.sandbox.client.Worker` that owns the
process: it copies the submission into a scratch folder, starts ``python -m
grader.sandbox.worker`` in a session of its own (confined by :func:`~grader.sandbox.private.isolator`
before the interpreter starts), waits for the import under its own limits, and kills the whole
process group and removes the scratch folder at the end. What a request is, and every defence,
is :mod:`grader.sandbox.client`'s (its docstring lists them, innermost first).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import weakref
from dataclasses import asdict
from pathlib import Path

from grader.errors import GraderError, SubmissionError
from grader.sandbox.allowance import CpuAccount
from grader.sandbox.capture import join_output
from grader.sandbox.channel import Channel
from grader.sandbox.confine import least_killable
from grader.sandbox.limits import LANDLOCK_ENV, SECCOMP_ENV, Limits, resolve_user
from grader.sandbox.notebook import ConvertedNotebook
from grader.sandbox.private import isolator
from grader.sandbox.process import (
    Closed,
    Deadline,
    describe_exit,
    has_exited,
    kill_and_clean,
    kill_group,
    prepare_scratch,
    remove_tree,
    worker_environment,
)
from grader.sandbox.protocol import WorkerReply, error_fields, finite_number
from grader.sandbox.watch import MIN_IDLE, Watch, process_cpu, process_sample

# the pid whose oom_score_adj was lowered (confine.least_killable); two grading threads
# spawning at once may both lower it: the same value written twice
_PROTECTED = [0]
RESTART_LIMIT = "RestartLimitExceeded"  # the error of a test no worker was started again for


def unreadable_stdlib_message(ids: tuple[int, int] | None, problem: str) -> str:
    """The staff's message when the worker's user cannot read the standard library: every
    honest ``import logging`` would fail as if the module did not exist (issue 40)."""
    who = f"uid {ids[0]}" if ids else "its user"
    return (f"the sandbox worker ({who}) cannot read the interpreter's standard library "
            f"({problem[:500]}), so student code could not import it (\"No module named "
            f"'logging'\"): nothing was graded. Install Python where every user can read it "
            f"(a folder above {sys.base_prefix} is closed to others), or run the grader as root "
            "with CAP_SYS_ADMIN, whose worker mount namespace exposes the interpreter "
            "(docs/security.md)")


class WorkerProcess:
    """The worker process of one submission, started when needed and ended by :meth:`close`
    (or a context manager). A missing or unimportable submission is kept as an
    ``import_error`` reply (``_import_failure``), never raised; a worker that cannot start is
    the grader's own failure (:class:`~grader.errors.GraderError`)."""

    # (uid, gid) the worker drops to, or None: resolve_user (a subclass may run no user drop)
    resolve_ids = staticmethod(resolve_user)

    def __init__(
        self, submission: Path | str, *, limits: Limits | None = None,
        user: str | int | tuple[int, int] | None = None,
        calibration: float | None = None,
    ) -> None:
        """``calibration``: this machine's :func:`~grader.run.calibration.calibration_seconds`,
        when the grader has measured it already (``grader batch``: once for all submissions);
        the worker then uses it instead of timing the workload again. None: each worker times
        it when it starts, before any student code runs. Either way it never comes from code
        the submission could have reached."""
        self.submission = Path(submission)
        self.given_calibration = (None if calibration is None
                                  else min(max(float(calibration), 1e-4), 10.0))
        self.limits = limits or Limits()
        self.user = user
        self.starts = 0  # processes started so far
        self.startup_seconds: float | None = None  # the last start, until the import was done
        self._ids = self.resolve_ids(user)
        self._proc: subprocess.Popen | None = None
        self._channel: Channel | None = None
        self._scratch: Path | None = None
        self._seq = 0
        self._cpu = 0.0
        self._ready_cpu = 0.0  # the last process's CPU when its import was done (its start)
        self._import_failure: WorkerReply | None = None
        self._import_output = ("", "")
        self._finalizer: weakref.finalize | None = None
        # how the last worker was confined: {"uid": its uid, "landlock": ABI applied, 0 = none}
        self.confinement: dict[str, int] = {}
        # CPU seconds of the calibration workload, timed by the last worker before any student
        # code ran (None: not started)
        self.calibration: float | None = None
        self.notebook: ConvertedNotebook | None = None  # a notebook submission, once converted
        # the submission's CPU over all its calls and starts (grader.sandbox.allowance)
        self.account = CpuAccount(self.limits.submission_cpu, self.limits.hiding_cpu)
        self._after_timeout = False  # the last process ended at a time-out
        # what the import printed goes with the next reply (False: another worker of the same
        # submission shows it; grader.scoring.grade's parallel workers)
        self.show_import_output = True
        self._last_cpu: float | None = None  # the last process's CPU, read as it was ended

    # --- lifecycle ------------------------------------------------------------------------
    def __enter__(self):  # (returns the subclass's type)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The running worker's pid (its process group id too), or None."""
        return self._proc.pid if self._proc is not None else None

    def close(self) -> None:
        """Kill the worker's process group and remove its scratch folder. Idempotent."""
        if self._proc is not None and self._proc.returncode is None:
            self._last_cpu = process_cpu(self._proc.pid)  # before the kill (the allowance)
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
        if self._channel is not None:
            self._channel.close()
        self._proc, self._channel, self._scratch = None, None, None

    @property
    def _streams(self) -> dict:
        return self._channel.streams if self._channel is not None else {}

    def start(self) -> None:
        """Start the worker and import the submission (:meth:`run` does this when needed)."""
        if self._proc is not None or self._import_failure is not None:
            return
        # the bound is the submission's: its account is shared by the workers grading it at
        # once (grade --jobs), so each does not get a bound of its own
        count, spent = self.account.starts, self.account.start_cpu
        if count and spent > self.limits.restart_cpu:
            starts = f"{count} start{'s' if count != 1 else ''}"
            message = (f"the worker running search.py was not started again: its {starts} "
                       f"took {spent:.1f} s of CPU time in all (importing "
                       f"search.py each time), more than the {self.limits.restart_cpu:g} s a "
                       "submission may spend on them; earlier tests ended it (os._exit, a "
                       "crash, a time-out)")
            error = {"type": RESTART_LIMIT, "message": message, "traceback": ""}
            self._import_failure = WorkerReply("error", error=error, message=message)
            return
        started = time.perf_counter()
        try:
            self._spawn()
        except SubmissionError as error:
            self._import_failure = self._import_error("SubmissionError", str(error))
            return
        try:
            importing = self._channel.expect("importing", time.monotonic() + self.limits.setup_time)
            confinement = importing.get("confinement")  # sent before any student code ran
            if isinstance(confinement, dict):
                self.confinement = {
                    key: int(finite_number(confinement.get(key), -1))
                    for key in ("uid", "landlock", "seccomp")
                }
            unreadable = confinement.get("unreadable") if isinstance(confinement, dict) else ""
            if unreadable and isinstance(unreadable, str):  # also before: the grader's word
                self._kill_and_drain(Closed("the standard library is out of its reach"))
                self.close()
                raise GraderError(unreadable_stdlib_message(self._ids, unreadable))
            calibration = finite_number(importing.get("calibration"), 0.05)  # also before
            self.calibration = (min(max(calibration, 1e-4), 10.0) if self.given_calibration
                                is None else self.given_calibration)
        except (Deadline, Closed) as error:
            detail = self._kill_and_drain(error)
            stderr = self._take_output()[1]
            self.close()
            raise GraderError(
                f"the sandbox worker did not start: it {detail}; stderr:\n{stderr}"
            ) from None
        try:
            seconds = self.limits.import_time + self.limits.kill_margin
            watch = Watch(self.pid, seconds, max(MIN_IDLE, seconds), 3 * seconds + MIN_IDLE)
            ready = self._channel.expect("ready", watch.wall_deadline, watch=watch)
        except (Deadline, Closed) as error:
            detail = self._kill_and_drain(error)
            if isinstance(error, Deadline):
                message = (
                    f"importing search.py took longer than {self.limits.import_time:g} s "
                    "and ignored the time-out (a loop at the top level of the file?)"
                    if watch.reason != "idle" else f"importing search.py used no CPU time for "
                    f"{watch.idle:.1f} s (sleeping, or waiting for something?)"
                )
            else:
                message = f"the process importing search.py {detail}"
            self._import_failure = self._import_error("ImportFailed", message, *self._take_output())
            self.close()
            return
        self.startup_seconds = time.perf_counter() - started
        self._cpu = finite_number(ready.get("cpu"), 0.0)
        sample = process_sample(self.pid) if self.pid is not None else None  # the parent's
        #                                  own reading: the worker's word may be forged
        used = min(max(self._cpu, sample[0] if sample else 0.0, 0.0), 1e6)
        self._ready_cpu = used
        self.account.charge_start(used, self._after_timeout)
        self._after_timeout = False
        stdout, stderr = self._take_output()
        stdout = join_output(str(ready.get("stdout", "")), stdout, self.limits.output)
        stderr = join_output(str(ready.get("stderr", "")), stderr, self.limits.output)
        if ready.get("status") != "ok":
            given = ready.get("error")
            error = error_fields(given if isinstance(given, dict) else {})
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
        return WorkerReply("import_error", error=error, stdout=stdout, stderr=stderr, message=message)

    def _spawn(self) -> None:
        if _PROTECTED[0] != os.getpid():  # once a process (a batch's forked pool: each child)
            _PROTECTED[0] = os.getpid()
            least_killable()  # the OOM killer's last choice; the worker makes itself its first
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
        self._proc, self._scratch = proc, scratch
        pipes = {"stdout": proc.stdout.fileno(), "stderr": proc.stderr.fileno()}
        self._channel = Channel(parent_end, pipes, self.limits.output)
        self._finalizer = weakref.finalize(self, kill_and_clean, proc, scratch,
                                           self._ids[0] if self._ids else None)
        self._channel.send(
            {
                "submission": str(target),
                "scratch": str(scratch),
                "ids": list(self._ids) if self._ids else None,
                "limits": asdict(self.limits),
                "landlock": os.environ.get(LANDLOCK_ENV, "1") != "0",
                "seccomp": os.environ.get(SECCOMP_ENV, "1") != "0",
                "calibration": self.given_calibration,
            }
        )

    # --- ending a worker -------------------------------------------------------------
    @staticmethod
    def _has_exited(proc: subprocess.Popen) -> bool:
        return has_exited(proc)  # without reaping it

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        kill_group(proc)  # before reaping: while the leader is a zombie, the group id stays ours

    def _kill_and_drain(self, error: Exception) -> str:
        """Kill the group, collect the remaining output, and say how the worker ended."""
        proc = self._proc
        assert proc is not None
        exited = False
        if isinstance(error, Closed) and not error.args:  # EOF: the worker is probably exiting
            deadline = time.monotonic() + 1.0
            while not (exited := self._has_exited(proc)) and time.monotonic() < deadline:
                time.sleep(0.005)
        self._kill(proc)
        code = proc.wait()
        if exited:
            detail = describe_exit(code)
        elif isinstance(error, Closed):
            detail = str(error.args[0]) if error.args else "closed the grader's private channel"
        else:
            detail = "stopped answering"
        self._channel.drain(0.5)
        return detail

    def _take_output(self) -> tuple[str, str]:
        """fd-level output (os.write, C code, fatal errors) captured so far."""
        return self._channel.take_output() if self._channel is not None else ("", "")


__all__ = ["WorkerProcess"]
