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
    return {"reference_seconds": round(reference.seconds, 6),
            "seconds": round(reply.elapsed, 6) if reply.elapsed is not None else None,
            "cpu_window": round(reply.time_limit, 3)}
