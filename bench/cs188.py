"""This grader against CS188's, paired: ``python bench/cs188.py [--cs188 DIR] [--runs N]``
(or ``bench/run.py --only cs188 --cs188 DIR``).

Runs, interleaved so that a change in the machine's load hits both alike, ``grader grade
--hidden`` of the correct solution (every public and hidden case, the answer cache warm) and
CS188's multi-agent ``autograder.py --no-graphics`` (its 25 points, its Pacman games included),
each in a fresh process, and prints the medians of CPU time (the process and its children) and
peak memory, and the ratio (then each pair's ratio, and the least run of each side against the
other's: on a machine whose speed drifts, the figures the drift moves least). The target (issue
33): at most 0.4x CS188's CPU, no more memory; issue 45's: at most 0.45x.
Then the floor (:mod:`bench.floor`): the correct solution's own work in that grade, with no
grader around it, and its ratio to CS188's run; what the grade spends beyond it is the grader's.

CS188's project is not in this repository (it is Berkeley's): give a folder holding its
``multiagent/`` project with a solved ``multiAgents.py`` (``autograder.py`` must score 25/25 in
it) with ``--cs188 DIR``; it is copied to the cache (``$GRADER_BENCH_CACHE``, default
``~/.cache/grader-bench``), where later runs find it without the option.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.floor import floor  # noqa: E402
from bench.measure import GRADER, PYTHON, load_average, run_measured, table  # noqa: E402

CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"
CACHE = Path(os.environ.get("GRADER_BENCH_CACHE", Path.home() / ".cache" / "grader-bench"))
CACHED = CACHE / "cs188-multiagent"
TARGET_RATIO = 0.4


def cs188_folder(given: Path | None) -> Path:
    """The CS188 multiagent folder: ``given`` (a ``multiagent/`` folder or one holding it),
    copied to the cache; else the cached copy. Raises SystemExit with what to do when neither."""
    if given is not None:
        folder = given / "multiagent" if (given / "multiagent" / "autograder.py").exists() else given
        if not (folder / "autograder.py").exists() or not (folder / "multiAgents.py").exists():
            raise SystemExit(f"{given}: no autograder.py and multiAgents.py (CS188's multiagent "
                             "project) in it or in its multiagent/ folder")
        if folder.resolve() != CACHED.resolve():
            shutil.rmtree(CACHED, ignore_errors=True)
            shutil.copytree(folder, CACHED, ignore=shutil.ignore_patterns("__pycache__"))
        return CACHED
    if (CACHED / "autograder.py").exists():
        return CACHED
    raise SystemExit(f"no CS188 multiagent project: pass --cs188 DIR (a multiagent/ folder with "
                     f"a solved multiAgents.py; it is then kept in {CACHED})")


def paired(folder: Path, runs: int, cache: Path) -> dict[str, Any]:
    """``runs`` interleaved pairs: medians, ratios, and both sides' samples."""
    check = subprocess.run([PYTHON, "autograder.py", "--no-graphics"], cwd=folder,
                           capture_output=True, text=True, timeout=900)
    total = re.search(r"Total: (\d+)/(\d+)", check.stdout)
    if not total or total.group(1) != total.group(2):
        raise SystemExit(f"{folder}: CS188's autograder did not give full marks "
                         f"({total.group(0) if total else 'no total'}): a solved multiAgents.py "
                         "is needed for a fair comparison")
    env = {"GRADER_CACHE": str(cache)}
    with tempfile.TemporaryDirectory() as scratch:
        ours_command = [*GRADER, "grade", "--submission", str(CORRECT), "--hidden",
                        "--results", str(Path(scratch) / "results.json")]
        run_measured(ours_command, env=env)  # the answer cache filled: the runs below are warm
        ours, theirs = [], []
        for _ in range(runs):
            ours.append(run_measured(ours_command, env=env))
            theirs.append(_in(folder, [PYTHON, "autograder.py", "--no-graphics"]))
    figures = {}
    for name, samples in (("grader", ours), ("cs188", theirs)):
        figures[name] = {"cpu": statistics.median(s["cpu"] for s in samples),
                         "wall": statistics.median(s["wall"] for s in samples),
                         "peak_mb": statistics.median(s["peak_mb"] for s in samples),
                         "cpus": [round(s["cpu"], 2) for s in samples],
                         "codes": sorted({str(s["code"]) for s in samples})}
    ratio = figures["grader"]["cpu"] / figures["cs188"]["cpu"]
    memory = figures["grader"]["peak_mb"] / figures["cs188"]["peak_mb"]
    print(table([[name, f"{f['cpu']:.2f}", f"{f['wall']:.2f}", f"{f['peak_mb']:.0f}",
                  " ".join(map(str, f["cpus"]))] for name, f in figures.items()],
                ["run (medians)", "CPU s", "wall s", "peak MB", "CPU s of each run"]))
    print(f"grader grade --hidden / CS188 autograder.py: CPU {ratio:.2f}x (target "
          f"{TARGET_RATIO}x), peak memory {memory:.2f}x (target 1x); {runs} pairs, CS188 "
          f"{total.group(0)}; load average {load_average()}")
    # Two more readings of the same runs, for a machine whose speed drifts: each pair's ratio
    # (its two runs a few seconds apart), and the least CPU of each side (load only ever adds
    # CPU time to deterministic work, so the least run is the nearest to its own cost).
    pair_ratios = sorted(o["cpu"] / t["cpu"] for o, t in zip(ours, theirs))
    least = min(s["cpu"] for s in ours) / min(s["cpu"] for s in theirs)
    print(f"each pair's CPU ratio: {' '.join(f'{r:.2f}' for r in pair_ratios)} (median "
          f"{statistics.median(pair_ratios):.2f}x); least run against least run: {least:.2f}x")
    own = floor(runs=3)["total_cpu_s"]  # bench/floor.py: what no grader of these cases avoids
    floor_ratio = own / figures["cs188"]["cpu"]
    print(f"the correct solution's own work alone (bench/floor.py): {own:.2f} CPU s, "
          f"{floor_ratio:.2f}x CS188's; the grader's own cost: {figures['grader']['cpu'] - own:.2f}"
          " CPU s")
    return {**figures, "cpu_ratio": ratio, "memory_ratio": memory, "runs": runs,
            "pair_ratios": pair_ratios, "least_ratio": least,
            "target_cpu_ratio": TARGET_RATIO, "cs188_folder": str(folder),
            "floor_cpu_s": own, "floor_ratio": floor_ratio}


def _in(folder: Path, command: list[str]) -> dict[str, Any]:
    """:func:`run_measured` of ``command`` run in ``folder`` (CS188's autograder reads its own
    folder's files by relative paths)."""
    return run_measured(["/bin/sh", "-c", 'cd "$0" && exec "$@"', str(folder), *command])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cs188", type=Path, default=None, help="CS188's multiagent project")
    parser.add_argument("--runs", type=int, default=5, help="interleaved pairs (default 5)")
    args = parser.parse_args(argv)
    folder = cs188_folder(args.cs188)
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
        paired(folder, args.runs, Path(cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
