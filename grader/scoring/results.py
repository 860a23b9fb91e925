"""The one results model. The Gradescope writer, the terminal report and the pytest front end
all read :class:`GradingResults`; nothing else formats scores.

Two failure families are kept apart (``TestResult.outcome``):

* the student's code failed: ``wrong_value``, ``wrong_trace``, ``budget`` (stopped by its
  work budget of game calls), ``error``, ``timeout``, ``crashed``, ``not_implemented``,
  ``missing``: shown to the student;
* the grader failed: ``grader_error``: detail for staff only (``staff_output``), a neutral line
  for the student (:data:`NEUTRAL_GRADER_ERROR`, also in the top-level output), and the test
  keeps its points so staff can see what to regrade (a case that did not load carries none).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PASSED = "passed"
STUDENT_OUTCOMES = (
    "wrong_value", "wrong_trace", "budget", "error", "timeout", "crashed", "not_implemented",
    "missing",
)  # fmt: skip
GRADER_ERROR = "grader_error"
# What a student reads where the grader, not their code, failed.
NEUTRAL_GRADER_ERROR = (
    "The autograder could not grade this part because of a problem on the course staff's side. "
    "Staff have been told and will regrade this submission."
)

# Test numbers group tests by algorithm: 1.x minimax, 2.x alpha-beta, ...
ALGORITHM_NUMBERS = {"minimax": 1, "alpha_beta": 2, "expectimax": 3, "maxn": 4, "mcts": 5}


@dataclass
class TestResult:
    """One Gradescope test: one (case, algorithm) pair, or one property-based test."""

    __test__ = False  # not a pytest test class, despite the name

    name: str
    number: str
    algorithm: str
    case_name: str
    max_score: float
    score: float
    outcome: str  # PASSED, one of STUDENT_OUTCOMES, or GRADER_ERROR
    visibility: str = "visible"
    output: str = ""  # Markdown the student sees
    staff_output: str = ""  # what only staff see (grader errors, audit notes)
    summary: str = ""  # one line for tables: "value 3 ok, generated differs at step 4"
    extra_data: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.outcome == PASSED

    @property
    def hidden(self) -> bool:
        return self.visibility != "visible"


@dataclass
class GradingResults:
    tests: list[TestResult] = field(default_factory=list)
    output: str = ""  # top-level message (Markdown)
    staff_notes: list[str] = field(default_factory=list)  # grader errors, audit findings
    execution_time: float = 0.0
    extra_data: dict[str, Any] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return sum(test.score for test in self.tests)

    @property
    def max_score(self) -> float:
        return sum(test.max_score for test in self.tests)

    @property
    def all_passed(self) -> bool:
        return all(test.passed for test in self.tests)

    def by_algorithm(self) -> dict[str, list[TestResult]]:
        groups: dict[str, list[TestResult]] = {}
        for test in self.tests:
            groups.setdefault(test.algorithm, []).append(test)
        return groups


