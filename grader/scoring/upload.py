"""What the grading loop says about the upload as a whole, and how it numbers tests.

* Which file is graded, and why (:func:`which_file`): one line at the top of the results. When
  nothing can be graded (no ``search.py``, several different ones, an unreadable zip) the
  results hold one top-level message and one test carrying the assignment's points
  (:func:`nothing_graded`), not the same message in every test.
* Test numbers (:func:`numbered`): within an algorithm, visible tests come first, then
  ``after_due_date``, ``after_published`` and ``hidden`` ones, each without gaps, so the numbers a
  student sees never reveal how many tests they do not see (hidden tests numbered among the
  visible ones would leave holes: a first visible alpha-beta test 2.12 says there are 11 hidden).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from grader.answers.store import reference_available
from grader.errors import SubmissionError
from grader.sandbox.submission import Choice, choose_submission
from grader.scoring.results import ALGORITHM_NUMBERS, GradingResults, TestResult

# The order tests are numbered and shown in: what students see first, then what they see later.
VISIBILITY_ORDER = ("visible", "after_due_date", "after_published", "hidden")
NOTHING_GRADED = "not_graded"  # the outcome of the one test of an upload with nothing to grade

Item = TypeVar("Item", bound=tuple)


def which_file(submission: Path) -> Choice:
    """The file the worker will grade and why; :class:`SubmissionError` when there is none.

    The worker makes the same choice again from the same upload (it gets only the chosen file)."""
    with tempfile.TemporaryDirectory(prefix="grader-upload-") as scratch:
        choice = choose_submission(Path(submission), Path(scratch))
        if choice.path.is_relative_to(scratch):  # extracted from a zip: only its name outlives this
            return Choice(Path(submission), choice.name, choice.reason)
        return choice


def nothing_graded(results: GradingResults, error: SubmissionError, max_score: float) -> None:
    """Fill ``results`` for an upload that holds nothing to grade: the message once at the top,
    and one test worth every point the grading would have carried (so the total stays the
    assignment's), scored 0. Tests already there (a case that did not load) are kept."""
    message = f"Nothing was graded: {error}"
    results.tests.append(TestResult(
        name="submission: no search.py could be graded", number="0.1", algorithm="submission",
        case_name="", max_score=max_score, score=0.0, outcome=NOTHING_GRADED,
        visibility="visible",
        output="Nothing was graded: see the message for the whole submission.",
        summary=str(error).split(". ")[0],
    ))
    results.output = "\n\n".join(filter(None, [message, results.output]))
    results.clean()


def planned_points(rubric: Any, planned: Iterable[tuple[Any, str]], wanted: set[str] | None,
                   name_filter: str | None) -> float:
    """The points of the ``(case, algorithm)`` tests planned and of the random-tree tests that
    would run with them."""
    points = sum(rubric.settings_for(case, algorithm).points for case, algorithm in planned)
    if reference_available() and any(map(rubric.random_trees.points_for, ALGORITHM_NUMBERS)):
        # imported only here: random_trees imports hypothesis (a third of grade's memory)
        from grader.scoring import random_trees

        points += sum(rubric.random_trees.points_for(algorithm) for algorithm in ALGORITHM_NUMBERS
                      if random_trees.random_test_selected(rubric, algorithm, wanted, name_filter))
    return float(points)


def visibility_rank(visibility: str) -> int:
    """Where ``visibility`` comes in :data:`VISIBILITY_ORDER` (an unknown one last)."""
    if visibility in VISIBILITY_ORDER:
        return VISIBILITY_ORDER.index(visibility)
    return len(VISIBILITY_ORDER)


def by_visibility(items: Iterable[Item], visibility_of: Any) -> list[Item]:
    """``items`` in :data:`VISIBILITY_ORDER` of ``visibility_of(item)``, stable within each."""
    return sorted(items, key=lambda item: visibility_rank(visibility_of(item)))


def numbered(items: Iterable[tuple[Any, str]],
             counters: dict[str, int]) -> Iterator[tuple[Any, str, str]]:
    """``(case, algorithm)`` items as ``(case, algorithm, "2.3")``, counting on from ``counters``
    (tests numbered so far per algorithm), lazily: a test numbered between two groups (the
    random-tree test) takes its number from the same counters in between."""
    for case, algorithm in items:
        counters[algorithm] += 1
        yield case, algorithm, f"{ALGORITHM_NUMBERS[algorithm]}.{counters[algorithm]}"
