"""What an MCTS outcome test's seeds cost, a request each or in one: ``python
bench/mcts_seeds.py [--base TREE] [--runs N] [--repeats R]``.

**The seeds' requests** (always): one worker of the correct solution answers the 20 seeds of
each outcome case (public and hidden) ``R`` times each way, alternating: a request a seed
(``Worker.run``, ``trace_limit=1``, as the grader asked before) and one request for all
(``Worker.run_seeds``); the worker's CPU (``/proc/<pid>/stat``, 10 ms ticks: hence the
repeats) and the grader's (``time.process_time``) a case's 20 seeds, means, and whether both
ways chose the same moves.

**The MCTS tests of a grade, paired** (with ``--base``): grades the correct solution on every case listing ``mcts`` (public and hidden: the outcome
tests, 20 seeds each, and the trace tests) in this checkout and in ``TREE`` (a checkout of the
code to compare with, e.g. ``git worktree add /tmp/base BASE``), alternating, ``N`` runs each.
Each run is a fresh process with that checkout's code on ``PYTHONPATH`` (and its own answer
cache) that grades the cases once to warm the cache and its memos, then once measured: the
grader's CPU (``time.process_time``) and its workers' (``RUSAGE_CHILDREN``, every worker of the
grade reaped by its end, so their start-ups are in), and the worker requests the grade made
(``Worker._exchange`` calls). Prints each run and the medians (the workers' figure holds their
start-ups, about a quarter CPU second each, and varies with the machine's load by more than the
requests saved: the first part measures those alone). Issue 45: an MCTS outcome test's seeds
went from a request each to one request (``Worker.run_seeds``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# run in the measured process, with the checkout's code first on sys.path
MEASURE = """
import json, resource, sys, time
from pathlib import Path

root = Path(sys.argv[1])
from grader.cases.rubric import load_rubric
from grader.sandbox.client import Worker
from grader.scoring.grade import grade

cases = [path for folder in ("public", "hidden")
         for path in sorted((root / "trees" / folder).glob("*.json"))
         if "mcts" in json.loads(path.read_text()).get("algorithms", [])]
submission = root / "tests" / "submissions" / "correct" / "search.py"
rubric = load_rubric()
grade(submission, cases, rubric=rubric)  # warm: the answer cache, the checked-cases memo
requests = [0]
exchange = Worker._exchange

def counted(self, *args, **kwargs):
    requests[0] += 1
    return exchange(self, *args, **kwargs)

Worker._exchange = counted

def children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

workers, grader = children(), time.process_time()
results = grade(submission, cases, rubric=rubric)
print(json.dumps({"grader": time.process_time() - grader, "workers": children() - workers,
                  "requests": requests[0], "tests": len(results.tests),
                  "score": results.score}))
"""


def measure(root: Path) -> dict:
    """One measured grade of the MCTS cases with ``root``'s code (a process of its own)."""
    env = {key: value for key, value in os.environ.items() if key != "GRADER_CACHE"}
    env["PYTHONPATH"] = str(root)
    run = subprocess.run([sys.executable, "-c", MEASURE, str(root)], cwd=root, env=env,
                         check=True, capture_output=True, text=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def seed_requests(repeats: int) -> None:
    """The first part of the module docstring, in this process and one worker."""
    from dataclasses import replace

    from grader.answers.store import AnswerKey
    from grader.cases import load_case
    from grader.cases.rubric import load_rubric
    from grader.sandbox.client import Worker
    from grader.sandbox.watch import process_cpu
    from grader.scoring.budget import work_budget, worker_budget

    rubric = load_rubric()
    paths = [path for folder in ("public", "hidden")
             for path in sorted((REPO / "trees" / folder).glob("*.json"))
             if json.loads(path.read_text()).get("mcts", {}).get("check") == "outcome"]
    with Worker(REPO / "tests" / "submissions" / "correct" / "search.py") as worker:
        for path in paths:
            case = load_case(path)
            settings = rubric.settings_for(case, "mcts")
            reference = AnswerKey.default().reference(case, "mcts", "inclusive",
                                                      seed=case.mcts.seed)
            budget = worker_budget(work_budget(settings, [reference]))
            seeds = list(range(case.mcts.seed,
                               case.mcts.seed + (case.mcts.seeds or settings.outcome_seeds)))
            limits = {"budget": budget, "time_limit": settings.time_floor,
                      "time_multiple": settings.time_multiple}
            figures: dict[str, list[tuple[float, float]]] = {"alone": [], "batched": []}
            moves: dict[str, list] = {}
            for _ in range(repeats):
                for way in figures:
                    worker.start()
                    cpu, own = process_cpu(worker.pid) or 0.0, time.process_time()
                    if way == "alone":
                        moves[way] = [worker.run(case, "mcts", mcts=replace(case.mcts, seed=seed),
                                                 trace_limit=1, **limits).value for seed in seeds]
                    else:
                        moves[way] = worker.run_seeds(case, "mcts", mcts=case.mcts, seeds=seeds,
                                                      **limits).value
                    figures[way].append(((process_cpu(worker.pid) or 0.0) - cpu,
                                         time.process_time() - own))
            print(f"{path.stem}, {len(seeds)} seeds x {case.mcts.iterations} iterations "
                  f"(means of {repeats}):", flush=True)
            for way, rows in figures.items():
                print(f"  {way:8} worker {statistics.mean(r[0] for r in rows) * 1000:6.1f} ms, "
                      f"grader {statistics.mean(r[1] for r in rows) * 1000:5.1f} ms")
            print(f"  the same moves both ways: {moves['alone'] == moves['batched']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="the checkout to compare a grade's with")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=25)
    args = parser.parse_args(argv)
    seed_requests(args.repeats)
    if args.base is None:
        return 0
    runs: dict[str, list[dict]] = {"base": [], "this": []}
    for _ in range(args.runs):
        for name, root in (("base", args.base.resolve()), ("this", REPO)):
            figures = measure(root)
            runs[name].append(figures)
            print(name, json.dumps(figures), flush=True)
    for name, figures in runs.items():
        medians = {key: statistics.median(run[key] for run in figures)
                   for key in ("grader", "workers", "requests")}
        total = statistics.median(run["grader"] + run["workers"] for run in figures)
        print(f"{name}: grader {medians['grader']:.3f} + workers {medians['workers']:.3f} = "
              f"{total:.3f} CPU s (medians of {len(figures)}), {medians['requests']:.0f} "
              f"requests, {figures[0]['tests']} tests, score {figures[0]['score']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
