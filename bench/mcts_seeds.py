"""What a grade's MCTS tests cost, paired against another checkout: ``python bench/mcts_seeds.py
--base TREE [--runs N]``.

Grades the correct solution on every case listing ``mcts`` (public and hidden: the outcome
tests, 20 seeds each, and the trace tests) in this checkout and in ``TREE`` (a checkout of the
code to compare with, e.g. ``git worktree add /tmp/base BASE``), alternating, ``N`` runs each.
Each run is a fresh process with that checkout's code on ``PYTHONPATH`` (and its own answer
cache) that grades the cases once to warm the cache and its memos, then once measured: the
grader's CPU (``time.process_time``) and its workers' (``RUSAGE_CHILDREN``, every worker of the
grade reaped by its end, so their start-ups are in), and the worker requests the grade made
(``Worker._exchange`` calls). Prints each run and the medians. Issue 45: an MCTS outcome test's
seeds went from a request each to one request (``Worker.run_seeds``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
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
