"""The benchmark's sections. Each returns plain data (for bench/results.json) and prints a table.

The "student" is ``tests/submissions/correct/search.py``, a careful student's correct solution
(the sandbox refuses ``import reference``, so the reference itself cannot be submitted). The
reference's "own time" is ``reference/`` called directly on the untraced game.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.measure import (
    GRADER,
    PYTHON,
    REPO,
    median_measured,
    run_measured,
    table,
    timed,
    timed_both,
)

CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
# `grader ARGS` in this process: the grader's own peak and its worker's, apart (MB)
SPLIT = """
import json, resource, sys
from grader.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
peak = {who: resource.getrusage(which).ru_maxrss // 1024 for who, which in
        (("grader", resource.RUSAGE_SELF), ("worker", resource.RUSAGE_CHILDREN))}
print(json.dumps(peak))
"""
CASE_DIRS = [REPO / "trees" / "public", REPO / "trees" / "hidden"]


def grade_all(runs: int, cache: Path) -> dict[str, Any]:
    """``grader grade`` of the correct submission on every case (public + hidden)."""
    env = {"GRADER_CACHE": str(cache)}
    with tempfile.TemporaryDirectory() as scratch:
        command = [*GRADER, "grade", "--submission", str(CORRECT), "--hidden",
                   "--results", str(Path(scratch) / "results.json")]
        cold = run_measured(command, env=env)  # computes and caches every reference answer
        warm = median_measured(command, runs, env=env)
        parallel = median_measured([*command, "--jobs", "2"], runs, env=env)  # two workers
        split = subprocess.run([PYTHON, "-c", SPLIT, *command[len(GRADER):]], cwd=REPO,
                               capture_output=True, text=True, env={**os.environ, **env})
    split_mb = json.loads(split.stdout.strip().splitlines()[-1]) if split.returncode == 0 \
        else {"error": split.stderr[-500:]}
    imports = median_measured([PYTHON, "-c", "import grader.cli, grader.report.gradescope, "
                               "grader.scoring.grade, grader.sandbox.client"], runs)
    print(table([["cold answer key", f"{cold['wall']:.2f}", f"{cold['peak_mb']:.0f}"],
                 [f"warm (median of {runs})", f"{warm['wall']:.2f}", f"{warm['peak_mb']:.0f}"],
                 ["warm, --jobs 2", f"{parallel['wall']:.2f}", f"{parallel['peak_mb']:.0f}"],
                 ["of which: interpreter + imports", f"{imports['wall']:.2f}",
                  f"{imports['peak_mb']:.0f}"]],
                ["grader grade, all cases", "wall s", "peak MB"]))
    print(f"CPU seconds (grader + worker): cold {cold['cpu']:.2f}, warm {warm['cpu']:.2f}, "
          f"warm with --jobs 2 {parallel['cpu']:.2f}")
    print("peak MB is the larger of the grader's and its worker's (RUSAGE_CHILDREN); warm, "
          f"apart: grader {split_mb.get('grader', '?')}, worker {split_mb.get('worker', '?')}")
    return {"cold": cold, "warm": warm, "warm_jobs_2": parallel, "interpreter_and_imports": imports,
            "warm_peak_mb_apart": split_mb, "target_wall": 5.0, "target_peak_mb": 100}


def import_student(path: Path) -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location("bench_student", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return vars(module)


def run_seeds(case: Any, algorithm: str, rubric: Any) -> list[int]:
    """The MCTS seeds the grader runs the case's test with (one for every other algorithm)."""
    if algorithm == "mcts" and case.mcts.check == "outcome":
        count = case.mcts.seeds or rubric.settings_for(case, algorithm).outcome_seeds
        return list(range(case.mcts.seed, case.mcts.seed + count))
    return [case.mcts.seed]


