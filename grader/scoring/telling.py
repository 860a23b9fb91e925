"""A small tree that tells named mistakes apart: searched once per course, shipped as a table.

Where a diagnosis names several known mistakes as alternatives (no graded case tells them
apart), the feedback shows the smallest random tree on which their variants run differently,
with what each does there (:mod:`grader.scoring.named`). :func:`telling_tree` finds it: a
hypothesis search over :func:`random_trees.case_dicts`, derandomized, ``tries`` trees at most
(about a CPU second; about two when no tree tells them apart and every try is spent).

The mistakes are the project's own (``reference/mistakes*.py``), so the search's answer for a
known set is the same for every student: :data:`TABLE` (``reference/telling_trees.json``,
staff-only like the rest of ``reference/``, so never in the handout) holds it for every pair of
mistakes of every algorithm under each rule, and the larger sets the known-wrong submissions
(``tests/submissions/variants.py``) are named with. A grade looks the set up there
(:func:`known_telling_tree`) and searches only for a set the table lacks.

The table's conventions:

* A key is ``"<algorithm> <rule> <name> <name> ..."``, the names sorted; its value in
  ``trees`` is the tree (a case dict), or null where the search of :data:`TRIES` trees found
  none. ``failed`` lists the sets whose search raises (what the error said): random trees
  make no valid case of that algorithm (``iterative_deepening``'s need a depth limit they
  never draw). A grade searches for those as for a set not in the table, and fails as it did
  (a staff note, no example).
* A tree's runs are not stored: they are worked out again at each use (a few variants on a
  tree of a few nodes: milliseconds), and the tree is used only if they still differ; where an
  edit of ``reference/`` made them alike, the search runs as if the set were not there. A
  null is trusted: a stale null costs the example, never a wrong statement.
* ``made_with`` records the hypothesis version and ``tries`` the table was searched with. Once
  written, the table no longer depends on hypothesis: a known set gets the same tree whatever
  version a course installs.
* Written by ``python bench/telling_trees.py write`` (about ten CPU minutes: every pair is
  searched), after adding or changing a mistake; tests/test_telling.py checks that every
  pair is present and every tree tells its set apart.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import grader.algorithms as algorithm_specs
from grader.answers.solve import mcts_settings
from grader.answers.store import reference_available
from grader.cases import case_from_dict
from grader.feedback.diagnosis import BUDGET_FLOOR, BudgetedGame
from grader.files import json_safe
from grader.run.runner import run_algorithm

TRIES = 120  # random trees searched for a set, in the table and at a grade
TABLE_NAME = "telling_trees.json"  # in reference/


def table_key(algorithm: str, names: list[str] | tuple[str, ...], rule: str) -> str:
    """The table's key of the set ``names`` of ``algorithm``'s mistakes under ``rule``."""
    return " ".join([algorithm, rule, *sorted(names)])


def key_parts(key: str) -> tuple[str, str, list[str]]:
    """(algorithm, rule, names) of a key :func:`table_key` made."""
    algorithm, rule, *names = key.split()
    return algorithm, rule, names


def table_path() -> Path | None:
    """Where the table is: beside the mistakes in ``reference/``; None without it."""
    if not reference_available():
        return None
    import reference

    return Path(reference.__file__).parent / TABLE_NAME


@functools.lru_cache(maxsize=1)
def table() -> dict[str, dict[str, Any] | None]:
    """The shipped table's trees by key; empty without ``reference/`` or the file."""
    path = table_path()
    if path is None or not path.is_file():
        return {}
    return json.loads(path.read_text())["trees"]


def variant_runs(algorithm: str, names: list[str] | tuple[str, ...], rule: str,
                 data: dict[str, Any]) -> dict[str, str]:
    """What each variant of ``names`` does on the tree ``data``, in catalogue order: the nodes
    it generates and its value, or the exception that stopped it."""
    from reference.mistakes import mistakes_for

    case = case_from_dict(data)
    outcome = {}
    for mistake in (m for m in mistakes_for(algorithm, rule) if m.name in names):
        try:
            run = run_algorithm(mistake.functions(rule),
                                BudgetedGame(case.build_game(), BUDGET_FLOOR), algorithm,
                                mcts=mcts_settings(case)
                                if algorithm_specs.get(algorithm).iterations else None)
            outcome[mistake.name] = (f"generates {' '.join(run.generated)}, value "
                                     f"{json.dumps(json_safe(run.value))}")
        except Exception as error:  # noqa: BLE001 - a variant that fails differs too
            outcome[mistake.name] = f"stops with {type(error).__name__}"
    return outcome


def known_telling_tree(algorithm: str, names: list[str] | tuple[str, ...], rule: str,
                       tries: int = TRIES) -> tuple[dict[str, Any], dict[str, str]] | None:
    """:func:`telling_tree`'s answer, from the table where it has the set (searched with
    ``tries`` trees, and its tree still tells the set apart), else searched."""
    if tries == TRIES and reference_available():
        key = table_key(algorithm, names, rule)
        known = table()
        if key in known:
            data = known[key]
            if data is None:
                return None
            runs = variant_runs(algorithm, names, rule, data)
            if len(set(runs.values())) > 1:
                return data, runs
    return telling_tree(algorithm, list(names), rule, tries)


def telling_tree(algorithm: str, names: list[str], rule: str,
                 tries: int = TRIES) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The smallest random tree (a case dict of :func:`random_trees.case_dicts`) on which the
    variants ``names`` do not all run alike, with each one's run there (``generated``, value,
    or the exception); None without ``reference/`` or when ``tries`` trees find none (they
    may be the same search). Deterministic: hypothesis runs derandomized."""
    if not reference_available():
        return None
    # imported here: hypothesis (through random_trees) is a third of grade's memory, and only
    # a submission whose mistakes need telling apart, and are not in the table, gets this far
    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample

    from grader.scoring import random_trees

    def differ(data: dict[str, Any]) -> bool:
        return len(set(variant_runs(algorithm, names, rule, data).values())) > 1

    try:
        data = find(random_trees.case_dicts(algorithm), differ,
                    settings=settings(max_examples=tries, derandomize=True, database=None,
                                      deadline=None, suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return None
    return data, variant_runs(algorithm, names, rule, data)


__all__ = ["TABLE_NAME", "TRIES", "key_parts", "known_telling_tree", "table", "table_key",
           "table_path", "telling_tree", "variant_runs"]
