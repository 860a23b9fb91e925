"""Where the worker's CPU goes on the full tic-tac-toe minimax case (549,945 nodes).

``python bench/worker_cost.py [--runs N]`` (or ``bench/run.py --only worker_cost``). The case is
plain minimax from tic-tac-toe's empty board (:data:`FULL_GAME`, made here, not a file: the
bundled cases stop at x's corner opening, 59,704 nodes, since this one caught no known mistake
the others miss), the submission the correct solution. Each
stage is what the worker does for that request, run here in one process on a fresh game each
time (a worker builds the game anew for each request, so the board memo starts empty):

* ``search``: the student's ``max_value`` on the bare game, untraced;
* ``traced``: the same under the tracing wrapper (the wrapper's share: traced - search);
* ``ids``: the trace's boards turned into id strings (:meth:`Trace.generated_ids`), as
  :func:`grader.run.runner.run_algorithm` does in the worker;
* ``pack``: :func:`grader.sandbox.protocol.pack_trace` (each distinct id once, 4-byte indexes);
* ``packed from states``: what the worker does instead of the two since issue 33,
  :func:`grader.sandbox.reply_parts.packed_trace` (the lists packed by the boards' cells, an id
  made for each distinct board only), checked to give the same fields;
* ``reply``: the reply dict to JSON bytes (the worker's ``send``), and the parent's ``loads``;

and, end to end, the real sandboxed worker's CPU for the request (``/proc/<pid>/stat`` before and
after), which the stages should roughly add up to. CPU seconds (``time.process_time``), medians.

Does the case earn its cost? :func:`catches` runs every known minimax mistake (the catalogue's,
``reference.mistakes``, and the known-wrong submissions of tests/submissions/variants.py whose
mistake touches minimax) on every minimax case, public and hidden, in this process, and lists
the cases each one fails (value or either list differing from the reference's): a mistake that
only this case catches is what the case buys.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.measure import load_average, table  # noqa: E402
from bench.sections import import_student  # noqa: E402

FULL_GAME = {"name": "tictactoe-empty-board-minimax", "algorithms": ["minimax"],
             "description": "Plain minimax over the whole tic-tac-toe game tree: a draw.",
             "game": "tictactoe", "time_limit": 60}
SCHEMA = "../../grader/schema/case.schema.json"
CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
BUDGET_CALLS = 2_000_000  # the work budget the grader gives this case (its cap)


def _full_game() -> Any:
    """:data:`FULL_GAME`, checked and made as the grader makes a case file's."""
    from grader.cases.load import case_from_dict

    return case_from_dict({"$schema": SCHEMA, **FULL_GAME}, "full-game.json")