def own_run(functions: Any, case: Any, game: Any, algorithm: str, seeds: list[int]) -> Any:
    """The algorithm on the untraced game, as the grader would call it (every seed it runs)."""
    from grader.run.runner import function_name

    function = functions[function_name(algorithm, game)]
    root = game.initial_state()
    if algorithm == "iterative_deepening":  # the calls of grader.run.runner.run_algorithm
        return function(game, root, game.depth_limit)
    if algorithm == "alpha_beta_tt":
        return function(game, root, {})  # a fresh transposition table each call
    if algorithm != "mcts":
        return function(game, root)
    mcts = case.mcts
    return [function(game, root, mcts.iterations, random.Random(seed), mcts.c) for seed in seeds]


def per_case(runs: int, cache: Path) -> dict[str, Any]:
    """Per test: grading time (warm worker, cached answers) against the reference's own time."""
    import reference
    from grader.answers.store import AnswerKey
    from grader.cases import find_cases, load_case
    from grader.cases.rubric import load_rubric
    from grader.sandbox.client import Worker
    from grader.sandbox.limits import Limits
    from grader.scoring.pair import accepted_rules, grade_pair

    rubric = load_rubric()
    key_s, answers = timed(lambda: AnswerKey(cache=cache / "answer-key.json"), runs)
    student = import_student(CORRECT)
    load_s, cases = timed(lambda: [load_case(path) for path in find_cases(CASE_DIRS)], runs)
    rows = []
    with Worker(CORRECT, limits=Limits()) as worker:
        worker.start()
        for case in cases:
            game = case.build_game()
            for algorithm in case.algorithms:
                if algorithm == "evaluate":
                    continue  # graded by play, not against a reference run: bench/play.py
                settings = rubric.settings_for(case, algorithm)
                seeds = run_seeds(case, algorithm, rubric)
                rule = next(r for r in accepted_rules(case.pruning, settings.pruning)
                            if r in ("inclusive", "strict"))  # a rubric may say "either"
                functions = reference.reference_functions(rule)
                own, own_cpu, _ = timed_both(
                    lambda: own_run(functions, case, game, algorithm, seeds), runs)
                mine, mine_cpu, _ = timed_both(
                    lambda: own_run(student, case, game, algorithm, seeds), runs)
                graded, graded_cpu, test = timed_both(  # CPU: the grader's and the worker's
                    lambda: grade_pair(case, algorithm, "1.1", rubric, worker, answers), runs,
                    lambda: worker._cpu)
                rows.append({"test": f"{algorithm}: {case.name}", "reference_s": own,
                             "student_s": mine, "grade_s": graded, "passed": test.passed,
                             "ratio": graded / own, "grader_ratio": graded / mine,
                             "reference_cpu_s": own_cpu, "student_cpu_s": mine_cpu,
                             "grade_cpu_s": graded_cpu, "cpu_ratio": graded_cpu / own_cpu})
        starts = worker.starts
    startup = []
    for _ in range(runs + 2):
        with Worker(CORRECT, limits=Limits()) as fresh:
            fresh.start()
            startup.append(fresh.startup_seconds)
    slow = [row for row in rows if row["reference_s"] > 0.1]
    shown = sorted(rows, key=lambda row: -row["reference_s"])[:12]
    print(table([[r["test"][:44], f"{1000 * r['reference_s']:.1f}", f"{1000 * r['student_s']:.1f}",
                  f"{1000 * r['grade_s']:.1f}", f"{r['ratio']:.2f}", f"{r['grader_ratio']:.2f}",
                  f"{r['cpu_ratio']:.2f}"] for r in shown],
                ["test (12 slowest for the reference)", "ref ms", "student ms", "grade ms",
                 "grade/ref", "grade/student", "grade/ref CPU"]))
    startup_s = statistics.median(startup)
    summary = {
        "tests": len(rows), "all_passed": all(r["passed"] for r in rows),
        "total_grade_s": sum(r["grade_s"] for r in rows),
        "total_reference_s": sum(r["reference_s"] for r in rows),
        "slow_tests": [r["test"] for r in slow],
        "worst_ratio_over_100ms": max((r["ratio"] for r in slow), default=None),
        "worst_grader_ratio_over_100ms": max((r["grader_ratio"] for r in slow), default=None),
        "worst_cpu_ratio_over_100ms": max((r["cpu_ratio"] for r in slow), default=None),
        "load_cases_s": load_s, "load_answer_key_s": key_s,
        "worker_startup_s": startup_s, "worker_starts_in_run": starts,
        "startup_per_test_ms": 1000 * startup_s * starts / max(len(rows), 1),
        "median_overhead_small_ms": 1000 * statistics.median(
            r["grade_s"] - r["student_s"] for r in rows if r["reference_s"] <= 0.1),
    }
    print(f"loading {len(cases)} cases {load_s:.2f} s, the answer key {key_s:.2f} s, grading "
          f"{len(rows)} tests {summary['total_grade_s']:.2f} s (the reference alone: "
          f"{summary['total_reference_s']:.2f} s)")
    print(f"worker start-up {1000 * startup_s:.0f} ms, {starts} start(s) for {len(rows)} tests: "
          f"{summary['startup_per_test_ms']:.2f} ms a test; median grading overhead on tests "
          f"under 100 ms: {summary['median_overhead_small_ms']:.2f} ms")
    return {"rows": rows, **summary}


