"""The ``autograder`` section: a Gradescope submission in a fresh container, first against warm.

Gradescope grades every submission in a fresh container, so the answer cache
(``/autograder/source/.cache``) starts empty each time. This section builds the autograder zip,
lays it out as Gradescope does (``DIR/source``, ``DIR/run_autograder``, setup.sh's permissions
step, the correct solution in ``DIR/submission``) and times ``run_autograder`` three ways:

* ``first, shipped key``: the cache emptied before every run; the answers come from the key the
  build put in the zip (``trees/.answer-key.json``): what every real submission is now;
* ``first, no shipped key``: the same with that key removed: what every real submission was
  before the build shipped answers (each one computes every reference answer);
* ``warm cache``: no shipped key, the cache full from the run before (a hundredth submission on
  one machine: the speed the first one should have).

The ``autograder_jobs`` section (:func:`workers`) times ``run_autograder`` with a grade's two
workers (256 MiB each) one after the other (``GRADER_JOBS=1``) against both at once
(``GRADER_JOBS=2``: what it picks in a container with two CPUs), runs interleaved, and checks that
the results of the correct solution and of two wrong variants are the same either way (timings
aside).

Wall seconds depend on the machine's load (printed with the section); CPU seconds (grader and
worker together) hardly do: compare those on a busy machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from bench.measure import PYTHON, REPO, median_measured, table

CORRECT = REPO / "tests" / "submissions" / "correct" / "search.py"


def _lay_out(archive: Path, root: Path) -> None:
    """Unpack ``archive`` as Gradescope does: source/, run_autograder, setup.sh's permissions."""
    source = root / "source"
    with zipfile.ZipFile(archive) as zipped:
        for info in zipped.infolist():
            zipped.extract(info, source)
            os.chmod(source / info.filename, (info.external_attr >> 16) & 0o777)
    shutil.copy2(source / "run_autograder", root / "run_autograder")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "GRADER_SETUP_STEPS": "permissions"}
    subprocess.run(["bash", str(source / "setup.sh")], env=env, check=True, timeout=60)
    (root / "submission").mkdir()
    shutil.copy(CORRECT, root / "submission" / "search.py")


def _autograder(scratch: Path, cache: Path) -> tuple[Path, dict[str, str], list[str]]:
    """The autograder zip built (its answers from ``cache``) and laid out in ``scratch`` as in
    a container: its root, the environment ``run_autograder`` runs in, and the command."""
    from grader.commands.build import build_main

    root = scratch / "autograder"
    root.mkdir()
    root.chmod(0o755)
    archive = scratch / "autograder.zip"
    if build_main("autograder", archive, cache=cache / "answer-key.json") != 0:
        raise RuntimeError("grader build autograder failed")
    _lay_out(archive, root)
    env = {"AUTOGRADER_ROOT": str(root), "GRADER_PYTHON": PYTHON, "GRADER_CACHE": "",
           "PYTHONPATH": ""}
    return root, env, [str(root / "run_autograder")]


def first_submission(runs: int, cache: Path) -> dict[str, Any]:
    """Median wall seconds of ``run_autograder`` on the correct solution, three ways (above)."""
    with tempfile.TemporaryDirectory(prefix="bench-autograder-") as scratch:
        root, env, command = _autograder(Path(scratch), cache)
        container_cache = root / "source" / ".cache" / "answer-key.json"
        shipped = root / "source" / "trees" / ".answer-key.json"

        def fresh() -> dict[str, Any]:
            samples = []
            for _ in range(runs):
                container_cache.unlink(missing_ok=True)
                samples.append(median_measured(command, 1, env=env))
            return _median(samples)

        with_key = fresh()
        kept = shipped.read_bytes()
        shipped.unlink()
        without_key = fresh()  # the last run leaves the container's cache full
        warm = median_measured(command, runs, env=env)
        shipped.write_bytes(kept)
    rows = [["first submission, answers shipped in the zip", with_key],
            ["first submission, no shipped answers (before)", without_key],
            [f"warm cache, no shipped answers (median of {runs})", warm]]
    print(table([[label, f"{m['wall']:.2f}", f"{m['cpu']:.2f}", f"{m['peak_mb']:.0f}"]
                 for label, m in rows],
                ["run_autograder, correct solution, all cases", "wall s", "CPU s", "peak MB"]))
    print(f"answer key in the zip: {len(kept):,} bytes unpacked, "
          f"{archive_size(kept):,} compressed")
    return {"first_shipped_key": with_key, "first_no_shipped_key": without_key, "warm": warm,
            "shipped_key_bytes": len(kept)}


WRONG = ("never_prunes", "no_window_passing")  # tests/submissions/variants.py


