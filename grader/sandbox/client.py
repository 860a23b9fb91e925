"""Run the student's ``search.py`` in a worker process, never in the grader's.

:class:`Worker` starts ``python -m grader.sandbox.worker`` (:mod:`grader.sandbox.worker`) in a
session of its own (the process's start and end: :mod:`grader.sandbox.lifecycle`) and talks to
it over a private socket (JSON lines, one message a line, never stdout); the worker's stdout and
stderr are pipes the parent drains and caps. One worker serves many requests; after a time-out,
a crash or a memory error the next :meth:`Worker.run` starts a fresh one.

Defences, innermost first:

* a work budget counted by the traced game (``budget``: at most so many ``result`` and
  ``utility``/``evaluate`` calls; :mod:`grader.run.tracing`): the limit that decides scores,
  the same at any load;
* a CPU-time backstop inside the worker (:class:`~grader.sandbox.guard.CpuGuard`, a profiling
  timer): a call that runs ``time_limit`` CPU seconds without calling the game, or more than
  ``cpu_most`` in all, gets :class:`~grader.sandbox.guard.WorkerTimeout`, a ``BaseException``
  that ``except Exception`` does not swallow (returning after it is a time-out too); code that
  never returns to Python meets SIGXCPU a window later. ``time_limit`` is the larger of the
  given floor and ``time_multiple`` times the calibration workload, timed before any student
  code runs (by the grader, once for a batch, when it passes ``calibration``; else by the
  worker as it starts);
* the parent's own limits (:mod:`grader.sandbox.watch`), counted from the request: the
  worker's CPU time past ``cpu_most + kill_margin``, no CPU used for a while (a sleep), and,
  last resort, the wall clock; then the whole process group is killed;
* ``resource`` limits: address space, CPU seconds, processes, file size, open files, no core;
* as root: the worker drops to an unprivileged user (``user``, else ``$GRADER_WORKER_USER``,
  else ``nobody``) before it imports the submission, and runs in a scratch copy of it;
* where the kernel has Landlock (as root or not): reads only the interpreter's libraries and
  ``grader/``, writes only its scratch folder, no TCP, no signals to outside processes
  (``$GRADER_LANDLOCK=0`` turns this off, to test the other layers alone);
* a minimal environment (no secrets), ``PYTHONHASHSEED=0`` and the global ``random`` seeded
  before each call with the seeding function captured before the import (the seed applied at
  the generator's first use: :mod:`grader.sandbox.seeding`; a regrade gives the same result);
  only JSON crosses back, every field rebuilt as the plain type it should be;
* a call that prints more than ``limits.flood`` bytes fails ("printed too much");
* each request's ``seq`` is random, not counted: a reply forged during one call for the next
  request is skipped as stale, so no call decides another test's result; the request is sent
  under the call's limits too (a worker that stops reading never blocks the parent's send).

docs/security.md is the whole security model. The protocol is :mod:`grader.sandbox.protocol`,
the channel :mod:`grader.sandbox.channel`, values cross as :mod:`grader.sandbox.values` says.
"""

from __future__ import annotations

import math
import os
import signal
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from grader.algorithms.evaluate import ALGORITHM as EVALUATE
from grader.algorithms.mcts import SETTINGS_FIELD as MCTS_FIELD
from grader.errors import GraderError
from grader.games import builtin_game
from grader.run.evaluation import MAX_POSITIONS
from grader.run.runner import function_name, root_mover_is_min, stub_at_root
from grader.run.tracing import Budget
from grader.sandbox.capture import join_output
from grader.sandbox.lifecycle import WorkerProcess
from grader.sandbox.notebook import relabel_reply
from grader.sandbox.process import Closed, Deadline, scratch_problem
from grader.sandbox.protocol import (
    MAX_MESSAGE_ITEMS,
    MAX_TRACE,
    POSITIONS_REQUEST,
    SEEDS_REQUEST,
    STATUSES,
    WorkerReply,
    batch_answers,
    check_case_builds,
    evaluation_values,
    finite_number,
    items_allowed,
    mcts_dict,
    past_half,
    reply_from_message,
)
from grader.sandbox.allowance import WHOLE
from grader.sandbox.guard import CLOCK_DRIFT
from grader.sandbox.watch import MIN_IDLE, Watch, cpu_limits, kill_message, process_cpu