def tracing(runs: int, sizes: list[int]) -> dict[str, Any]:
    """Traced against untraced reference minimax: full tic-tac-toe and random trees."""
    import reference
    from bench.trees import random_tree_game
    from reference.minimax import max_value
    from grader.games import builtin_game
    from grader.run.runner import run_algorithm
    from grader.run.tracing import traced

    games = [("tic-tac-toe, empty board", lambda: builtin_game("tictactoe"))]
    games += [(f"random tree, {size:,} nodes", lambda size=size: random_tree_game(size))
              for size in sizes]
    results = []
    for label, make in games:
        built, game = timed(make, 1)
        root = game.initial_state()
        functions = reference.reference_functions()

        def hot(game=game, root=root):
            wrapper, trace = traced(game)
            max_value(wrapper, root)
            return trace

        samples: list[list[float]] = [[], [], []]
        cpu: list[list[float]] = [[], [], []]
        trace = result = None
        for _ in range(runs):  # interleaved, so a change in the machine's load hits all three
            for i, function in enumerate((lambda: max_value(game, root), hot,
                                          lambda: run_algorithm(functions, game, "minimax"))):
                before = time.process_time()
                seconds, result = timed(function, 1)
                cpu[i].append(time.process_time() - before)
                samples[i].append(seconds)
                trace = result if i == 1 else trace
        untraced, recorded, full = (statistics.median(sample) for sample in samples)
        cpu_untraced, cpu_traced, cpu_full = (statistics.median(sample) for sample in cpu)
        results.append({"game": label, "generated": len(trace.generated),
                        "evaluated": len(trace.evaluated), "build_s": built,
                        "untraced_s": untraced, "traced_s": recorded, "traced_ids_s": full,
                        "ratio": recorded / untraced, "ratio_ids": full / untraced,
                        "cpu_untraced_s": cpu_untraced, "cpu_traced_s": cpu_traced,
                        "cpu_traced_ids_s": cpu_full, "cpu_ratio": cpu_traced / cpu_untraced,
                        "cpu_ratio_ids": cpu_full / cpu_untraced})
        del trace, game, result
    print(table([[r["game"], f"{r['generated']:,}", f"{r['untraced_s']:.3f}",
                  f"{r['traced_s']:.3f}", f"{r['traced_ids_s']:.3f}", f"{r['ratio']:.2f}",
                  f"{r['ratio_ids']:.2f}", f"{r['cpu_ratio_ids']:.2f}"] for r in results],
                ["reference minimax on", "generated", "untraced s", "traced s", "+ids s",
                 "traced/untraced", "+ids/untraced", "same, CPU time"]))
    return {"rows": results, "target_ratio": 1.5}
