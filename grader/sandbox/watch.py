"""The parent's own limits on one worker request, from the moment it is sent (:class:`Watch`).

The worker arms its CPU guard itself (:mod:`grader.sandbox.guard`), but it runs the student's
code and may have lost it; the parent does not wait on it. While it waits for a reply it reads
the worker's CPU time from ``/proc/<pid>/stat`` and gives up (kills the process group) when:

* ``cpu``: the worker has used more CPU time than the request allows (and the kill margin);
* ``asleep``: it has been asleep for :data:`ASLEEP` wall seconds in all, counted between
  checks that both saw it asleep (``/proc`` state ``S`` or ``T``: neither running nor waiting
  for a CPU), its CPU time not moving and nothing heard in between (it did not write to the
  parent or read from it, :meth:`Watch.heard`): ``time.sleep``, or a wait for something that
  will not come. In all, not at a stretch: code that sleeps in short bursts with a little CPU
  between them (0.3 s asleep, 10 ms of CPU, again) is asleep almost all the time and met the
  wall-clock limit instead, 20 times later. Code that computes is running or runnable (``R``)
  however loaded the machine, so load never makes it look asleep; the short wait keeps a
  submission that sleeps in every test from costing two seconds a test;
* ``idle``: its CPU time has not moved for ``idle`` wall seconds, whatever its state (a
  process stuck in the kernel; CPU-bound code under any load still gets some CPU in that
  time);
* ``wall``: the last resort, where ``/proc`` cannot be read (not Linux) or a worker is starved.

No score depends on the wall clock but through this last resort.
"""

from __future__ import annotations

import functools
import os
import time

from grader.run.calibration import CALIBRATION_NODES
from grader.run.tracing import Budget
from grader.sandbox.process import Deadline

IDLE_CPU = 0.02  # CPU seconds: less than this in the idle time is "not running"
MIN_IDLE = 2.0  # wall seconds without CPU use before the parent kills a waiting worker
ASLEEP = 0.5  # wall seconds asleep in all (state S or T, no CPU used) before it kills it
ASLEEP_CHECKS = 4  # and at least this many pairs of checks saw it asleep (a starved parent
#                    checks less)
SLEEPING_STATES = frozenset("ST")  # /proc/<pid>/stat states of a process that waits by choice
CALL_MULTIPLE = 20  # CPU allowed a budgeted game call: this many times a calibration call's
NO_BUDGET_WINDOWS = 10  # a call without a budget may use this many windows of CPU in all


def cpu_limits(calibration: float | None, time_limit: float, time_multiple: float = 0.0,
               budget: Budget | None = None) -> tuple[float, float]:
    """(window, most) of a call, in CPU seconds, for a worker whose calibration workload took
    ``calibration`` CPU seconds (:mod:`grader.run.calibration`).

    ``window``: the most CPU time without a game call, the larger of ``time_limit`` and
    ``time_multiple`` times the calibration. ``most``: the call's CPU time in all, the window
    plus :data:`CALL_MULTIPLE` calibration calls' time for each budgeted call (without a
    budget, :data:`NO_BUDGET_WINDOWS` windows). Generous on purpose: the budget, counted in
    calls, is what stops searches that call the game; time stops only code that does not.
    """
    calibration = calibration if calibration is not None else 0.05
    window = max(time_limit, time_multiple * calibration)
    if budget is None:
        return window, NO_BUDGET_WINDOWS * window
    per_call = CALL_MULTIPLE * calibration / CALIBRATION_NODES
    return window, window + per_call * (budget.result + budget.evaluated)


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid``; None where that cannot be read."""
    sample = process_sample(pid)
    return None if sample is None else sample[0]


def process_sample(pid: int) -> tuple[float, str] | None:
    """(user + system CPU seconds, state letter) of process ``pid``; None where that cannot be
    read (no ``/proc``: not Linux; or the process is gone)."""
    try:
        # os.open and os.read: no file object (half the cost of open(); read three times a
        # request); the file is a few hundred bytes, read whole
        stat = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        try:
            text = chunk = os.read(stat, _STAT_CHUNK)
            while len(chunk) == _STAT_CHUNK:
                chunk = os.read(stat, _STAT_CHUNK)
                text += chunk
        finally:
            os.close(stat)
        fields = text[text.rindex(b")") + 2 :].split()
        cpu = (int(fields[11]) + int(fields[12])) / _clock_ticks()
        return cpu, fields[0].decode("ascii", "replace")
    except (OSError, ValueError, IndexError, AttributeError):  # no /proc, no sysconf: Windows
        return None


_STAT_CHUNK = 4096


@functools.cache  # a constant of the system (a raise is not kept: Windows raises each time)
def _clock_ticks() -> int:
    """The clock ticks a second of ``/proc``'s CPU times (raises as ``os.sysconf`` does)."""
    return os.sysconf("SC_CLK_TCK")