def workers(runs: int, cache: Path) -> dict[str, Any]:
    """``run_autograder`` with the two workers one at a time and at once (module docstring): median
    wall and CPU seconds and the peak of each, and whether the results agree for the correct
    solution and the :data:`WRONG` variants."""
    import json
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    import suite_modules  # noqa: PLC0415 (the test suite's loader of the variants)

    variants = suite_modules.load("submissions/variants.py")
    with tempfile.TemporaryDirectory(prefix="bench-autograder-") as scratch:
        root, env, command = _autograder(Path(scratch), cache)
        container_cache = root / "source" / ".cache" / "answer-key.json"
        samples: dict[str, list[dict[str, Any]]] = {"1": [], "2": []}
        for _ in range(runs):  # interleaved: a change in the load hits both
            for jobs in samples:
                container_cache.unlink(missing_ok=True)  # every submission is a first one
                samples[jobs].append(median_measured(command, 1, env={**env, "GRADER_JOBS": jobs}))
        # the whole process tree's resident memory at its peak (what the container holds):
        # the correct solution, and the corpus's memory bomb in both workers at once
        attacks = suite_modules.load("hostile/attacks.py")
        peaks: dict[str, int] = {}
        for label, source in (("correct", CORRECT.read_text()), ("memory_bomb_two_workers",
                              attacks.submission_text(attacks.BY_NAME["memory_bomb_two_workers"]))):
            (root / "submission" / "search.py").write_text(source)
            for jobs in ("1", "2"):
                peaks[f"{label}, GRADER_JOBS={jobs}"] = tree_peak_mb(
                    command, {**os.environ, **env, "GRADER_JOBS": jobs})
        same = {}
        for name in ("correct", *WRONG):
            source = CORRECT.read_text() if name == "correct" else variants.source(name)
            (root / "submission" / "search.py").write_text(source)
            results = []
            for jobs in ("1", "2"):
                median_measured(command, 1, env={**env, "GRADER_JOBS": jobs})
                data = json.loads((root / "results" / "results.json").read_text())
                results.append((_without_timings(data), data["score"]))
            same[name] = {"identical": results[0][0] == results[1][0], "score": results[0][1]}
    one, two = _median(samples["1"]), _median(samples["2"])
    print(table([[label, f"{m['wall']:.2f}", f"{m['cpu']:.2f}", f"{m['peak_mb']:.0f}"]
                 for label, m in (("one at a time", one),
                                  ("both at once", two))],
                [f"run_autograder, correct, first submission (median of {runs})", "wall s",
                 "CPU s", "peak MB (largest process)"]))
    print(f"both at once: {one['wall'] / two['wall']:.2f}x faster in wall time")
    print(table([[label, mb] for label, mb in peaks.items()],
                ["run_autograder", "peak MB, all its processes together"]))
    print("results at once the same as one at a time (timings aside): " + ", ".join(
        f"{name} {'yes' if v['identical'] else 'NO'} ({v['score']:g})" for name, v in same.items()))
    return {"one_worker": one, "two_workers": two, "speedup": one["wall"] / two["wall"],
            "same_results": same, "tree_peak_mb": peaks}


def tree_peak_mb(command: list[str], env: dict[str, str], every: float = 0.02) -> int:
    """Run ``command``; the largest sum of its process tree's resident memory (VmRSS of it and
    every descendant, sampled each ``every`` seconds from /proc), in MB."""
    import time

    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        parents: dict[int, int] = {}
        rss: dict[int, int] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/status") as status:
                    fields = dict(line.split(":", 1) for line in status if ":" in line)
            except OSError:
                continue
            pid = int(entry.name)
            parents[pid] = int(fields.get("PPid", "0"))
            rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
        total = 0
        for pid, kb in rss.items():  # the command's descendants, itself included
            seen, up = 0, pid
            while up and up != proc.pid and seen < 64:
                up, seen = parents.get(up, 0), seen + 1
            total += kb if up == proc.pid else 0
        peak = max(peak, total)
        time.sleep(every)
    return round(peak / 1024)


def _without_timings(results: dict[str, Any]) -> dict[str, Any]:
    tests = [{key: value for key, value in test.items() if key != "execution_time"}
             for test in results["tests"]]
    for test in tests:
        test["extra_data"] = {key: value for key, value in test.get("extra_data", {}).items()
                              if key != "timing"}
    return {**{key: value for key, value in results.items() if key != "execution_time"},
            "tests": tests}


def archive_size(data: bytes) -> int:
    import zlib

    return len(zlib.compress(data, 9))


def _median(samples: list[dict[str, Any]]) -> dict[str, Any]:
    ordered = sorted(samples, key=lambda s: s["wall"])
    middle = ordered[len(ordered) // 2]
    return {**middle, "walls": [round(s["wall"], 3) for s in samples],
            "peak_mb": max(s["peak_mb"] for s in samples)}
