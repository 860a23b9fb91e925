"""Where one ``grader grade --hidden`` of the correct solution spends CPU: the grader and its worker.

``python bench/profile_grade.py [--top N] [--submission P]`` (or ``bench/run.py --only profile``).
The grade runs in this process, as ``grader grade`` runs it (same rubric, every public and
hidden case, a warm answer cache), with:

* the grader's CPU split by test kind (the ``grade_pair`` calls of each algorithm, and for
  ``evaluate`` the matches played ahead of its tests, ``play_ahead``, whose worker requests are
  most of its cost), and the rest: loading cases and the answer key, naming mistakes, writing
  results (``time.process_time``);
* the worker's CPU split the same way, read from ``/proc/<pid>/stat`` before and after each test
  (the worker of a submission serves every test; a fresh one after a time-out is counted from 0),
  its start-ups apart (the import and calibration, before the first request);
* the grader's hottest functions (``cProfile``, own time, the top ``N``).

Figures are CPU seconds, not wall: other work on the machine changes them little.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.measure import load_average, table  # noqa: E402

CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
CASE_DIRS = [REPO / "trees" / "public", REPO / "trees" / "hidden"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def profile_grade(submission: Path = CORRECT, top: int = 15) -> dict[str, Any]:
    """One in-process grade of ``submission`` on every case, its CPU split as the module says.
    The answer cache (``$GRADER_CACHE``, else the default) is filled first, by a grade not
    measured."""
    from grader.cases.rubric import load_rubric
    from grader.sandbox import client
    from grader.sandbox.watch import process_cpu
    from grader.scoring import grade as grading

    rubric = load_rubric()
    grading.grade(submission, CASE_DIRS, rubric=rubric)  # warm: answers, variants' runs
    per_kind: dict[str, dict[str, float]] = defaultdict(
        lambda: {"tests": 0, "grader_cpu": 0.0, "worker_cpu": 0.0})
    starts: list[float] = []
    real_grade_pair, real_start = grading.grade_pair, client.Worker.start
    real_play_ahead = grading.play_ahead

    def counted_start(worker: Any) -> None:
        fresh = worker._proc is None  # noqa: SLF001 (the bench reads what it measures)
        real_start(worker)
        if fresh and worker.pid is not None:
            starts.append(process_cpu(worker.pid) or 0.0)

    def counted_pair(case: Any, algorithm: str, number: str, rubric: Any, worker: Any,
                     *args: Any, **kwargs: Any) -> Any:
        return counted(algorithm, worker, lambda: real_grade_pair(
            case, algorithm, number, rubric, worker, *args, **kwargs), test=True)

    def counted_ahead(worker: Any, cases: list, rubric: Any) -> Any:
        return counted("evaluate", worker, lambda: real_play_ahead(worker, cases, rubric))

    def counted(algorithm: str, worker: Any, call: Any, test: bool = False) -> Any:
        worker.start()  # a start is counted apart, not in the test that needed it
        pid = worker.pid
        before = process_cpu(pid) if pid else None
        grader_before = time.process_time()
        test_result = call()
        grader_cpu = time.process_time() - grader_before
        after = process_cpu(worker.pid) if worker.pid else None
        if worker.pid == pid and before is not None and after is not None:
            used = after - before
        else:  # a fresh worker (or none left): what the new one used since its start
            used = (after or 0.0) - (starts[-1] if worker.pid != pid and starts else 0.0)
        kind = per_kind["play (evaluate)" if algorithm == "evaluate" else algorithm]
        kind["tests"] += 1 if test else 0
        kind["grader_cpu"] += grader_cpu
        kind["worker_cpu"] += max(used, 0.0)
        return test_result

    grading.grade_pair, client.Worker.start = counted_pair, counted_start
    grading.play_ahead = counted_ahead
    children, own = _children_cpu(), time.process_time()
    try:
        results = grading.grade(submission, CASE_DIRS, rubric=rubric)
    finally:
        grading.grade_pair, client.Worker.start = real_grade_pair, real_start
        grading.play_ahead = real_play_ahead
    grader_total = time.process_time() - own
    worker_total = _children_cpu() - children  # every worker of the grade, reaped by now
    in_tests = sum(k["grader_cpu"] for k in per_kind.values())
    worker_in_tests = sum(k["worker_cpu"] for k in per_kind.values())
    rows = [[name, int(k["tests"]), f"{k['grader_cpu']:.2f}", f"{k['worker_cpu']:.2f}",
             f"{k['grader_cpu'] + k['worker_cpu']:.2f}"]
            for name, k in sorted(per_kind.items(), key=lambda item: -sum(
                (item[1]["grader_cpu"], item[1]["worker_cpu"])))]
    rows.append(["worker start-up (import, calibration)", len(starts), "",
                 f"{sum(starts):.2f}", f"{sum(starts):.2f}"])
    rows.append(["the rest (cases, key, names, results)", "", f"{grader_total - in_tests:.2f}",
                 f"{max(worker_total - worker_in_tests - sum(starts), 0.0):.2f}", ""])
    rows.append(["all", len(results.tests), f"{grader_total:.2f}", f"{worker_total:.2f}",
                 f"{grader_total + worker_total:.2f}"])
    print(table(rows, ["tests", "count", "grader CPU s", "worker CPU s", "sum"]))
    profiler = cProfile.Profile(time.process_time)  # a third grade, under the profiler (its own cost doubles it)
    profiler.enable()
    grading.grade(submission, CASE_DIRS, rubric=rubric)
    profiler.disable()
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(top)
    hottest = [line for line in text.getvalue().splitlines() if line.strip()][-top - 1:]
    print(f"the grader's {top} hottest functions (own time; a third grade, under cProfile):")
    print("\n".join(hottest))
    return {"per_kind": dict(per_kind), "worker_starts": len(starts),
            "worker_start_cpu": starts, "grader_cpu": grader_total,
            "worker_cpu": worker_total, "score": results.score, "max_score": results.max_score,
            "hottest": hottest, "load_average": load_average()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=15, help="hottest grader functions shown")
    parser.add_argument("--submission", type=Path, default=CORRECT)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
        os.environ.setdefault("GRADER_CACHE", cache)
        figures = profile_grade(args.submission, args.top)
    print(json.dumps({k: v for k, v in figures.items() if k != "hottest"}, default=str)[:2000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
