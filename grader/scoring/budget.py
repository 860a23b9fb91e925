"""A test's work budget, what a budget stop says, and the fields that are timings by nature.

The budget (:func:`work_budget`) is counted in game calls from the reference's run on the same
case (the answer key holds its trace), so it is the same on every machine; the traced game
enforces it (:mod:`grader.run.tracing`).
"""

from __future__ import annotations

from typing import Any

from grader.answers.store import Reference
from grader.run.tracing import STOP_NAMES, Budget
from grader.sandbox.protocol import WorkerReply

MAX_BUDGET = 2_000_000  # no budget allows more calls of a kind (the worker's memory bounds it)


def work_budget(settings: Any, references: list[Reference]) -> Budget:
    """The most game calls a test allows: ``work_multiple`` times the reference's calls on the
    case (the most of the accepted rules' runs) plus ``work_floor``, for ``result`` calls and
    for ``utility``/``evaluate`` calls, never above the sandbox's trace cap."""

    def most(calls: int) -> int:
        return min(MAX_BUDGET, int(settings.work_multiple * calls + settings.work_floor))

    return Budget(result=most(max(len(ref.run.generated) for ref in references)),
                  evaluated=most(max(len(ref.run.evaluated) for ref in references)))


def told(count: int) -> int:
    """``count`` rounded up to a power of two: what the worker is told of a budget or a trace
    limit (:func:`worker_budget`)."""
    return 1 << max(count - 1, 0).bit_length()


def worker_budget(budget: Budget) -> Budget:
    """The budget the worker enforces: each count of ``budget`` rounded up to a power of two.

    The worker runs the student's code, so what it is told, the submission can read (the
    request is in its frames). The exact budget, ``work_multiple`` times the reference's calls
    plus ``work_floor``, would tell a search how many nodes the reference generates and scores
    on the case, a hidden one too (enough to pick, among variants tried on a copy of the tree,
    the one the grader expects). Rounded, it tells that count within a factor of two; the
    parent applies the exact budget to the reply (:func:`within_budget`), so the scores are the
    exact budget's."""
    return Budget(result=told(budget.result), evaluated=told(budget.evaluated))


def within_budget(reply: WorkerReply, budget: Budget) -> WorkerReply:
    """``reply`` as the exact ``budget`` leaves it: a search that made more calls of a kind than
    it allows (by the counts the worker reports, or its trace's when longer) is stopped there,
    whatever it did next (returned, raised, timed out, was stopped by the worker's rounder
    budget): no value, its trace cut at the budget. When both kinds passed, the ``result``
    calls are named (the order of the two kinds' calls does not cross)."""
    # the worker's counts, never below its trace's (a forged count cannot hide a long trace)
    reported = reply.calls or {}
    calls = {"result": max(reported.get("result", 0), len(reply.generated)),
             "evaluated": max(reported.get("evaluated", 0), len(reply.evaluated))}
    passed = budget.passed_by(calls)
    if not passed:
        return reply
    kind = passed[0]
    limit = getattr(budget, kind)
    reply.status, reply.value, reply.error = "budget", None, None
    reply.budget_stop = {"kind": kind, "calls": limit}
    reply.message = f"stopped after {limit:,} {STOP_NAMES[kind]} calls (the work budget)"
    reply.generated = reply.generated[:budget.result]
    reply.evaluated = reply.evaluated[:budget.evaluated]
    return reply


def budget_message(reply: WorkerReply, references: list[Reference]) -> str:
    """"stopped after N `result` calls, K times what the reference needed"."""
    stop = reply.budget_stop or {"kind": "result", "calls": 0}
    kind, calls = stop["kind"], stop["calls"]
    needed = max((len(ref.run.generated if kind == "result" else ref.run.evaluated)
                  for ref in references), default=0)
    times = f"{calls / needed:.1f} times" if needed else "more than"
    return (f"stopped after {calls:,} {STOP_NAMES[kind]} calls, {times} what the reference "
            f"needed ({needed:,}): the work budget of this test")


def timing_data(reference: Reference, reply: WorkerReply) -> dict[str, Any]:
    """Fields that are timings by nature (staff-only ``extra_data["timing"]``; they differ
    from run to run and decide no score)."""
    return {"reference_seconds": (round(reference.seconds, 6) if reference.seconds is not None
                                  else None),  # None: answers from a built zip's key
            "seconds": round(reply.elapsed, 6) if reply.elapsed is not None else None,
            "cpu_window": round(reply.time_limit, 3)}
