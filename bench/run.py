"""The benchmarks: ``python bench/run.py [--quick] [--only SECTION ...]``.

Prints a table a section and writes every figure to ``bench/results.json`` (gitignored; with
``--only``, the other sections' figures already there are kept). Each
figure is the median of several runs (``--quick``: fewer runs, smaller trees, a smaller batch).
Sections: ``grade`` (``grader grade`` on every case, as a subprocess), ``cases`` (per test:
grading time against the reference's own time; worker start-up), ``tracing`` (traced against
untraced search), ``big`` (loading a 10^6-node case file; the deepest tree that loads),
``batch`` (``grader batch`` on 50 mixed submissions, hostile ones included, 2 jobs),
``class_report`` (that batch, then ``grader report --class`` on its output: time against the
batch's, sizes, Chromium's console; the report and the batch's output kept in ``bench/class-report/``),
``batch_issue`` (the same on issue 19's mix: correct, never-prunes, strict-pruning,
chance-as-min), ``batch_issue_traces`` (that mix on every case but the ``evaluate`` ones,
which are graded by play: the cases issue 19 measured), ``autograder`` (``run_autograder`` in a fresh /autograder-like tree: the first
submission against a warm one, bench/autograder.py), ``autograder_jobs`` (the same with one
worker against two, and whether their results agree), ``worker_cost`` (where the worker's CPU
goes on the full tic-tac-toe minimax case, bench/worker_cost.py), ``profile`` (where one grade
spends CPU, grader and worker, bench/profile_grade.py), ``memory`` (where that grade's peak
memory comes from, stage by stage, bench/memory.py), ``floor`` (the correct solution's own
work in a grade, no grader around it: bench/floor.py), ``cs188`` (this grader against
CS188's multi-agent autograder, paired, bench/cs188.py: skipped, saying why, without
CS188's project: ``--cs188 DIR`` once, then it is cached). ``--rubric FILE``: the batch sections
under a course's own rubric (what a lower ``time_floor`` or fewer ``[play] matches`` buy).

The answer cache is a fresh temporary folder (``GRADER_CACHE``): the ``grade`` section's first
run computes it (the "cold" figure), every later run reads it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
VENV_PYTHON = REPO / ".venv" / "bin" / "python"
try:
    import grader  # noqa: F401
except ImportError:  # run with a Python outside the project's venv: use the venv's
    if VENV_PYTHON.exists() and Path(sys.executable) != VENV_PYTHON:
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), *sys.argv])
    raise

from bench import (  # noqa: E402
    autograder, cs188, floor, memory, profile_grade, scale, sections, worker_cost)
from bench.measure import load_average  # noqa: E402

SECTIONS = ("grade", "cases", "tracing", "big", "batch", "class_report", "batch_issue",
            "batch_issue_traces",
            "autograder", "autograder_jobs", "worker_cost", "profile", "memory", "floor",
            "cs188")
RESULTS = REPO / "bench" / "results.json"
CLASS_REPORT = REPO / "bench" / "class-report"  # the class_report section's report, kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, smaller inputs")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--out", type=Path, default=RESULTS, help="the JSON file to write")
    parser.add_argument("--jobs", type=int, default=2, help="grader batch --jobs (default 2)")
    parser.add_argument("--rubric", type=Path, default=None,
                        help="the batch sections' rubric (default trees/rubric.toml): what a "
                        "course's own time_floor or [play] matches cost")
    parser.add_argument("--cs188", type=Path, default=None,
                        help="CS188's multiagent project, for the cs188 section (then cached)")
    args = parser.parse_args(argv)
    if args.rubric is not None:
        args.rubric = args.rubric.resolve()  # the batch runs from the repository's root
    quick = args.quick
    runs = 3 if quick else 5
    figures: dict = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "load_average_at_start": load_average()},
        "quick": quick, "started": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache_name:
        cache = Path(cache_name)
        os.environ["GRADER_CACHE"] = str(cache)  # in-process sections read the same cache
        plan = {
            "grade": lambda: sections.grade_all(runs, cache),
            "cases": lambda: sections.per_case(1 if quick else 3, cache),
            "tracing": lambda: sections.tracing(
                1 if quick else 3, [10**5] if quick else [10**5, 10**6]),
            "big": lambda: scale.big_cases(
                [(10**5, 1)] if quick else [(10**5, 3), (10**6, 1)], timeout=900),
            "batch": lambda: scale.batch(
                {"correct": 4, "wrong": 3, "hostile": 3} if quick
                else {"correct": 15, "wrong": 20, "hostile": 15}, args.jobs, cache,
                rubric=args.rubric),
            "class_report": lambda: scale.batch(
                {"correct": 4, "wrong": 3, "hostile": 3} if quick
                else {"correct": 15, "wrong": 20, "hostile": 15}, args.jobs, cache,
                rubric=args.rubric, class_report=CLASS_REPORT),
            "autograder": lambda: autograder.first_submission(runs, cache),
            "autograder_jobs": lambda: autograder.workers(runs, cache),
            "worker_cost": lambda: worker_cost.worker_cost(runs),
            "batch_issue": lambda: scale.batch(scale.ISSUE_MIX, args.jobs, cache,
                                               rubric=args.rubric),
            "batch_issue_traces": lambda: scale.batch(scale.ISSUE_MIX, args.jobs, cache,
                                                      scale.trace_cases(), rubric=args.rubric),
            "profile": lambda: profile_grade.profile_grade(),
            "memory": lambda: memory.section(),
            "floor": lambda: floor.floor(1 if quick else 3),
            "cs188": lambda: _cs188(args.cs188, runs, cache),
        }
        if "cases" in args.only and "grade" not in args.only:
            _warm(cache)
        for name in SECTIONS:
            if name not in args.only:
                continue
            print(f"\n== {name} (load average {load_average()}) ==", flush=True)
            started = time.perf_counter()
            figures[name] = plan[name]()
            figures[name]["section_seconds"] = round(time.perf_counter() - started, 1)
            figures[name]["load_average_after"] = load_average()
    if set(args.only) != set(SECTIONS) and args.out.exists():  # keep the other sections' figures
        figures = {**json.loads(args.out.read_text()), **figures}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=2, default=str) + "\n")
    print(f"\nfigures written to {args.out}")
    return 0


def _cs188(given: Path | None, runs: int, cache: Path) -> dict:
    """The paired comparison, or why it was skipped (no CS188 project given or cached)."""
    try:
        folder = cs188.cs188_folder(given)
    except SystemExit as reason:
        print(f"skipped: {reason}")
        return {"skipped": str(reason)}
    return cs188.paired(folder, runs, cache)


def _warm(cache: Path) -> None:
    """Compute the answer key into ``cache`` (what the grade section's cold run does)."""
    from grader.answers.store import AnswerKey
    from grader.cases import find_cases, load_case
    from grader.cases.rubric import load_rubric
    from grader.scoring.grade import prepare_answers

    answers = AnswerKey(cache=cache / "answer-key.json")
    cases = [load_case(p) for p in find_cases(sections.CASE_DIRS)]
    prepare_answers(cases, load_rubric(), answers)
    answers.save()


if __name__ == "__main__":
    sys.exit(main())
