"""A submission's CPU allowance: what all of its calls together may use (:class:`CpuAccount`).

One account a submission (a :class:`~grader.sandbox.client.Worker` keeps it across fresh worker
processes), one rule with two sums:

* **the whole allowance** (``Limits.submission_cpu``): the worker's CPU time over every call and
  every start (the import is the submission's code too). It lies below the platform's time
  budget (:func:`platform_allowance`: half of ``$GRADER_TIME_BUDGET``, the seconds
  ``run_autograder`` and PrairieLearn's ``run.sh`` give the grader), so a submission that spends
  a large share of every call's limits still ends with results the grader wrote: a call that
  would pass the allowance is cut at it, and the calls after it are not run ("your code used the
  submission's whole CPU allowance; the tests it did not reach score 0"), never a staff error
  or, on PrairieLearn, an attempt that does not count;
* **the hiding allowance** (``Limits.hiding_cpu``, 20 CPU s): what calls stopped by the time
  limit cost, each charged at least its window (the CPU time a call may run without calling the
  game) and the fresh worker's start that follows. Once another such time-out could pass it, a
  function (the stub called: ``max_value`` and ``min_value`` apart, so one looping does not get
  the other refused) that was stopped that way twice before is not called again (twice: a
  machine under heavy load may stop honest code once); a function stopped that way less than
  twice is always called (a window is kept in reserve for each time-out it may still have, so
  the windows' sum stays within the allowance, the fresh workers' starts on top, or within two
  windows a function where that is more: 20 windows of over 1 s, a slow machine's). Code that
  keeps calling the game never meets the time limit (its budget, counted in game calls, stops
  it first), so this rule cannot change its score; only code that ran a whole window without a
  game call loses the tests it did not reach (docs/security.md).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

from grader.cases.algorithms import ALGORITHMS

TIME_BUDGET_ENV = "GRADER_TIME_BUDGET"  # the platform's seconds for one grade (run_autograder)
DEFAULT_TIME_BUDGET = 540.0  # run_autograder's default (under Gradescope's 10 minutes)
ALLOWANCE_SHARE = 0.5  # the share of the platform's budget the submission's calls may use
HIDING_CPU = 20.0  # CPU s that time-outs may cost a submission in all
REFUSED_AFTER = 2  # time-outs of a function before it may be refused (one may be the load's)
# The functions graded, each counted apart: an algorithm's stub, minimax's two (max_value and
# min_value: one looping must not get the other refused).
FUNCTIONS = len(ALGORITHMS) + 1

WHOLE = ("your code used the submission's whole CPU allowance ({allowance:g} CPU s, all tests "
         "together); the tests it did not reach score 0")
HIDDEN = ("your code has run {count} time(s) for the whole time limit without calling the game, "
          "{allowance:g} CPU s in all (the most a submission's time-outs may cost); this function "
          "was stopped that way before, so it is not called again: the tests it did not reach "
          "score 0")


def platform_allowance(environ: dict[str, str] | None = None) -> float:
    """CPU seconds a submission may use in all: :data:`ALLOWANCE_SHARE` of the platform's time
    budget (``$GRADER_TIME_BUDGET``, else run_autograder's default 540 s). Half, so that the
    grader's own work, worker starts and a machine that gives the container half a core still
    fit in the budget's wall time."""
    environ = os.environ if environ is None else environ
    try:
        budget = float(environ.get(TIME_BUDGET_ENV, "") or DEFAULT_TIME_BUDGET)
    except ValueError:
        budget = DEFAULT_TIME_BUDGET
    if not 0 < budget < 1e6:
        budget = DEFAULT_TIME_BUDGET
    return round(ALLOWANCE_SHARE * budget, 3)


@dataclass
class CpuAccount:
    """What a submission's calls have used of its two allowances (the module docstring)."""

    total: float  # CPU s in all (``Limits.submission_cpu``)
    hiding: float = HIDING_CPU  # CPU s of time-outs in all (``Limits.hiding_cpu``)
    functions: int = FUNCTIONS  # the functions graded (one window kept in reserve for each)
    spent: float = 0.0
    hidden: float = 0.0
    timeouts: int = 0
    timed_out: dict[str, int] = field(default_factory=dict)  # time-outs, by function
    # worker starts (``Limits.restart_cpu`` bounds their CPU), all of the submission's workers'
    starts: int = 0
    start_cpu: float = 0.0
    # workers grading one submission at once share its account (grader.scoring.grade)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def refusal(self, function: str, window: float) -> str:
        """Why the next call of ``function`` (the stub called: ``max_value``, ``alpha_beta``,
        ...; CPU window ``window``) is not run; "" to run it. Under the lock: the other
        worker's thread may charge a function's first time-out meanwhile, and the sum below
        iterates ``timed_out`` ("dictionary changed size during iteration", a grader error)."""
        with self.lock:
            if self.spent >= self.total:
                return WHOLE.format(allowance=self.total)
            if self.timed_out.get(function, 0) >= REFUSED_AFTER:
                # the time-outs other functions may still have before they can be refused
                owed = sum(min(count, REFUSED_AFTER) for count in self.timed_out.values())
                reserve = max(REFUSED_AFTER * self.functions - owed, 0) * window
                if self.hidden + window + reserve > self.hiding:
                    return HIDDEN.format(count=self.timeouts, allowance=self.hiding)
            return ""

    def most(self, most: float) -> float:
        """A call's CPU limit in all, cut at what is left of the whole allowance."""
        return max(min(most, self.total - self.spent), 0.01)

    def cut(self, most: float) -> bool:
        """Whether a call limited to ``most`` was limited by the whole allowance."""
        return self.total - self.spent <= most

    def charge(self, cpu: float, function: str | None = None, window: float = 0.0) -> None:
        """``cpu`` seconds used; with ``function``, by a call of that stub stopped by the time
        limit (charged at least ``window`` to the hiding allowance)."""
        cpu = max(float(cpu), 0.0)
        with self.lock:
            self.spent += cpu
            if function is not None:
                self.hidden += max(cpu, window)
                self.timeouts += 1
                self.timed_out[function] = self.timed_out.get(function, 0) + 1

    def charge_start(self, cpu: float, after_timeout: bool) -> None:
        """A worker's start (its import and calibration); one after a time-out is that
        time-out's cost too."""
        cpu = max(float(cpu), 0.0)
        with self.lock:
            self.spent += cpu
            self.starts += 1
            self.start_cpu += cpu
            if after_timeout:
                self.hidden += cpu


__all__ = ["CpuAccount", "platform_allowance", "TIME_BUDGET_ENV", "HIDING_CPU"]
