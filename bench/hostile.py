"""The grader's own peak memory and time against the forged-reply attacks of tests/hostile.

``python bench/hostile.py [--hidden] [ATTACK ...]`` grades the correct solution and each attack
(default: ``forged_huge_trace``, ``forged_long_trace``, ``forged_grader_error``) with
``grader grade`` in a process of its own, and prints, for each, the grader process's own peak
resident memory (``RUSAGE_SELF`` at its exit: the workers are not counted), the largest of all
its processes (``RUSAGE_CHILDREN`` of a wrapper, workers included), the wall time and the score.
``--hidden`` grades the public and hidden cases, as Gradescope does (the issue's figures);
without it, the public cases only. One run each: a figure, never an assertion.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path

from bench.measure import PYTHON, REPO, run_measured

DEFAULT = ("forged_huge_trace", "forged_long_trace", "forged_grader_error")
# grader grade in this process, then its own peak (the workers are other processes)
SELF_PEAK = """
import json, resource, sys
from grader.cli import main
code = main(sys.argv[2:])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
with open(sys.argv[1], "w") as out:
    json.dump({"self_peak_mb": peak, "code": code}, out)
"""


def _attacks():
    spec = importlib.util.spec_from_file_location("hostile_attacks", REPO / "tests/hostile/attacks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["hostile_attacks"] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    hidden = "--hidden" in argv
    names = [name for name in argv if not name.startswith("--")] or list(DEFAULT)
    attacks = _attacks()
    folder = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    cases = [str(REPO / "trees/public")] + ([str(REPO / "trees/hidden")] if hidden else [])
    print(f"cases: {'public and hidden' if hidden else 'public'}")
    print(f"{'submission':24} {'grader MB':>10} {'any process MB':>15} {'wall s':>8}  score")
    for name in ["correct", *names]:
        if name == "correct":
            submission = attacks.CORRECT
        else:
            submission = attacks.write_submission(attacks.BY_NAME[name], folder / name)
        results, own = folder / f"{name}.json", folder / f"{name}.peak.json"
        command = [PYTHON, "-c", SELF_PEAK, str(own), "grade", "--submission", str(submission),
                   "--cases", *cases, "--results", str(results)]
        measured = run_measured(command)
        peak = json.loads(own.read_text()) if own.exists() else {"self_peak_mb": float("nan")}
        data = json.loads(results.read_text())
        total = sum(test["max_score"] for test in data["tests"])
        print(f"{name:24} {peak['self_peak_mb']:10.0f} {measured['peak_mb']:15.0f} "
              f"{measured['wall']:8.1f}  {data['score']:g}/{total:g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
