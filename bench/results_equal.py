"""Results before and after a refactor: every known submission graded, timing fields dropped.

    python bench/results_equal.py record OUT_DIR [ALGORITHM ...]  # grade, keep OUT_DIR/<name>.json
    python bench/results_equal.py compare OLD NEW    # the files of both, timing fields dropped

``record`` grades the correct solution and the stubs on every case, public and hidden
(``grader grade --hidden``), and each known-wrong variant of ``tests/submissions/variants.py``
on the cases (public and hidden) that list one of its algorithms, or whose ``assumptions`` agent
searches with one (an ``assumptions`` case lists only ``assumptions``; its agent calls
``alpha_beta``, ``minimax`` or ``expectimax``): a variant's other tests are the correct
solution's, so this keeps the run cheap without hiding a difference. With ``ALGORITHM`` names,
only the cases of those algorithms are graded for the variants (the correct solution and the
stubs still get every case), and only the variants that have one. Run it with the checkout to
measure first on ``PYTHONPATH`` (e.g. a ``git archive`` of the base commit).

``compare`` prints each file that differs and exits 1 if any does. Timing fields are the
only ones a run changes (``execution_time``, each test's ``timing``, the seconds in output text
such as ``0.12 s``), and the folder of the checkout graded is dropped from the case paths.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMING_KEYS = {"execution_time", "timing", "seconds", "cpu_seconds", "elapsed", "wall_seconds"}
SECONDS = re.compile(r"\d+(\.\d+)?\s?(ms|s)\b")
CHECKOUT = re.compile(r"/[^\s\"']*?/(trees|tests)/")  # where the checkout graded is


def _variants():
    sys.path.insert(0, str(ROOT / "tests" / "submissions"))
    import variants  # noqa: E402  (tests/ is no package: loaded by path)

    return variants


def _searched_by(data: dict) -> set[str]:
    """The algorithms whose student functions a case calls: those it lists, and an
    ``assumptions`` case's agent's."""
    from grader.algorithms.assumptions import agent_algorithm

    listed = set(data.get("algorithms", []))
    settings = data.get("assumptions")
    if isinstance(settings, dict) and "agent" in settings:
        listed.add(agent_algorithm(settings["agent"], settings.get("search", "alpha_beta")))
    return listed


def _cases_for(algorithms: tuple[str, ...], only: set[str] | None = None) -> list[Path]:
    found = []
    for folder in ("public", "hidden"):
        for path in sorted((ROOT / "trees" / folder).glob("*.json")):
            data = json.loads(path.read_text())
            if only and not set(data.get("algorithms", [])) & only:
                continue
            if _searched_by(data) & set(algorithms):
                found.append(path)
    return found


def _grade(submission: Path, cases: list[Path] | None, out: Path) -> None:
    command = [sys.executable, "-m", "grader", "grade", "--submission", str(submission),
               "--results", str(out)]
    command += ["--cases", *map(str, cases)] if cases else ["--hidden"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    print(out.name, flush=True)


def record(out_dir: Path, only: set[str] | None = None) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    variants = _variants()
    _grade(ROOT / "tests" / "submissions" / "correct" / "search.py", None,
           out_dir / "correct.json")
    _grade(ROOT / "student" / "search.py", None, out_dir / "stub.json")
    every = {**variants.VARIANTS}
    every.update(getattr(variants, "SEARCH_VARIANTS", {}))
    every.update(getattr(variants, "PLAY_VARIANTS", {}))
    every.update(getattr(variants, "ASSUMPTION_VARIANTS", {}))
    with tempfile.TemporaryDirectory() as scratch:
        for name, variant in every.items():
            cases = _cases_for(variant.algorithms, only)
            if not cases:  # none of the algorithms asked for (a variant's cases: never none)
                continue
            path = variants.materialize(name, Path(scratch) / name)
            _grade(path, cases, out_dir / f"{name}.json")


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    if isinstance(value, str):
        return CHECKOUT.sub(r"\1/", SECONDS.sub("<t>", value))
    return value


def compare(old: Path, new: Path) -> int:
    differ = 0
    for before in sorted(old.glob("*.json")):
        after = new / before.name
        if not after.exists():
            print(f"{before.name}: missing after")
            differ += 1
            continue
        if _untimed(json.loads(before.read_text())) != _untimed(json.loads(after.read_text())):
            print(f"{before.name}: differs")
            differ += 1
    print(f"{len(list(old.glob('*.json')))} files compared, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"] and len(sys.argv) >= 3:
        record(Path(sys.argv[2]), set(sys.argv[3:]) or None)
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 4:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        sys.exit(__doc__)