class Watch:
    """Limits of one wait: ``cpu`` seconds of the worker's CPU, ``idle`` wall seconds without
    CPU use, ``wall`` seconds in all, and with ``asleep`` set, :data:`ASLEEP` seconds asleep
    (see the module docstring). Counted from creation."""

    def __init__(self, pid: int | None, cpu: float, idle: float, wall: float,
                 asleep: bool = False, cpu_start: float | None = None) -> None:
        """``cpu_start``: the worker's CPU seconds read just before (the caller's own reading,
        one ``/proc`` read fewer a request); else read here."""
        self.pid, self.cpu, self.idle, self.asleep = pid, cpu, idle, asleep
        self.started = time.monotonic()
        self.wall_deadline = self.started + wall
        if cpu_start is None and pid is not None:
            cpu_start = process_cpu(pid)
        self.cpu_start = cpu_start
        self._last_cpu, self._last_change = self.cpu_start, self.started
        self._sample_cpu = self.cpu_start
        self._asleep_total = 0.0  # wall seconds between two checks that both saw it asleep
        self._asleep_checks = 0  # such pairs of checks
        self._asleep_at: float | None = None  # the last check, when it saw the worker asleep
        self._heard = False  # since the last check
        self.reason = ""
        self.cpu_used = 0.0

    def restart(self, cpu: float, wall: float, cpu_start: float | None = None) -> None:
        """Count the limits from now again, ``cpu`` and ``wall`` seconds (a batch's call that
        runs a while: it gets the limits a request of its own had); ``cpu_start`` as
        :meth:`__init__` takes it."""
        self.__init__(self.pid, cpu, self.idle, wall, self.asleep,  # type: ignore[misc]
                      cpu_start)

    def next_check(self) -> float:
        """The monotonic time by which :meth:`check` should run again."""
        return min(self.wall_deadline, time.monotonic() + 0.1)

    def check(self) -> None:
        """Raise :class:`Deadline` (``reason`` set) when a limit is passed."""
        now = time.monotonic()
        if now >= self.wall_deadline:
            self._stop("wall")
        if self.cpu_start is None or self.pid is None:
            return
        sample = process_sample(self.pid)
        if sample is None:
            return  # gone: the next read of the channel says how
        cpu, state = sample
        self.cpu_used = cpu - self.cpu_start
        if self.cpu_used > self.cpu:
            self._stop("cpu")
        if self._last_cpu is None or cpu - self._last_cpu >= IDLE_CPU:
            self._last_cpu, self._last_change = cpu, now
        elif now - self._last_change > self.idle:
            self._stop("idle")
        if self.asleep:
            self._check_asleep(now, cpu, state)

    def heard(self) -> None:
        """The worker wrote to the parent or read from it: whatever its state at the checks
        (blocked on a full socket while the parent reads a long reply), it was not asleep since
        the last check."""
        self._heard = True

    def _check_asleep(self, now: float, cpu: float, state: str) -> None:
        moved, self._sample_cpu = cpu != self._sample_cpu, cpu
        asleep = not moved and not self._heard and state in SLEEPING_STATES
        if asleep and self._asleep_at is not None:
            self._asleep_total += now - self._asleep_at
            self._asleep_checks += 1
        self._asleep_at, self._heard = (now if asleep else None), False
        if self._asleep_checks >= ASLEEP_CHECKS and self._asleep_total >= ASLEEP:
            self._stop("asleep")

    def _stop(self, reason: str) -> None:
        self.reason = reason
        raise Deadline(reason)

    def elapsed(self) -> float:
        return time.monotonic() - self.started


def next_wake(deadline: float, watch: Watch | None) -> float:
    """The monotonic time a wait may last until: ``deadline``, or sooner when ``watch`` must
    check its limits again. Raises :class:`Deadline` once ``deadline`` or a limit has passed."""
    wake = deadline
    if watch is not None:
        watch.check()
        wake = min(wake, watch.next_check())
    if time.monotonic() >= deadline:
        raise Deadline()
    return wake


def kill_message(watch: Watch, window: float) -> str:
    """What a call killed by the parent did, by the limit it passed."""
    if watch.reason == "asleep":
        return (f"slept for {ASLEEP:.1f} s without using CPU time (time.sleep, or waiting for "
                "something that does not come?); the process was killed")
    if watch.reason == "idle":
        return (f"used no CPU time for {watch.idle:.1f} s (sleeping, or waiting for "
                "something that does not come?); the process was killed")
    if watch.reason == "cpu":
        return (f"used {watch.cpu:.2f} s of CPU time and ignored the time-out (a limit of "
                f"{window:.2f} s without a game call); the process was killed")
    return (f"did not finish within {watch.elapsed():.1f} s and ignored the time-out; "
            "the process was killed")
