"""The worker's CPU-time backstop (:class:`CpuGuard`) and the functions it is armed with
(:class:`Tools`), captured before the submission is imported.

Limits that decide scores are counted in game calls (:mod:`grader.run.tracing`); time only stops
code that stops calling the game. It is CPU time of the worker, never the wall clock (the
parent keeps the wall clock for its last-resort kill, :mod:`grader.sandbox.watch`).
"""

from __future__ import annotations

try:
    import resource
except ImportError:  # Windows: only the portable worker (grader.sandbox.portable) runs there
    resource = None  # type: ignore[assignment]
import signal
from dataclasses import dataclass
from typing import Any, Callable


# The process's profiling CPU clock (Linux: MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_PROF)), what
# RLIMIT_CPU and ITIMER_PROF count; and the headroom where it cannot be read.
PROF_CLOCK = -8
CLOCK_DRIFT = 0.10


def prof_clock_reader(clock_gettime: Callable[[int], float]) -> Callable[[], float] | None:
    """A reader of :data:`PROF_CLOCK` made of ``clock_gettime`` (captured before the import),
    or None where this system has no such clock."""
    try:
        clock_gettime(PROF_CLOCK)
    except (OSError, ValueError, OverflowError):
        return None
    return lambda: clock_gettime(PROF_CLOCK)


class WorkerTimeout(BaseException):
    """Raised in the student's code at its time limit. A BaseException: ``except Exception``
    does not catch it (timeout_decorator's own TimeoutError is an AssertionError, which would)."""


# --- what the worker calls once student code may have run -------------------------------------


@dataclass(frozen=True)
class Tools:
    """Every function the worker calls once the submission is imported, captured before the
    import: a submission that replaces ``random.seed``, ``time.perf_counter`` or a function of
    ``resource`` or ``signal`` at import does not get to run in them (and so before the limits
    of a request are armed)."""

    seed: Callable[..., Any]
    perf_counter: Callable[[], float]
    getrusage: Callable[[int], Any]
    getrlimit: Callable[[int], tuple[int, int]]
    setrlimit: Callable[[int, tuple[int, int]], None]
    setitimer: Callable[..., Any]
    set_handler: Callable[..., Any]  # _signal.signal: handlers SIG_DFL/SIG_IGN as plain ints
    send: Callable[[dict[str, Any]], None]
    receive: Callable[[], Any]
    exit: Callable[[int], Any]
    raise_signal: Callable[[int], Any] | None = None  # signal.raise_signal (None: portable)
    prof_clock: Callable[[], float] | None = None  # the kernel's clock for RLIMIT_CPU (below)

    def cpu(self) -> float:
        usage = self.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    def enforced_cpu(self) -> float:
        """The process's CPU time as the kernel holds ``RLIMIT_CPU`` against it: its profiling
        clock (user and system time as sampled at each tick), which ran 1.5-8% ahead of
        ``getrusage``'s (scaled to the scheduler's exact count) on a loaded machine (8% here
        over 1.5 s of spinning; behind it for a process that mostly sleeps): a limit set on
        ``getrusage`` time killed a correct ``min_value`` after ~250 s of honest CPU in one
        worker. The larger of the two; where the clock cannot be read, ``getrusage``'s time
        with 10% more as headroom."""
        if self.prof_clock is not None:
            try:
                return max(self.prof_clock(), self.cpu())
            except OSError:
                pass
        return self.cpu() * (1 + CLOCK_DRIFT)

    def allow_cpu(self, seconds: float) -> None:
        """A soft CPU limit ``seconds`` from now, on the clock the kernel enforces it on
        (:meth:`enforced_cpu`): SIGXCPU (which ends the process) past it. Only code that does
        not return to Python for that long meets it (a C loop)."""
        _, hard = self.getrlimit(resource.RLIMIT_CPU)
        wanted = int(self.enforced_cpu() + seconds) + 1
        if hard != resource.RLIM_INFINITY:
            wanted = min(wanted, hard)
        self.setrlimit(resource.RLIMIT_CPU, (wanted, hard))


