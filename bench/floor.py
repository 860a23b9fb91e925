"""The correct solution's own work in one grade: ``python bench/floor.py [--runs N]``.

What no grader of these cases can spend less than: the CPU the correct solution
(``tests/submissions/correct/search.py``) needs to do what ``grader grade --hidden`` asks of it,
with no grader around it:

* every test but the ``evaluate`` ones: the function called at the case's root on the untraced
  game, as the grader calls it (every MCTS seed it runs; a fresh table for ``alpha_beta_tt``);
* the ``evaluate`` cases: the solution's ``evaluate`` on exactly the positions a grade asks it
  for (recorded from one grade: the matches' cutoff positions the search does not prune, each
  distinct position once, as the grader caches values by position), on the plain game;
* the ``assumptions`` cases: the agent's search on each child position its matches ask the
  value of (the reference agent's matches: a correct agent's), once, on the plain game;
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.measure import PYTHON, load_average, table  # noqa: E402

CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
CASE_DIRS = [REPO / "trees" / "public", REPO / "trees" / "hidden"]


def asked_positions(cases: list[Any]) -> list[tuple[Any, list[str]]]:
    """``(game, ids)`` of every evaluate request one grade of the correct solution makes on the
    ``evaluate`` cases, in order (the grader's cache already dropped repeats)."""
    from grader.cases.rubric import load_rubric
    from grader.sandbox.client import Worker
    from grader.scoring.grade import grade

    builds = {json.dumps([case.game, case.params], sort_keys=True): case for case in cases}
    asked: list[tuple[Any, list[str]]] = []
    original = Worker.evaluate

    def recording(self: Worker, game: str, params: dict, ids: list[str], **options: Any) -> Any:
        asked.append((json.dumps([game, params], sort_keys=True), list(ids)))
        return original(self, game, params, ids, **options)

    Worker.evaluate = recording  # type: ignore[method-assign]
    try:
        grade(CORRECT.parent, [case.path for case in cases], rubric=load_rubric())
    finally:
        Worker.evaluate = original  # type: ignore[method-assign]
    return [(builds[key].build_game(), ids) for key, ids in asked]


def assumption_children(case: Any, rubric: Any) -> tuple[str, list[Any]]:
    """(the algorithm, the games) of an ``assumptions`` case's asked children: each child a
    correct agent's matches ask the value of, once, as the game the student's search gets
    (the ghost typed by the agent's assumption, ``depth_limit`` depth - 1)."""
    from grader.algorithms.assumptions import GHOST_TYPES
    from grader.games.chase import Chase
    from grader.scoring.assumptions import ahead_of, plan

    setup = plan(case, rubric)
    ghost, depth = GHOST_TYPES[setup["agent"]], setup["depth"] - 1
    return setup["algorithm"], [Chase(child, ghost=ghost, turns=setup["turns"],
                                      depth_limit=depth) for child in ahead_of(setup)]


def own_work(cases: list[Any], rubric: Any, student: dict[str, Any]
             ) -> dict[str, list[Callable[[], Any]]]:
    """The solution's own calls of every test but the ``evaluate`` ones, by algorithm, as the
    module docstring says (a case's game built once here: every MCTS seed runs on it)."""
    from bench.sections import own_run, run_seeds

    work: dict[str, list[Callable[[], Any]]] = defaultdict(list)
    for case in cases:
        game = case.build_game()
        for algorithm in case.algorithms:
            if algorithm == "assumptions":
                searched, games = assumption_children(case, rubric)
                work[algorithm].append(
                    lambda c=case, a=searched, gs=games: [own_run(student, c, g, a, [0])
                                                          for g in gs])
            elif algorithm != "evaluate":
                seeds = run_seeds(case, algorithm, rubric)
                work[algorithm].append(
                    lambda c=case, g=game, a=algorithm, s=seeds: own_run(student, c, g, a, s))
    return work


def floor(runs: int = 3) -> dict[str, Any]:
    """The floor's CPU seconds by algorithm (medians of ``runs``), their sum, and the bare
    interpreter's start."""
    from bench.sections import import_student
    from grader.cases import find_cases, load_case
    from grader.cases.rubric import load_rubric

    rubric = load_rubric()
    student = import_student(CORRECT)
    cases = [load_case(path) for path in find_cases(CASE_DIRS)]
    plays = [case for case in cases if "evaluate" in case.algorithms]
    positions = [(game, [game.state_from_id(i) for i in ids])
                 for game, ids in asked_positions(plays)]
    evaluate = student["evaluate"]

    def play() -> None:
        for game, states in positions:
            for state in states:
                evaluate(game, state)

    work = own_work(cases, rubric, student)
    work["evaluate"] = [play]
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
    print(f"{sum(len(ids) for _, ids in positions):,} positions evaluated; "
          f"load average {load_average()}")
    return {"by_kind": by_kind, "interpreter_s": interpreter, "total_cpu_s": total,
            "positions": sum(len(states) for _, states in positions), "runs": runs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs a figure's median takes")
    floor(parser.parse_args(argv).runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
