"""The correct solution's own work in one grade: ``python bench/floor.py [--runs N]``.

What no grader of these cases can spend less than: the CPU the correct solution
(``tests/submissions/correct/search.py``) needs to do what ``grader grade --hidden`` asks of it,
with no grader around it:

* every test but the ``evaluate`` ones: the function called at the case's root on the untraced
  game, as the grader calls it (every MCTS seed it runs; a fresh table for ``alpha_beta_tt``);
* the ``evaluate`` cases: the solution's ``evaluate`` on exactly the positions a grade asks it
  for (recorded from one grade: the matches' cutoff positions the search does not prune, each
  distinct position once, as the grader caches values by position), on the plain game;
* the ``assumptions`` cases, which call no stub of their own: the solution's search (its
  ``alpha_beta`` or ``expectimax``) on exactly the child positions a grade asks it to value
  (recorded from the same grade, each request the worker got), on the plain game;
* a bare interpreter's start (``python -c pass``).

The grade's CPU less this floor is the grader's own cost (tracing, the sandbox, comparing,
the staff's side of the matches, feedback). :mod:`bench.cs188` prints the floor beside its
paired ratio: a target below the floor's ratio cannot be met by grading faster, only by asking
the solution for less work (fewer or smaller cases, fewer matches).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.measure import PYTHON, load_average, table  # noqa: E402

CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
CASE_DIRS = [REPO / "trees" / "public", REPO / "trees" / "hidden"]


def asked_work(cases: list[Any]) -> tuple[list[tuple[Any, list[str]]], list[tuple[Any, str]]]:
    """What one grade of the correct solution on the cases graded by play asks of it, in order:
    ``(game, ids)`` of every ``evaluate`` request (the grader's cache already dropped repeats),
    and ``(case, algorithm)`` of every search request (the ``assumptions`` cases' child
    positions, each a case of its own). Cases graded by play only are given."""
    from grader.cases import case_from_checked
    from grader.cases.rubric import load_rubric
    from grader.sandbox.client import Worker
    from grader.scoring.grade import grade

    builds = {json.dumps([case.game, case.params], sort_keys=True): case for case in cases}
    asked: list[tuple[Any, list[str]]] = []
    searched: list[tuple[Any, str]] = []
    original_evaluate, original_run = Worker.evaluate, Worker.run

    def recording(self: Worker, game: str, params: dict, ids: list[str], **options: Any) -> Any:
        asked.append((json.dumps([game, params], sort_keys=True), list(ids)))
        return original_evaluate(self, game, params, ids, **options)

    def recording_run(self: Worker, case: Any, algorithm: str, **options: Any) -> Any:
        data = case.public_dict() if hasattr(case, "public_dict") else dict(case)
        searched.append((case_from_checked(data, None), algorithm))
        return original_run(self, case, algorithm, **options)

    Worker.evaluate, Worker.run = recording, recording_run  # type: ignore[method-assign]
    try:
        grade(CORRECT.parent, [case.path for case in cases], rubric=load_rubric())
    finally:
        Worker.evaluate, Worker.run = original_evaluate, original_run  # type: ignore[method-assign]
    return [(builds[key].build_game(), ids) for key, ids in asked], searched


def floor(runs: int = 3) -> dict[str, Any]:
    """The floor's CPU seconds by algorithm (medians of ``runs``), their sum, and the bare
    interpreter's start."""
    from bench.sections import import_student, own_run, run_seeds
    from grader.algorithms import get as get_algorithm
    from grader.algorithms import names as algorithm_names
    from grader.cases import find_cases, load_case
    from grader.cases.rubric import load_rubric

    rubric = load_rubric()
    student = import_student(CORRECT)
    cases = [load_case(path) for path in find_cases(CASE_DIRS)]
    by_play = {name for name in algorithm_names() if get_algorithm(name).by_play}
    plays = [case for case in cases if by_play & set(case.algorithms)]
    asked, searched = asked_work(plays)
    positions = [(game, [game.state_from_id(i) for i in ids]) for game, ids in asked]
    evaluate = student["evaluate"]

    def play() -> None:
        for game, states in positions:
            for state in states:
                evaluate(game, state)

    work: dict[str, list] = defaultdict(list)  # algorithm -> the calls of its tests
    for case in cases:
        game = case.build_game()
        for algorithm in case.algorithms:
            if algorithm not in by_play:  # those below: what their grade asked for
                seeds = run_seeds(case, algorithm, rubric)
                work[algorithm].append(
                    lambda c=case, g=game, a=algorithm, s=seeds: own_run(student, c, g, a, s))
    work["evaluate"] = [play]
    for child, algorithm in searched:  # the assumptions cases' searches, one a child position
        game = child.build_game()
        work["assumptions"].append(  # a child's search, as the worker calls it: one seed
            lambda c=child, g=game, a=algorithm: own_run(student, c, g, a, [c.mcts.seed]))
    by_kind = {}
    for kind, calls in work.items():
        samples = []
        for _ in range(runs):
            started = time.process_time()
            for call in calls:
                call()
            samples.append(time.process_time() - started)
        by_kind[kind] = statistics.median(samples)
    starts = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([PYTHON, "-c", "pass"], check=True)
        starts.append(time.perf_counter() - started)
    interpreter = statistics.median(starts)  # wall of a process doing nothing: about its CPU
    total = sum(by_kind.values()) + interpreter
    print(table([[kind, f"{seconds:.3f}"] for kind, seconds in
                 sorted(by_kind.items(), key=lambda item: -item[1])]
                + [["interpreter start", f"{interpreter:.3f}"], ["all", f"{total:.2f}"]],
                ["the correct solution's own work", "CPU s"]))
    print(f"{sum(len(ids) for _, ids in positions):,} positions evaluated, {len(searched):,} "
          f"child positions searched (assumptions); load average {load_average()}")
    return {"by_kind": by_kind, "interpreter_s": interpreter, "total_cpu_s": total,
            "positions": sum(len(states) for _, states in positions),
            "assumptions_searches": len(searched), "runs": runs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs a figure's median takes")
    floor(parser.parse_args(argv).runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
