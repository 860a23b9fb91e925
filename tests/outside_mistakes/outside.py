"""Mistakes written outside the catalogue, for ``alpha_beta_tt``, ``quiescence`` and
``iterative_deepening``: what the named-mistake feedback is measured on (issue 41).

Each ``<name>.py`` here is one student's version of one function, written from the handout's
docstring (``student/search.py``) as a student misreads it, not from ``reference/``: its first
comment says which sentence it came from. None of them is a catalogue variant
(``reference/mistakes_*.py``), and none may be added there by name: the catalogue's entries
describe classes of mistakes, and the measure is how often those classes, matched against
everything the grader observes of a run, name these variants right.

A submission is the correct solution (``tests/submissions/correct/search.py``) with the
variant's file appended: its definition of the function replaces the correct one (the
iterative-deepening variants call the correct ``alpha_beta``).

``RIGHT[name]``: the catalogue mistakes whose hint is right for that variant (its "What to
change" fixes this code); any other hint on a failing test is wrong. An empty set: no entry
describes it, so the only acceptable feedback is silence.

    python tests/outside_mistakes/outside.py OUT_DIR          # OUT_DIR/<name>/search.py
    python tests/outside_mistakes/outside.py --measure [NAME ...]  # grade --hidden, tally

``--measure`` runs ``grader grade --hidden`` on each variant (the cases of its algorithm,
public and hidden) and prints, over the failing tests, how many carry a right hint, none, or
a wrong one.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORRECT = HERE.parent / "submissions" / "correct" / "search.py"

ALGORITHM_OF = {"tt": "alpha_beta_tt", "q": "quiescence", "id": "iterative_deepening"}

# name -> the catalogue mistakes whose hint fixes it (see the module docstring)
RIGHT: dict[str, set[str]] = {
    "tt_key_with_depth": {"keyed_on_path"},
    "tt_stores_only_exact": set(),
    "tt_reads_bound_as_exact": set(),
    "tt_searched_is_depth": set(),
    "tt_strict_bounds": set(),
    "tt_strict_pruning": {"strict_pruning"},
    "tt_narrows_a_copy": set(),
    "tt_stores_leaves": set(),
    "q_helper_from_depth_0": {"quiescence_limit_off_by_one"},
    "q_horizon_without_depth_limit": {"quiescence_limit_off_by_one"},
    "q_stand_pat_last": {"no_stand_pat_cut"},
    "q_stand_pat_no_narrow": {"no_stand_pat_cut"},
    "q_noisy_full_window": set(),
    "id_root_full_window": {"root_full_window"},
    "id_child_depth_0": {"depth_off_by_one"},
    "id_ties_take_later": {"ties_take_later"},
    "id_searches_whole_game": {"only_max_depth"},
}
# Written after the catalogue's classes were settled (not looked at while choosing them): the
# check that those classes reach mistakes nobody wrote them for.
LATER: dict[str, set[str]] = {
    "tt_searched_strictly_more": set(),
    "tt_forgets_closed_window": set(),
    "tt_bounds_swapped_at_min": set(),
    "q_evaluates_twice": set(),
    "q_helper_full_window": set(),
    "id_misses_last_iteration": set(),
}
RIGHT.update(LATER)


def algorithm(name: str) -> str:
    return ALGORITHM_OF[name.split("_", 1)[0]]


def source(name: str) -> str:
    """The submission's text: the correct solution, then the variant's function."""
    return (CORRECT.read_text() + "\n\n# --- " + name + " ---\n"
            + (HERE / f"{name}.py").read_text())


def materialize(name: str, directory: str | Path) -> Path:
    path = Path(directory) / "search.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source(name))
    return path


def functions(name: str) -> dict:
    """The submission run in this process (a function table for ``run_algorithm``)."""
    namespace: dict = {}
    exec(compile(source(name), f"<{name}>", "exec"), namespace)  # noqa: S102
    return namespace


def cases_of(algorithm_: str) -> list[Path]:
    found = []
    for folder in ("public", "hidden"):
        for path in sorted((ROOT / "trees" / folder).glob("*.json")):
            if algorithm_ in json.loads(path.read_text()).get("algorithms", []):
                found.append(path)
    return found


def verdicts(name: str, tests: list[dict]) -> dict[str, str]:
    """Each failing test of the variant's algorithm: "right", "silent" or "wrong"."""
    out = {}
    for test in tests:
        if test.get("score") == test.get("max_score"):
            continue
        named = {hint["name"] for hint in test.get("extra_data", {}).get("mistakes", [])}
        out[test["name"]] = ("silent" if not named else
                             "right" if named <= RIGHT[name] else "wrong")
    return out


def measure(names: list[str]) -> dict[str, dict[str, int]]:
    grader = [sys.executable, "-m", "grader"]
    tally: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            path = materialize(name, Path(scratch) / name)
            results = Path(scratch) / f"{name}.json"
            subprocess.run(grader + ["grade", "--submission", str(path), "--hidden",
                                     "--results", str(results), "--cases",
                                     *map(str, cases_of(algorithm(name)))],
                           check=True, cwd=ROOT, capture_output=True)
            data = json.loads(results.read_text())
            mine = [test for test in data["tests"]
                    if test["name"].startswith(algorithm(name) + ":")]
            counts = {"failing": 0, "right": 0, "silent": 0, "wrong": 0}
            for verdict in verdicts(name, mine).values():
                counts["failing"] += 1
                counts[verdict] += 1
            hints = sorted({hint["name"] for test in mine
                            for hint in test.get("extra_data", {}).get("mistakes", [])})
            tally[name] = counts
            print(f"{name:36} {counts}  named: {hints}", flush=True)
    total = {key: sum(counts[key] for counts in tally.values())
             for key in ("failing", "right", "silent", "wrong")}
    print(f"{'total':36} {total}")
    return tally


def main(argv: list[str]) -> int:
    if argv[:1] == ["--measure"]:
        names = argv[1:] or list(RIGHT)
        measure(names)
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    for name in RIGHT:
        print(materialize(name, Path(argv[0]) / name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