# Seeds a request of Worker.run_seeds holds at most: each may answer with as many JSON items
# as a request of its own could (items_allowed(1), 50,002), and a message the parent reads
# holds at most MAX_MESSAGE_ITEMS (what bounds decoding it: about 150 MB); 24 (an outcome test
# runs 20 by default)
SEEDS_A_REQUEST = min(MAX_MESSAGE_ITEMS // items_allowed(1), MAX_POSITIONS)
# of a worker's CPU life: what a fresh worker must gain to be started for a request no
# worker's life holds (Worker._short_of_life)
RESTART_GAIN = 0.1

# id(case) -> (a weak reference to the loaded case, whether MIN moves at its root; None: the
# root has no mover): a case's game built once, however many tests and seeds send it. Grading
# threads share it safely: a key at a time, never iterated, an entry a function of its case
_ROOTS: dict[int, tuple[weakref.ref, bool | None]] = {}


def root_stub(case: Any, algorithm: str) -> str:
    """The stub ``algorithm`` calls at the root of a loaded case's game
    (:func:`grader.run.runner.stub_at_root`, the rule; as
    :func:`~grader.sandbox.protocol.check_case_builds` says for a case given as a dict, whose
    every field it checks first: a loaded case was checked whole by its loader, so only its
    game is built here, once, in the grader's own process, where a failure is the grader's).
    A function of the case and the code: the grading loop keeps it in the answer key, and
    gives it to :meth:`Worker.run` (its ``stub``), which then builds nothing."""
    held = _ROOTS.get(id(case))
    if held is None or held[0]() is not case:
        try:
            game = case.build_game()
        except Exception as error:  # noqa: BLE001 - any failure is the grader's, and said so
            raise GraderError(f"the case sent to the worker does not build: {error}") from error
        if len(_ROOTS) > 1000:
            _ROOTS.clear()
        held = _ROOTS[id(case)] = (weakref.ref(case), root_mover_is_min(game))
    return stub_at_root(algorithm, held[1])


class Worker(WorkerProcess):
    """The student's ``search.py`` in a worker process. Use as a context manager.

    ``submission`` is a ``search.py``, or a folder or zip holding one (copied into a scratch
    folder; only that file). :meth:`run` starts the worker when needed. A missing or
    unimportable submission is an ``import_error`` reply on every request, never an exception;
    failures of the grader's own side (the worker cannot start, a case the parent cannot build)
    raise :class:`~grader.errors.GraderError`; nothing the worker sends ever does.
    """

    _packed = False  # the request under way keeps its packed traces so (run(packed=True))
    _made_here = False  # the last reply was the parent's own (a kill, a crash)
    _started_at: int | None = None  # the batch position the worker last said it began
    _started_cpu = 0.0  # and the CPU seconds of the batch's calls before it (its word)
    _batch_mosts: list[float] | None = None  # the batch under way: each position's CPU most
    _batch_left = math.inf  # and the submission's allowance left as it was sent
    _batch_cpu: float | None = None  # the worker's CPU seconds as it was sent
    _streamed: list[tuple[Any, dict[str, int]]] | None = None  # answers its "started" carry

    # --- requests -------------------------------------------------------------------------
    def cpu_limits(self, time_limit: float, time_multiple: float = 0.0,
                   budget: Budget | None = None) -> tuple[float, float]:
        """(window, most) of a call on the running worker's calibration (:func:`cpu_limits`)."""
        return cpu_limits(self.calibration, time_limit, time_multiple, budget)

    def run(
        self,
        case: Mapping[str, Any],
        algorithm: str,
        *,
        mcts: Any = None,
        time_limit: float | None = None,
        time_multiple: float = 0.0,
        budget: Budget | None = None,
        trace_limit: int | None = None,
        packed: bool = False,
        stub: str | None = None,
    ) -> WorkerReply:
        """Run ``algorithm``'s function of the submission on ``case`` (its public dict, no
        answers; a Case is turned into its ``public_dict()``).

        ``mcts``: an object or mapping with ``iterations``, ``seed``, ``c`` (default: the case's).
        ``budget``: the most game calls the call may make (None: no budget). ``time_limit``
        (default ``limits.time``) and ``time_multiple``: the CPU-time backstop, see
        :meth:`cpu_limits`; the reply's ``time_limit`` is the window used. Never raises for
        anything the student's code does; raises :class:`GraderError` when the grader's side
        fails. ``trace_limit``: ids kept of each trace list (default and most: ``MAX_TRACE``);
        the reply may hold no more items than that allows, so a forged one costs the parent little.
        ``packed``: a trace sent packed stays so in the reply (a :class:`PackedIds`: 4 bytes an
        id, for a caller that compares it with a packed one before it needs a list).
        ``stub``: :func:`root_stub` of a loaded case, when the caller has it (the answer key
        keeps it), so the case's game is not built here.
        """
        time_limit = self.limits.time if time_limit is None else float(time_limit)
        if not (time_limit > 0 and math.isfinite(time_limit)):
            raise ValueError(f"expected time_limit to be positive, got: {time_limit!r}")
        # the grader's own failure is raised here, never by the worker; and the stub called at
        # the root, what the allowance counts
        case, function = _sendable(case, algorithm, stub)
        window, most, failed = self._prepare(time_limit, time_multiple, budget, algorithm,
                                             function)
        if failed is not None:
            return failed
        request = {
            "seq": self._next_seq(),
            "case": case,
            "algorithm": algorithm,
            MCTS_FIELD: mcts_dict(mcts),
            "time_limit": window,
            "cpu_most": most,
            "budget": budget.to_dict() if budget is not None else None,
            "trace_limit": min(int(trace_limit or MAX_TRACE), MAX_TRACE),
        }
        self._packed = packed
        try:
            reply = self._exchange(request, window, most, items_allowed(request["trace_limit"]),
                                   function)
        finally:
            self._packed = False
        reply.algorithm, reply.time_limit = algorithm, window
        return self._with_import_output(reply)

    def evaluate(self, game: str, params: Mapping[str, Any], ids: list[str], *, calls: int,
                 seed: int, time_limit: float | None = None, time_multiple: float = 0.0
                 ) -> WorkerReply:
        """The submission's ``evaluate(game, state)`` on each position of ``ids`` (state ids of
        the built-in ``game`` with ``params``), at most ``calls`` ``result``/``utility`` calls
        each (:mod:`grader.run.evaluation`). An ``ok`` reply's ``value`` is the list of floats,
        one a position, checked here (:func:`evaluation_values`): a reply of the wrong length or
        holding anything but finite numbers becomes ``crashed``. ``time_limit`` is the CPU-time
        backstop of one position (the batch may take it once a position, and more)."""
        time_limit = self.limits.time if time_limit is None else float(time_limit)
        if not 0 < len(ids) <= MAX_POSITIONS:
            raise ValueError(f"expected 1 to {MAX_POSITIONS} positions, got: {len(ids)}")
        budget = Budget(result=calls * len(ids), evaluated=len(ids))
        function = EVALUATE.stubs[0]  # the student's evaluation function
        window, most, failed = self._prepare(time_limit, time_multiple, budget, EVALUATE.name,
                                             function)
        if failed is not None:
            return failed
        request = {"seq": self._next_seq(), "time_limit": window, "cpu_most": most,
                   POSITIONS_REQUEST: {"game": game, "params": dict(params), "ids": list(ids),
                                "calls": int(calls), "seed": int(seed)}}
        # a reply of more numbers than that is forged
        reply = self._exchange(request, window, most, len(ids) + 50_000, function)
        # the worker sends no "started" for an evaluation request (grader.sandbox.evaluating):
        # a reply the parent made itself (a kill) names the function from here
        reply.algorithm, reply.time_limit = EVALUATE.name, window
        reply.function = reply.function or function
        if reply.status == "ok":
            values, problem = evaluation_values(reply.value, len(ids))
            if problem:
                reply = WorkerReply("crashed", function=function, algorithm=EVALUATE.name,
                                    stdout=reply.stdout, stderr=reply.stderr, time_limit=window,
                                    message=f"the worker sent a malformed evaluation reply "
                                            f"({problem}); code in search.py writing on the "
                                            "grader's private channel is the likely cause")
                self.close()
            else:
                reply.value = values
        return self._with_import_output(reply)

    def search_positions(self, game: str, params: Mapping[str, Any], ids: list[str],
                         algorithm: str, *, depth_limit: int | None, budgets: list[Budget],
                         time_limit: float | None = None, time_multiple: float = 0.0
                         ) -> WorkerReply:
        """``algorithm``'s function of the submission searching each position of ``ids``
        (state ids of the built-in ``game`` with ``params``, ``depth_limit``) in turn, each a
        call of its own as :meth:`run` makes it: its own work budget (``budgets``, one a
        position), CPU backstop (``time_limit``, ``time_multiple``) and seeded ``random``;
        no trace comes back, only each call's counts of game calls.

        The batch ends at the first position not answered with a finite number. Its
        ``answered`` holds ``(value, {"result", "evaluated"})`` of each position answered, in
        order (the caller applies the exact budget to the counts). All answered: an ``ok``
        reply, ``value`` the list of floats, ``position`` None; else the reply of position
        ``reply.position`` (its status, value, error, output). A reply the parent made (a
        kill, a crash) has no ``answered``, and ``position`` the one the worker said it was
        at (a call that ran a tick of its guard; None if none: the caller asks each position
        alone); a reply that does not fit the batch (more answers than positions, an answer
        that is not three numbers, an ``ok`` before the last) is ``crashed``, at position 0."""
        time_limit = self.limits.time if time_limit is None else float(time_limit)
        if not 0 < len(ids) == len(budgets) <= MAX_POSITIONS:
            raise ValueError(f"expected 1 to {MAX_POSITIONS} positions, each with a budget, "
                             f"got: {len(ids)} and {len(budgets)}")
        # the grader's own failure is raised here, never by the worker
        first, *_ = [checked_position(game, params, state, depth_limit) for state in ids]
        function = function_name(algorithm, first)

        def request(batch: dict[str, Any]) -> dict[str, Any]:
            return {POSITIONS_REQUEST: {"game": game, "params": dict(params), "ids": list(ids),
                                        "algorithm": algorithm, "depth_limit": depth_limit,
                                        **batch}}

        return self._batch(request, budgets, algorithm, function, time_limit, time_multiple,
                           4 * len(ids) + 50_000, numbers=True, each=False, what="positions")

    def run_seeds(self, case: Any, algorithm: str, *, mcts: Any, seeds: list[int],
                  budget: Budget, exact: Budget | None = None, time_limit: float | None = None,
                  time_multiple: float = 0.0, stub: str | None = None) -> WorkerReply:
        """:meth:`run` of ``algorithm`` on ``case`` once a seed of ``seeds`` (``mcts``'s
        settings, its seed each of them in turn), each a call of its own as :meth:`run` makes
        it with ``trace_limit=1``: its own work budget (``budget``, each), CPU backstop (cut at
        what is left of the submission's allowance as it begins), seeded ``random`` and
        ``random.Random(seed)``; no trace comes back, only each call's counts of game calls.
        One request (an MCTS outcome test's seeds: a request costs the worker and the grader
        more than a small search does), or more where the worker process has CPU time left for
        fewer calls' limits (each request as many as fit, a fresh worker where none does
        here and one would in a fresh one, as a request a seed would have it), and for more
        than :data:`SEEDS_A_REQUEST` seeds.

        The batch ends at the first seed whose call does not return (an error, its budget, a
        time-out, a missing function, output past the limit...). ``answered``, ``position``
        and the reply are as :meth:`search_positions` gives them, an answer's value whatever
        the call returned (decoded as :meth:`run`'s), counted over all of ``seeds``. Every
        call says it begins, so a kill is at the seed that ran; ``position`` None with a
        failure (an error no call is known to have made: output at the file-descriptor level,
        the scratch folder, a grader replaced) leaves the seeds from ``len(answered)`` on for
        the caller to run alone.

        ``exact``: the budget that decides (the caller's; None: ``budget``), never sent: the
        worker is told ``budget``, rounded up from it (:mod:`grader.scoring.budget`). A seed
        whose calls pass ``exact`` ends the batch as it ended a request a seed's test: the
        worker stops after a seed past half of ``budget`` (which ``exact`` is above), and the
        seeds after it go in a new request only when it is within ``exact``; else the reply
        is that seed's, ``ok`` with its move and calls at ``position`` (the caller applies
        the exact budget to it), and no later seed runs."""
        time_limit = self.limits.time if time_limit is None else float(time_limit)
        if not seeds:
            raise ValueError("expected at least one seed")
        case, function = _sendable(case, algorithm, stub)
        settings = mcts_dict(mcts) or {}
        answered: list[tuple[Any, dict[str, int]]] = []
        while True:
            done = len(answered)
            count = min(self._calls_that_fit(time_limit, time_multiple, budget),
                        len(seeds) - done, SEEDS_A_REQUEST)
            part = [int(seed) for seed in seeds[done:done + count]]

            def request(batch: dict[str, Any], part: list[int] = part) -> dict[str, Any]:
                return {"case": case, "algorithm": algorithm, MCTS_FIELD: settings,
                        "budget": budget.to_dict(), "trace_limit": 1,
                        SEEDS_REQUEST: {"seeds": part, **batch}}

            # a reply may hold what the seeds' own requests could, together (a value of 10,000
            # items each): a batch is never refused where its requests passed
            reply = self._batch(request, [budget] * count, algorithm, function, time_limit,
                                time_multiple, count * items_allowed(1), numbers=False,
                                each=True, what="seeds")
            if reply.position is not None:  # the call it is about: those before it answered
                answered += (reply.answered or [])[:reply.position]
                reply.position += done
            elif reply.ok:
                answered += reply.answered or []
                if reply.paused and (exact or budget).passed_by(answered[-1][1]):
                    value, calls = answered.pop()
                    return WorkerReply("ok", value=value, calls=dict(calls),
                                       function=reply.function, algorithm=algorithm,
                                       stdout=reply.stdout, stderr=reply.stderr,
                                       time_limit=reply.time_limit, answered=answered,
                                       position=len(answered))
            if not reply.ok or len(answered) == len(seeds):
                reply.answered = answered
                if reply.ok:
                    reply.value = [value for value, _ in answered]
                return reply

    def _calls_that_fit(self, time_limit: float, time_multiple: float, budget: Budget) -> int:
        """How many calls of ``budget`` the worker process has CPU time left for (their
        limits, on the clock :meth:`_short_of_life` allows for: :meth:`_prepare` starts a
        fresh worker for a request that does not fit here and does in a fresh one); where not
        one fits, how many a fresh worker has room for; at least one. A request of ``n``
        calls may use ``n`` times one call's most (a window each, and the calls' budgets)."""
        self.start()
        _, most = self.cpu_limits(time_limit, time_multiple, budget)
        if most <= 0:
            return 1

        def request_most(count: int) -> float:  # as _prepare reckons a request of them
            whole = Budget(result=budget.result * count, evaluated=budget.evaluated * count)
            return self._request_limits(time_limit, time_multiple, whole, count)[1]

        def fitting(used: float) -> int:
            count = max(int(self._room(used) // (most * (1 + CLOCK_DRIFT))), 0)
            # the two reckonings may differ in the last bits: a request that fits by this
            # count must fit by _prepare's
            while count and not self._fits(request_most(count), used):
                count -= 1
            return count

        return max(1, fitting(self._cpu) or fitting(self._ready_cpu))

    def _request_limits(self, time_limit: float, time_multiple: float, budget: Budget | None,
                        calls: int) -> tuple[float, float]:
        """(window, most) of a request of ``calls`` calls whose budgets sum to ``budget``: a
        call's window, and the whole's most with a window more for each call after the first
        (each call gets a window of its own)."""
        window, most = self.cpu_limits(time_limit, time_multiple, budget)
        return window, most + (calls - 1) * window

    def _room(self, used: float) -> float:
        """CPU seconds a request may use in a worker process that has used ``used`` of its
        life (``Limits.cpu_time``, its RLIMIT_CPU), the kill margin and 2 s kept."""
        return self.limits.cpu_time - used - self.limits.kill_margin - 2

    def _fits(self, most: float, used: float) -> bool:
        """Whether a request that may use ``most`` CPU seconds fits in a worker process that
        has used ``used``: its room counted on RLIMIT_CPU's clock, up to :data:`CLOCK_DRIFT`
        ahead of the one ``most`` is on."""
        return most * (1 + CLOCK_DRIFT) <= self._room(used)

    def _batch(self, request: Callable[[dict[str, Any]], dict[str, Any]], budgets: list[Budget],
               algorithm: str, function: str, time_limit: float, time_multiple: float,
               max_items: int, *, numbers: bool, each: bool, what: str) -> WorkerReply:
        """One request for a batch of calls of ``function`` (:meth:`search_positions`,
        :meth:`run_seeds`), one a budget of ``budgets``; ``request(batch)`` is the request,
        ``batch`` its calls' ``budgets``, ``most``, ``left`` (the submission's allowance left)
        and ``announce``. ``numbers``: an answer is a finite number (else any value);
        ``each``: every call says it begins, with the answer of the one before (a kill's
        reply then has the answers before its call); ``what``: what the calls are of, as the
        message of a malformed reply says it."""
        whole = Budget(result=sum(b.result for b in budgets),
                       evaluated=sum(b.evaluated for b in budgets))
        window, most, failed = self._prepare(time_limit, time_multiple, whole, algorithm,
                                             function, calls=len(budgets))
        if failed is not None:  # the first call would get it (import, allowance)
            failed.position, failed.answered = 0, []
            return failed
        mosts = [min(most, self.cpu_limits(time_limit, time_multiple, budget)[1])
                 for budget in budgets]
        left = self.account.total - self.account.spent
        body = request({"budgets": [budget.to_dict() for budget in budgets], "most": mosts,
                        "left": left,
                        **({"announce": "each", "pause": "half"} if each else {})})
        message = {"seq": self._next_seq(), "time_limit": window, "cpu_most": most, **body}
        self._made_here, self._started_at, self._batch_mosts = False, None, mosts
        self._batch_left, self._started_cpu = left, 0.0
        self._streamed = [] if each else None
        try:
            reply = self._exchange(message, window, most, max_items, function,
                                   call_most=max(mosts))
        finally:
            self._batch_mosts, streamed, self._streamed = None, self._streamed, None
        reply.algorithm, reply.time_limit = algorithm, window
        reply.function = reply.function or function
        started = self._started_at
        if streamed is not None and started is not None and len(streamed) != started:
            started = None  # the answers before it are not all known: at no call
        # the worker's word (a call of the batch, checked): only where its own failure is
        problem = batch_problem(reply, len(budgets), self._made_here, started, numbers,
                                paused=budgets if each else None)
        if problem:
            reply = WorkerReply("crashed", function=function, algorithm=algorithm,
                                stdout=reply.stdout, stderr=reply.stderr, time_limit=window,
                                message=f"the worker sent a malformed reply to a batch of "
                                        f"{what} ({problem}); code in search.py writing on "
                                        "the grader's private channel is the likely cause",
                                answered=[], position=0)
            self.close()
        else:
            if streamed is not None and reply.answered is None and reply.position is not None:
                reply.answered = streamed[:reply.position]  # a kill's: as the calls said
            if reply.status == "ok" and reply.position is None:  # every call answered
                reply.value = [value for value, _ in reply.answered or ()]
        return self._with_import_output(reply)

    def _prepare(self, time_limit: float, time_multiple: float, budget: Budget | None,
                 algorithm: str, function: str, calls: int = 1
                 ) -> tuple[float, float, WorkerReply | None]:
        """A worker ready for the next request, and the request's CPU window and most: a
        fresh one when the last died or has too little of its CPU life left
        (:meth:`_short_of_life`). The third item is the reply to give instead of sending
        anything (search.py did not import, or the allowance refuses ``function``, the stub
        the call would run). ``calls``: the calls the request makes (a batch's positions),
        each with a window of its own."""
        self.start()
        window, most = self._request_limits(time_limit, time_multiple, budget, calls)
        if self._proc is not None and (
            self._proc.poll() is not None  # it died between requests
            or self._short_of_life(self.account.most(most))
        ):
            self.close()  # start afresh
            self.start()
            window, most = self._request_limits(time_limit, time_multiple, budget, calls)
        if self._import_failure is None:
            refusal = self.account.refusal(function, window)
            if refusal:  # the submission's allowance (grader.sandbox.allowance): not run
                return window, most, WorkerReply("timeout", algorithm=algorithm,
                                                 time_limit=window, message=refusal)
            most = self.account.most(most)
            return min(window, most), most, None
        failure = self._import_failure
        return window, most, relabel_reply(WorkerReply(
            failure.status, error=dict(failure.error or {}), stdout=failure.stdout,
            stderr=failure.stderr, algorithm=algorithm, time_limit=window,
            message=failure.message), self.notebook)

    def _short_of_life(self, most: float) -> bool:
        """Whether a fresh worker should serve a request that may use ``most`` CPU seconds
        (cut at what is left of the submission's allowance, as the request will be): when this
        process has too little of its CPU life (``Limits.cpu_time``, its RLIMIT_CPU, counted on
        a clock up to :data:`CLOCK_DRIFT` ahead of the one ``most`` is on) left for it and a
        fresh one would have room. A fresh one starts with about the CPU this one's start took,
        so for a request no process has room for (a batch of 128 positions, each allowed a long
        window on a slow machine, may use more than a whole life: every such batch started a
        worker, 10 to 14 starts a grade of the correct solution, about 0.1 CPU s each), one is
        started only once this one has used :data:`RESTART_GAIN` of its life: the request then
        gets at least the rest, and one needing more than that would have used nearly all of
        the submission's allowance in one call."""
        if self._fits(most, self._cpu):
            return False  # room enough here
        if self._fits(most, self._ready_cpu):
            return True  # room enough in a fresh one
        return self._cpu - self._ready_cpu > RESTART_GAIN * self.limits.cpu_time

    def _next_seq(self) -> int:
        # A number the worker cannot guess: lines student code wrote during an earlier call
        # (a forged reply for the next request) never pass for this one's.
        self._seq = int.from_bytes(os.urandom(7), "little") % 2**52 + 1  # secrets' source; its
        # import (hmac, hashlib) is not needed
        return self._seq

    def _with_import_output(self, reply: WorkerReply) -> WorkerReply:
        """``reply`` with what the import printed before it (once), a notebook's lines named
        by cell."""
        if self._import_output != ("", "") and not self.show_import_output:
            self._import_output = ("", "")
        if self._import_output != ("", ""):
            stdout, stderr = self._import_output
            reply.stdout = join_output(stdout, reply.stdout, self.limits.output)
            reply.stderr = join_output(stderr, reply.stderr, self.limits.output)
            self._import_output = ("", "")
        return relabel_reply(reply, self.notebook)

    def _exchange(self, request: dict[str, Any], window: float, most: float,
                  max_items: int, function: str, call_most: float | None = None
                  ) -> WorkerReply:
        """Send ``request`` and wait for its reply under the parent's own limits, counted from
        now: the worker's CPU time, CPU idleness and, last resort, the wall clock. A message
        holding more than ``max_items`` JSON items is forged (counted before decoding). A
        time-out is charged to ``function``, the stub called; it is the whole allowance's
        when what was left of it was at most the call's most (``most``; with ``call_most``
        given, a batch's: each call has a most of its own, the largest given, and the one
        that timed out is judged by :meth:`_batch_cut`)."""
        self._channel.max_items = max_items
        pid, self._last_cpu = self.pid, None
        cut = self.account.cut(most) if call_most is None else None  # a batch's: below
        before = self._batch_cpu = process_cpu(pid) if pid is not None else None
        try:
            reply = self._exchange_within_limits(request, window, most, before)
        finally:
            if self._channel is not None:
                self._channel.max_items = MAX_MESSAGE_ITEMS
        # charged on the parent's own readings of the process's CPU (a killed one: the last)
        after = self._last_cpu if self.pid != pid else process_cpu(pid)
        used = (after or 0.0) - (before or 0.0) if before is not None else 0.0
        timed_out = reply.status in ("timeout", "killed_timeout")
        if timed_out:  # a batch's answered positions' CPU is not the time-out's: spent only
            # (the worker's word, so at most what was used; the time-out is still charged at
            # least its window to the hiding allowance, whatever the worker says)
            earlier = reply.answered_cpu = min(reply.answered_cpu, used)  # (_batch_cut reads it)
            self.account.charge(earlier)
            used -= earlier
        self.account.charge(used, function if timed_out else None, window)
        self._after_timeout = timed_out and self._proc is None
        if timed_out and (cut if cut is not None else self._batch_cut(reply)):
            # stopped by the submission's allowance, not the call's limit
            reply.message = WHOLE.format(allowance=self.account.total)
        return reply

    def _batch_cut(self, reply: WorkerReply) -> bool:
        """Whether the batch's call that timed out had its most cut at what was left of the
        submission's allowance as it began (the worker cuts it so), as :meth:`_exchange`
        judges a single call; where the call is not known, whether the allowance is spent."""
        mosts = self._batch_mosts or []
        position = self._started_at if self._made_here else len(reply.answered or ())
        if position is None or not 0 <= position < len(mosts):
            return self.account.spent >= self.account.total
        return self._batch_left - reply.answered_cpu <= mosts[position]

    def _exchange_within_limits(self, request: dict[str, Any], window: float,
                                most: float, cpu_now: float | None = None) -> WorkerReply:
        """``cpu_now``: the worker's CPU seconds the caller read a moment ago (else read
        here): the limits count from it."""
        seq = request["seq"]
        cpu = most + self.limits.kill_margin
        watch = Watch(self.pid, cpu, max(MIN_IDLE, 2 * window), 3 * cpu + 2 * MIN_IDLE,
                      asleep=True, cpu_start=cpu_now)
        function = None
        try:
            # bounded too: a worker that stops reading must not hang the grader on a big case
            self._channel.send(request, watch.wall_deadline, watch)
            first = self._channel.receive_for(seq, watch.wall_deadline, watch)
            while first.get("event") == "started" and "position" in first:
                self._batch_call_began(first, watch)
                first = self._channel.receive_for(seq, watch.wall_deadline, watch)
            if first.get("event") == "reply":  # answered without calling anything
                return self._finish(first, before_student=True)
            if first.get("event") != "started":
                raise Closed(f"sent {first.get('event')!r} where 'started' was due")
            function = first.get("function")
            reply = self._channel.expect("reply", watch.wall_deadline, seq, watch)
            return self._finish(reply, function)
        except Deadline:
            self._last_cpu = process_cpu(self.pid)  # before the kill: what the call used
            self._kill_and_drain(Deadline())
            return self._killed("killed_timeout", function, kill_message(watch, window))
        except Closed as error:
            self._last_cpu = process_cpu(self.pid)
            detail = self._kill_and_drain(error)
            if self._proc is not None and self._proc.returncode == -getattr(signal, "SIGXCPU", 0):
                return self._killed("killed_timeout", function, (
                    f"ran {window:.2f} s of CPU time without calling the game and did not stop "
                    "at the time-out (a loop catching every exception, or a long call into C "
                    "code such as sum(range(10**12))?); the process was killed"))
            return self._killed("crashed", function, detail)

    def _batch_call_began(self, event: dict[str, Any], watch: Watch) -> None:
        """A batch's ``started`` (the protocol's module docstring): a call of the batch that
        runs a while (:meth:`search_positions`), or any (:meth:`run_seeds`), says which it is,
        so a kill or a crash is its own; the parent's limits restart here with that call's,
        cut at what is left of the submission's allowance (each position once, in order: a
        forged "started" never extends them past the batch's). With :meth:`run_seeds`, it
        carries the answer of the call before it (kept: a kill loses the reply's), and every
        call sends one, so only the next position is taken (one further on is forged).

        The worker's word, which only places the submission's own failure: a "started" for
        the next call, with an answer, forged during a call is the one the worker sends when
        that call returns, byte for byte (a kill is then the next call's, the forged move
        among the answers before it: the test fails either way, at a seed that did not fail;
        docs/security.md). Its CPU seconds before the call, the worker's word too, are cut at
        what the parent read the request using (:meth:`_exchange`), so a forged figure cannot
        make a time-out the whole allowance's."""
        position, mosts, streamed = event["position"], self._batch_mosts, self._streamed
        following = -1 if self._started_at is None else self._started_at
        if not (mosts and type(position) is int and following < position < len(mosts) and (
                streamed is None or position == following + 1)):
            return
        self._started_at = position
        self._started_cpu = max(finite_number(event.get("answered_cpu"), 0.0), 0.0)
        if streamed is not None and position == len(streamed) + 1:
            answer = batch_answers(event)
            if answer is not None and len(answer) == 1:
                streamed += answer
        now = process_cpu(self.pid) if self.pid is not None else None
        most = mosts[position]
        if now is not None and self._batch_cpu is not None:
            most = max(min(most, self._batch_left - (now - self._batch_cpu)), 0.01)
        cpu = most + self.limits.kill_margin
        watch.restart(cpu, 3 * cpu + 2 * MIN_IDLE, now)

    def _killed(self, status: str, function: str | None, message: str) -> WorkerReply:
        self._made_here = True  # not the worker's reply (a batch: at the call it said it began)
        stdout, stderr = self._take_output()
        self.close()
        reply = WorkerReply(status, stdout=stdout, stderr=stderr, function=function,
                            message=message)
        if self._batch_mosts is not None and self._started_at is not None:
            reply.answered_cpu = self._started_cpu  # the calls before it: not its time-out's
        return reply

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
                                   printed=printed, limits=self.limits, packed=self._packed)
        self._cpu = finite_number(message.get("cpu"), self._cpu)
        overfull = scratch_problem(self._scratch, self.limits) if self._scratch else ""
        if overfull and reply.status in ("ok", "error"):  # the folder goes with the worker
            reply.status, reply.value = "error", None
            reply.message = f"ScratchLimitExceeded: {overfull}"
            reply.error = {"type": "ScratchLimitExceeded", "message": overfull, "traceback": ""}
        if overfull or status not in STATUSES or status == "timeout" or message.get("recycle"):
            self.close()  # the process may be in any state: the next request gets a fresh one
        return reply


def _sendable(case: Any, algorithm: str, stub: str | None) -> tuple[Mapping[str, Any], str]:
    """``case`` as a request carries it (a Case's ``public_dict()``, kept by the case:
    ``request_case()``; checked whole when it was loaded) and the stub ``algorithm`` calls at
    its root (``stub`` when the caller has it); :class:`~grader.errors.GraderError` when a
    plain dict does not build."""
    if hasattr(case, "public_dict"):
        return case.request_case(), stub or root_stub(case, algorithm)
    return case, check_case_builds(case, algorithm)


def checked_position(game: str, params: Mapping[str, Any], state: str,
                     depth_limit: int | None) -> Any:
    """``game`` built at ``state`` by the grader itself; :class:`~grader.errors.GraderError`
    when it cannot be (a batch's position: its failure is the grader's, raised here)."""
    try:
        return builtin_game(game, state, dict(params), depth_limit=depth_limit)
    except Exception as error:  # noqa: BLE001 - any failure is the grader's, and said so
        raise GraderError(f"the position sent to the worker does not build: {error}") from error


# Errors of a batch that no one call of it is known to have made: the parent's of a reply that
# was "ok" (the output it saw at the file-descriptor level, the scratch folder), and a grader
# replaced (checked once a batch). Such a batch is asked again one position a request, which
# finds the call as a request of its own did.
AT_NO_POSITION = ("OutputLimitExceeded", "ScratchLimitExceeded", "SandboxViolation")


def batch_problem(reply: WorkerReply, asked: int, made_here: bool = False,
                  started: int | None = None, numbers: bool = True,
                  paused: list[Budget] | None = None) -> str:
    """What does not fit in the worker's reply to a batch of ``asked`` calls ("" when it
    fits); sets ``reply.position``, the call the reply is about (module docstring of
    :mod:`grader.sandbox.protocol`). ``made_here``: the parent made the reply (a kill, a
    crash): it fits, at ``started``, the call the worker said it began last (None: it said
    none). ``numbers``: each answer must be a finite number (a position's value; made a
    float here), else any value (a seed's move). ``paused``: the calls' budgets, where the
    batch may end early (a batch of seeds, ``"pause": "half"``): a paused reply fits when it
    answers some calls, not all, and the last answered passed half its budget (position
    None; else a forged pause, which would only make the parent ask again)."""
    if made_here:
        reply.position = started
        return ""
    if reply.status == "crashed" and reply.answered is None:  # a status of no call's: forged
        reply.position = 0 if started is None else started  # (reply_from_message's words)
        return ""
    if reply.answered is None:
        return "no answers, or answers that are not a value and two counts each"
    answered = len(reply.answered)
    if answered > asked:
        return f"{answered} calls answered, {asked} asked"
    if numbers:
        for index, (value, calls) in enumerate(reply.answered):
            number = finite_number(value, None) if type(value) in (int, float) else None
            if number is None:
                return f"answer {index}, {str(value)[:40]!r}, is not a finite number"
            reply.answered[index] = (number, calls)
    if reply.paused:
        if paused is None or not 0 < answered < asked:
            return f"paused with {answered} of {asked} calls answered"
        if not past_half(reply.answered[-1][1], paused[answered - 1].to_dict()):
            return f"paused after call {answered - 1}, within half its budget"
        reply.position = None
        return ""
    error = (reply.error or {}).get("type")
    if error in AT_NO_POSITION and asked > 1 and reply.status == "error":
        reply.position = None  # the batch's, not one call's: the caller asks each alone
        return ""
    if answered < asked:
        if reply.status == "ok" and (not numbers or (
                type(reply.value) in (int, float)
                and finite_number(reply.value, None) is not None)):
            # a call that returned ends a batch only with a value that is not an answer
            return f"call {answered}'s value {str(reply.value)[:40]!r} not counted as answered"
        reply.position = answered
        return ""
    if reply.status != "ok":
        if error in AT_NO_POSITION:  # a batch of one
            reply.position = 0
            return ""
        return f"every call answered, yet status {reply.status!r}"
    return ""

__all__ = ["Worker", "batch_problem", "checked_position"]
