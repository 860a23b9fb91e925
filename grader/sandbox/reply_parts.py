"""Parts of the worker's replies: the trace as ids, or packed, a budget stop, a time-out's
message, a value's repr under a time limit.

Run in the worker process, after the student's code (:mod:`grader.sandbox.worker`).
"""

from __future__ import annotations

import signal
from typing import Any

import timeout_decorator

from grader.run.packing import pack
from grader.run.tracing import STOP_NAMES
from grader.sandbox.guard import WorkerTimeout
from grader.sandbox.protocol import MAX_TRACE, pack_trace
from grader.sandbox.values import MAX_REPR


def timed(seconds: float, function: Any, *args: Any) -> Any:
    if not hasattr(signal, "SIGALRM"):  # Windows (the portable worker): no timer for a repr
        result = function(*args)
        return result
    return timeout_decorator.timeout(seconds, timeout_exception=WorkerTimeout)(function)(*args)


def trace_ids(trace: Any, cap: int = MAX_TRACE) -> tuple[list[str], list[str], bool]:
    """The ids of ``trace``'s lists, ``cap`` at most each, and whether one was cut."""
    if trace is None:
        return [], [], False
    state_id = trace.game.state_id
    generated = [state_id(s) for s in trace.generated[:cap]]
    evaluated = [state_id(s) for s in trace.evaluated[:cap]]
    return (
        generated,
        evaluated,
        len(trace.generated) > cap or len(trace.evaluated) > cap,
    )


def packed_trace(trace: Any, cap: int = MAX_TRACE) -> tuple[dict[str, Any], bool]:
    """The reply's trace fields for ``trace``, ``cap`` entries of each list at most (the fields
    :func:`~grader.sandbox.protocol.pack_trace` makes of the lists' ids), and whether a list
    was cut.

    Where the game keys its states (``Game.trace_key``: a grid game's cells) the lists are
    packed by key, and only each distinct state gets an id: full tic-tac-toe minimax is 805,113
    entries of 5,477 positions, so no id string an entry is made and looked up again (bench/
    worker_cost.py). The fields are the same either way: the table is the distinct states'
    ids in first-seen order, and the by-key packing is given up (for the id an entry) when two
    keys share an id or a state has no usable key."""
    if trace is None:
        return pack_trace([], []), False
    generated, evaluated = trace.generated[:cap], trace.evaluated[:cap]
    truncated = len(trace.generated) > cap or len(trace.evaluated) > cap
    fields = _packed_by_key(trace, generated, evaluated)
    if fields is None:
        fields = pack_trace(trace.ids_of(generated), trace.ids_of(evaluated))
    return fields, truncated


def _packed_by_key(trace: Any, generated: list[Any], evaluated: list[Any]) -> dict[str, Any] | None:
    key = getattr(trace.game, "trace_key", None)
    if key is None:
        return None
    try:  # C loops over the lists; the states may be anything the search passed to utility
        keys = list(map(key, generated)), list(map(key, evaluated))
        first = dict(zip(keys[0], generated))  # a key seen again keeps its first place
        first.update(zip(keys[1], evaluated))
    except Exception:  # noqa: BLE001 - unhashable or foreign states: an id an entry, as before
        return None
    table = trace.ids_of(list(first.values()))
    if len(set(table)) != len(table):  # two keys, one id: the table would repeat it
        return None
    index = dict(zip(first, range(len(first))))
    return {"ids": table, "generated": pack(index, keys[0]), "evaluated": pack(index, keys[1])}


def call_counts(trace: Any) -> dict[str, int]:
    """The game calls ``trace`` (or a run's result, which holds its lists) recorded, before any
    cut: the parent applies the test's exact work budget to them (the worker is told a rounder
    one, :func:`grader.scoring.budget.worker_budget`)."""
    if trace is None:
        return {"result": 0, "evaluated": 0}
    return {"result": len(trace.generated), "evaluated": len(trace.evaluated)}


def safe_repr_factory(seconds: float) -> Any:
    def safe_repr(item: Any) -> str:
        try:
            text = timed(seconds, repr, item)
            text = str.__str__(text) if isinstance(text, str) else object.__repr__(item)
        except WorkerTimeout:
            text = f"<{type(item).__name__} object; repr() did not finish>"
        except BaseException as error:  # noqa: BLE001 - a student's __repr__ may do anything
            text = f"<{type(item).__name__} object; repr() raised {type(error).__name__}>"
        return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."

    return safe_repr


def budget_fields(trace: Any, stop: str) -> dict[str, Any]:
    limit = getattr(trace.budget, stop)
    return {"budget_stop": {"kind": stop, "calls": limit},
            "message": f"stopped after {limit:,} {STOP_NAMES[stop]} calls (the work budget)"}


def timeout_message(reason: str, window: float, most: float) -> str:
    if reason == "idle":
        return (f"ran for {window:.2f} s of CPU time without calling the game "
                "(an infinite loop, or slow work between game calls?)")
    return f"used more than {most:.2f} s of CPU time in all, still calling the game only slowly"