def _cpu(function: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    before = time.process_time()
    result = function()
    return time.process_time() - before, result


def stages(runs: int) -> dict[str, Any]:
    """The in-process stages' median CPU seconds (module docstring)."""
    from grader.run.runner import run_algorithm
    from grader.run.tracing import traced
    from grader.sandbox.protocol import pack_trace
    from grader.sandbox.reply_parts import packed_trace

    case = _full_game()
    student = import_student(CORRECT)
    samples: dict[str, list[float]] = {name: [] for name in
                                       ("search", "traced", "ids", "pack", "by states",
                                        "dumps", "loads", "worker path")}
    sizes: dict[str, int] = {}
    for _ in range(runs):
        game = case.build_game()
        seconds, _ = _cpu(lambda game=game: student["max_value"](game, game.initial_state()))
        samples["search"].append(seconds)
        game = case.build_game()
        wrapper, trace = traced(game)
        seconds, _ = _cpu(lambda: student["max_value"](wrapper, game.initial_state()))
        samples["traced"].append(seconds)
        seconds, (generated, evaluated) = _cpu(
            lambda: (trace.generated_ids(), trace.evaluated_ids()))
        samples["ids"].append(seconds)
        seconds, packed = _cpu(lambda: pack_trace(generated, evaluated))
        samples["pack"].append(seconds)
        seconds, (by_states, _) = _cpu(lambda: packed_trace(trace))
        samples["by states"].append(seconds)
        if by_states != packed:
            raise RuntimeError("packed_trace's fields differ from pack_trace's of the ids")
        reply = {"event": "reply", "status": "ok", "value": 0, **packed,
                 "trace_truncated": False, "calls": {"result": len(trace.generated),
                                                      "evaluated": len(trace.evaluated)}}
        seconds, line = _cpu(lambda: json.dumps(reply, allow_nan=False).encode() + b"\n")
        samples["dumps"].append(seconds)
        seconds, _ = _cpu(lambda: json.loads(line))
        samples["loads"].append(seconds)
        sizes = {"generated": len(trace.generated), "evaluated": len(trace.evaluated),
                 "distinct_ids": len(packed["ids"]), "reply_bytes": len(line)}
        del wrapper, trace, generated, evaluated, packed, reply, line
        # the worker's own path, as one: run_algorithm (traced search + ids), then the packing
        game = case.build_game()
        seconds, _ = _cpu(lambda game=game: _worker_path(student, game))
        samples["worker path"].append(seconds)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    return {"medians": medians, "samples": samples, **sizes}


def _worker_path(student: Any, game: Any) -> int:
    """The worker's request as it runs it: the search traced, its ids not made, the trace
    packed from the states, the reply's JSON."""
    from grader.run.runner import run_algorithm
    from grader.run.tracing import traced

    kept = []

    def keep(game: Any, budget: Any = None) -> Any:  # as the worker's _Stash keeps the trace
        wrapper, trace = traced(game, budget)
        kept.append(trace)
        return wrapper, trace

    from grader.run import runner
    from grader.sandbox.reply_parts import packed_trace

    real, runner.traced = runner.traced, keep
    try:
        run_algorithm(student, game, "minimax", ids=False)
    finally:
        runner.traced = real
    packed, _ = packed_trace(kept[0])
    return len(json.dumps(packed, allow_nan=False).encode())


def real_worker(runs: int) -> list[float]:
    """The sandboxed worker's CPU seconds for the request, ``runs`` times (one worker)."""
    from grader.run.tracing import Budget
    from grader.sandbox.portable import open_worker
    from grader.sandbox.watch import process_cpu

    case = _full_game()
    budget = Budget(result=BUDGET_CALLS, evaluated=BUDGET_CALLS)
    used = []
    for _ in range(runs):  # a fresh worker each time: the request's CPU limit may restart one
        with open_worker(CORRECT) as worker:
            worker.start()
            pid = worker.pid
            before = process_cpu(pid)
            reply = worker.run(case, "minimax", time_limit=60, budget=budget)
            after = process_cpu(pid) if worker.pid == pid else None
            if reply.status != "ok" or before is None or after is None:
                raise RuntimeError(f"the worker's reply: {reply.status} {reply.message} "
                                   f"(pid {pid}, then {worker.pid})")
            used.append(after - before)
    return used


def catches() -> dict[str, list[str]]:
    """The minimax cases each known minimax mistake fails (module docstring)."""
    import math

    import reference
    from grader.cases import find_cases, load_case
    from grader.run.runner import run_algorithm
    from grader.run.tracing import Budget, BudgetExceeded
    from reference.mistakes import mistakes_for

    sys.path.insert(0, str(REPO / "tests"))
    import suite_modules  # noqa: PLC0415 (the suite's loader of the known-wrong submissions)

    variants = suite_modules.load("submissions/variants.py")
    tables: dict[str, dict[str, Any]] = {f"catalogue: {m.name}": m.functions("inclusive")
                                         for m in mistakes_for("minimax", "inclusive")}
    for name, variant in variants.VARIANTS.items():
        if "minimax" in variant.algorithms:
            spec = importlib.util.spec_from_loader(f"variant_{name}", loader=None)
            module = importlib.util.module_from_spec(spec)
            exec(compile(variants.source(name), f"{name}/search.py", "exec"), vars(module))
            tables[f"tests/submissions: {name}"] = vars(module)
    cases = [load_case(path) for path in find_cases([REPO / "trees" / "public",
                                                      REPO / "trees" / "hidden"])]
    cases = [case for case in cases if "minimax" in case.algorithms] + [_full_game()]
    failed: dict[str, list[str]] = {label: [] for label in tables}
    for case in cases:
        want = run_algorithm(reference.reference_functions(), case.build_game(), "minimax")
        budget = Budget(result=40 * len(want.generated) + 1000,
                        evaluated=40 * len(want.evaluated) + 1000)
        for label, functions in tables.items():
            try:
                got = run_algorithm(functions, case.build_game(), "minimax", budget=budget)
            except (BudgetExceeded, Exception):  # noqa: BLE001 - a failure either way
                failed[label].append(case.name)
                continue
            same_value = (isinstance(got.value, (int, float)) and not isinstance(got.value, bool)
                          and math.isclose(got.value, want.value, abs_tol=1e-9))
            if not (same_value and got.generated == want.generated
                    and got.evaluated == want.evaluated):
                failed[label].append(case.name)
    print(f"minimax mistakes on the {len(cases)} minimax cases: the cases each fails")
    full = FULL_GAME["name"]
    print(table([[label, len(names), ("ONLY " if names == [full] else "")
                  + ("the full case among them" if full in names else "not the full case")]
                 for label, names in failed.items()],
                ["mistake", "cases failed", "full tic-tac-toe minimax"]))
    return failed


def worker_cost(runs: int = 3) -> dict[str, Any]:
    """Both measures, printed as a table; the figures returned."""
    figures = stages(runs)
    medians = figures["medians"]
    real = real_worker(runs)
    figures["real_worker"] = real
    figures["real_worker_median"] = statistics.median(real)
    search = medians["search"]
    rows = [
        ["the student's search, untraced", f"{search:.3f}", ""],
        ["the tracing wrapper (traced - untraced)", f"{medians['traced'] - search:.3f}",
         f"traced {medians['traced'] / search:.2f}x"],
        ["the ids (board -> id string per entry)", f"{medians['ids']:.3f}", ""],
        ["the packing (distinct ids, 4-byte indexes)", f"{medians['pack']:.3f}", ""],
        ["instead of both: packed from the boards (packed_trace)", f"{medians['by states']:.3f}",
         f"{(medians['ids'] + medians['pack']) / medians['by states']:.1f}x less; same fields"],
        ["the reply to JSON (worker)", f"{medians['dumps']:.3f}",
         f"{figures['reply_bytes']:,} bytes"],
        ["the reply from JSON (grader)", f"{medians['loads']:.3f}", "not the worker's"],
        ["the worker's path in one (traced search + packed_trace + dumps)",
         f"{medians['worker path']:.3f}", ""],
        ["the real worker, one request (its process's CPU)",
         f"{figures['real_worker_median']:.3f}", "protocol, checks, capture included"],
    ]
    print(f"full tic-tac-toe minimax, correct solution: {figures['generated']:,} generated, "
          f"{figures['evaluated']:,} evaluated, {figures['distinct_ids']:,} distinct ids; "
          f"CPU s, medians of {runs}; load {load_average()}")
    print(table(rows, ["stage", "CPU s", "note"]))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    figures = worker_cost(args.runs)
    figures["catches"] = catches()
    print(json.dumps({k: v for k, v in figures.items() if k != "samples"}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