class CpuGuard:
    """The CPU-time backstop of one call (:mod:`grader.sandbox.client` has the whole rule).

    A profiling timer (``ITIMER_PROF``: this process's CPU time, not the wall clock) ticks four
    times a ``window``. At each tick the handler looks at ``progress()``: when it has not moved
    for four ticks (a whole window of CPU time without a game call) or the call has used
    ``most`` CPU seconds in all, it raises :class:`WorkerTimeout`. Each tick also moves the soft
    ``RLIMIT_CPU`` to a window (and ``margin``) ahead, so code that never returns to Python is
    ended by SIGXCPU. A tick after the time-out, the call still running, means the code caught
    it and went on: the process ends with SIGXCPU then and there (a quarter window later, not
    the limit's second or two). Armed with captured functions only (:class:`Tools`).
    """

    TICKS = 4

    def __init__(self, tools: Tools, margin: float) -> None:
        self.tools, self.margin = tools, margin
        self.reason = ""
        self._progress: Callable[[], int] = lambda: 0
        self._window = self._most = self._start = 0.0
        self._last: int | None = None
        self._idle = 0
        self._raised = False  # the call's time-out was raised (a later tick means it was caught)
        # Called (with the reason) instead of raising, when set: a call whose outcome is already
        # decided (a budget stop) answers from here, without waiting for code that swallows the
        # time-out; it does not return.
        self.settled: Callable[[str], None] | None = None
        self._announce: Callable[[], None] | None = None

    def _tick(self, signum: int, frame: Any) -> None:
        if self._window <= 0:
            if self._raised:  # a tick after the time-out: the code caught it and still runs
                self._end_process()
            return
        announce, self._announce = self._announce, None
        if announce is not None:
            announce()
        used = self.tools.cpu() - self._start
        now = max(self._progress(), 0)  # -1 (the trace not made yet) is no call either
        self._idle = self._idle + 1 if now == self._last else 0
        self._last = now
        if self._idle >= self.TICKS:  # first: when both hold, the more telling reason
            self.reason = "idle"
        elif used > self._most:
            self.reason = "most"
        else:
            self.tools.allow_cpu(self._window + self.margin)
            return
        self._window = 0.0  # one time-out a call; the code may catch it and go on: "late"
        self.tools.allow_cpu(self.margin)  # code that swallows it meets SIGXCPU soon after
        if self.settled is not None:
            self.settled(self.reason)
        self._raised = True
        raise WorkerTimeout(self.reason)

    def _end_process(self) -> None:
        """End the process as the soft CPU limit would (SIGXCPU), without waiting the second or
        two the limit's whole-second granularity leaves: the call's outcome (a time-out the code
        did not stop at) is already decided, and each such test would otherwise cost that much
        more CPU. The submission may have set SIGXCPU's handler: the default is put back first."""
        if self.tools.raise_signal is None:
            return
        # SIG_DFL as the plain 0: _signal.signal (the worker's set_handler) knows no other, and
        # the signal module's name is the submission's to rebind
        self.tools.set_handler(signal.SIGXCPU, 0)
        self.tools.raise_signal(signal.SIGXCPU)

    def arm(self, window: float, most: float, progress: Callable[[], int],
            settled: Callable[[str], None] | None = None,
            announce: Callable[[], None] | None = None) -> None:
        """``announce``: called once, at the call's first tick (a quarter window of CPU in:
        a batch's call that runs that long says which it is; a quick one never pays it)."""
        # counted from the call's start: code that never calls the game is stopped a window
        # in, not a tick later
        self.reason, self._progress, self._last, self._idle = "", progress, 0, 0
        self._raised = False
        self.settled, self._announce = settled, announce
        self._window, self._most = window, most
        self._start = self.tools.cpu()
        self.tools.set_handler(signal.SIGPROF, self._tick)
        self.tools.allow_cpu(window + self.margin)
        tick = max(window / self.TICKS, 0.01)
        self.tools.setitimer(signal.ITIMER_PROF, tick, tick)

    def disarm(self) -> None:
        """Stop the timer and lift the call's soft CPU limit (the worker's own work after the
        call, a long trace's ids, must not meet it; the parent's limits still hold)."""
        self._window, self.settled = 0.0, None
        self.tools.setitimer(signal.ITIMER_PROF, 0)
        self._raised = False
        _, hard = self.tools.getrlimit(resource.RLIMIT_CPU)
        self.tools.setrlimit(resource.RLIMIT_CPU, (hard, hard))

    def used(self) -> float:
        return self.tools.cpu() - self._start
