"""A grade's fixed cost, paired against another checkout: ``python bench/fixed_cost.py --base TREE
[--runs N] [--whole]``.

Runs ``grader grade`` of the correct solution on one tiny case (``trees/public/aima-fig-5-2.json``:
two tests, so what is measured is what every grade pays: the interpreter and the grader's
imports, the rubric, the case, the answer key, the worker start-ups, the results file) in this
checkout and in ``TREE`` (a checkout of the code to compare with, e.g. ``git worktree add
/tmp/base BASE``), alternating, ``N`` runs each (a warm-up run each first: answer caches and
the checked-cases memo filled), and prints the medians of CPU time (the process and its
workers). ``--whole``: the same for ``grader grade --hidden`` (every case); ``--no-play``: for
every case but the ``evaluate`` ones (the play cases), the rest of a whole grade (issue 45's
fourth part: what a grade costs outside its play cases). Each checkout runs
with its own code (``PYTHONPATH``) and its own answer cache (its ``.cache/``), on this
interpreter. ``--calibration SECONDS``: both grade as a machine whose calibration workload
takes that long would (the CPU windows of every call scale with it): each checkout's answer
cache is copied to a folder of its own (``$GRADER_CACHE``) and its calibration set there
after the warm-up, so a slower grading machine is measured on this one. Issue 45's target for the one-case grade: at most 0.35 CPU s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CASE = Path("trees") / "public" / "aima-fig-5-2.json"


SCOPES = ("case", "whole", "no-play")  # the one tiny case; every case; every case but play's


def _cases(root: Path, scope: str) -> list[str]:
    """``grader grade``'s arguments naming the cases of ``scope`` in ``root``."""
    if scope == "whole":
        return ["--hidden"]
    if scope == "case":
        return ["--cases", str(CASE)]
    paths = sorted((root / "trees" / "public").glob("*.json")) + sorted(
        (root / "trees" / "hidden").glob("*.json"))
    return ["--cases", *[str(path) for path in paths
                         if "evaluate" not in json.loads(path.read_text()).get("algorithms", [])]]


def _cpu_of(root: Path, scope: str, results: Path, cache: Path | None = None) -> float:
    """CPU seconds (user + system, the grader and its workers) of one grade in ``root``
    (``cache``: its answer cache's folder, else the checkout's own)."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONDONTWRITEBYTECODE", "GRADER_CACHE")}
    env["PYTHONPATH"] = str(root)
    if cache is not None:
        env["GRADER_CACHE"] = str(cache)
    command = [sys.executable, "-m", "grader", "grade", "--submission",
               str(root / "tests" / "submissions" / "correct" / "search.py"),
               "--results", str(results), *_cases(root, scope)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _calibrated(root: Path, folder: Path) -> Path:
    """``folder``, holding a copy of ``root``'s answer cache (if it has one: else the warm-up
    grade makes it there)."""
    key = root / ".cache" / "answer-key.json"
    if key.exists():
        shutil.copy(key, folder / key.name)
    return folder


def _set_calibration(folder: Path, calibration: float) -> None:
    key = folder / "answer-key.json"
    data = json.loads(key.read_text())
    data["calibration"] = calibration
    key.write_text(json.dumps(data))


def paired(base: Path, runs: int, scope: str, calibration: float | None = None
           ) -> dict[str, list[float]]:
    """``runs`` alternating grades in each checkout, after a warm-up grade each."""
    roots = {"this checkout": REPO, "base": base}
    samples: dict[str, list[float]] = {name: [] for name in roots}
    results = {name: Path(f"/tmp/fixed-cost-{os.getpid()}-{i}.json")
               for i, name in enumerate(roots)}
    with tempfile.TemporaryDirectory() as scratch:
        caches: dict[str, Path | None] = dict.fromkeys(roots)
        if calibration:
            for index, (name, root) in enumerate(roots.items()):
                folder = Path(scratch) / str(index)
                folder.mkdir()
                caches[name] = _calibrated(root, folder)
        try:
            for name, root in roots.items():
                _cpu_of(root, scope, results[name], caches[name])
                if calibration:
                    _set_calibration(caches[name], calibration)
            for _ in range(runs):
                for name, root in roots.items():
                    samples[name].append(_cpu_of(root, scope, results[name], caches[name]))
        finally:
            for path in results.values():
                path.unlink(missing_ok=True)
    what = {"whole": "grader grade --hidden", "case": f"grader grade --cases {CASE}",
            "no-play": "grader grade, every case but the evaluate ones"}[scope]
    for name, cpu in samples.items():
        print(f"{what}, {name}: median {statistics.median(cpu):.3f} CPU s "
              f"(runs: {' '.join(f'{c:.2f}' for c in cpu)})")
    ratio = statistics.median(samples["this checkout"]) / statistics.median(samples["base"])
    at = f"; calibration {calibration:g} s" if calibration else ""
    print(f"ratio {ratio:.2f}x{at}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--runs", type=int, default=3, help="alternating runs each (default 3)")
    parser.add_argument("--whole", action="store_true", help="every case (--hidden)")
    parser.add_argument("--no-play", action="store_true",
                        help="every case but the evaluate (play) ones")
    parser.add_argument("--calibration", type=float, metavar="SECONDS",
                        help="grade as a machine of this calibration would (module docstring)")
    args = parser.parse_args(argv)
    if not (args.base / "grader").is_dir():
        parser.error(f"--base {args.base}: no grader/ folder there (a checkout is needed)")
    scope = "whole" if args.whole else "no-play" if args.no_play else "case"
    paired(args.base.resolve(), args.runs, scope, args.calibration)
    return 0


if __name__ == "__main__":
    sys.exit(main())
