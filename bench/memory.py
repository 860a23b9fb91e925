"""Where one ``grader grade --hidden`` of the correct solution's peak memory comes from.

``python bench/memory.py [--submission P] [--cache FILE]`` (or ``bench/run.py --only memory``).
A fresh process grades as ``grader grade --hidden`` does and reads its own ``ru_maxrss`` (the
peak resident set, MB) after each stage: the bare interpreter; ``import grader.cli``; the
imports a grade makes (``grader.scoring.grade`` and the report writer); the answer key opened;
then after each test, every test that raised the peak named with what it added and the
resident set it started from (as ``grader
grade`` grades: glibc's mmap threshold fixed, each play case's game dropped after it). The worker's
own peak (``RUSAGE_CHILDREN``) is given apart: the bench's figure is the larger of the two.

The answer key is the one a warm bench run reads: a fresh cache filled by one grade of the
same submission first (``--cache FILE``: that file instead, a staff machine's cache say, which
may hold more entries than one submission needs).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
PYTHON = REPO / ".venv" / "bin" / "python"
if not PYTHON.exists():
    PYTHON = Path(sys.executable)

# Run in a fresh interpreter: only resource and sys imported before the first reading.
CHILD = r"""
import resource, sys
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
def now():  # the resident set at this moment (MB)
    with open("/proc/self/statm") as stat:
        return int(stat.read().split()[1]) * resource.getpagesize() / 2**20
stages = [("bare interpreter", peak())]
import grader.cli
stages.append(("import grader.cli", peak()))
import grader.scoring.grade as grading
import grader.report.gradescope
stages.append(("import grader.scoring.grade, the report", peak()))
from pathlib import Path
from grader.answers.store import AnswerKey
from grader.footprint import fix_mmap_threshold
fix_mmap_threshold()  # as grader grade does
answers = AnswerKey.default()
stages.append(("the answer key opened", peak()))
raised = []
real = grading.grade_pair
def counted(case, algorithm, *args, **kwargs):
    before, resident = peak(), now()
    test = real(case, algorithm, *args, **kwargs)
    after = peak()
    if after - before >= 0.5:
        raised.append((f"{algorithm}: {case.name}", after - before, after, resident))
    return test
grading.grade_pair = counted
repo = Path(sys.argv[2])
results = grading.grade(Path(sys.argv[1]), [repo / "trees" / "public", repo / "trees" / "hidden"],
                        answers=answers, keep_games=False)  # as grader grade does
stages.append(("the grade done", peak()))
import json
print(json.dumps({"stages": stages, "raised": raised, "score": results.score,
                  "worker": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def stages(submission: Path = CORRECT, cache: Path | None = None) -> dict:
    """The figures (module docstring), from a fresh process; the cache filled first unless given."""
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as scratch:
        env = dict(os.environ)
        if cache is None:
            env["GRADER_CACHE"] = scratch
            subprocess.run([str(PYTHON), "-m", "grader.cli", "grade", "--hidden", "--submission",
                            str(submission), "--results", str(Path(scratch) / "warm.json")],
                           cwd=REPO, env=env, check=True, capture_output=True)
        else:
            env["GRADER_CACHE"] = str(cache.parent)
            if cache.name != "answer-key.json":
                raise SystemExit(f"{cache}: the cache file must be named answer-key.json")
        done = subprocess.run([str(PYTHON), "-c", CHILD, str(submission), str(REPO)], cwd=scratch,
                              env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(figures: dict) -> None:
    previous = 0.0
    print(f"{'stage':<48} {'peak MB':>8} {'added':>7} {'resident before':>16}")
    for name, peak in figures["stages"]:
        print(f"{name:<48} {peak:8.1f} {peak - previous:+7.1f}")
        previous = peak
        if name == "the answer key opened":
            for test, added, after, resident in figures["raised"]:
                print(f"  {test[:46]:<46} {after:8.1f} {added:+7.1f} {resident:16.1f}")
    print(f"{'the worker (its own peak)':<48} {figures['worker']:8.1f}")


def section() -> dict:
    """``bench/run.py --only memory``: the figures, printed."""
    figures = stages()
    report(figures)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submission", type=Path, default=CORRECT)
    parser.add_argument("--cache", type=Path, default=None,
                        help="an answer-key.json to read (default: one filled by a grade first)")
    args = parser.parse_args(argv)
    report(stages(args.submission.resolve(), args.cache and args.cache.resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
