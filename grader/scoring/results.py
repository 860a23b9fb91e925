"""The one results model. The Gradescope writer, the terminal report and the pytest front end
all read :class:`GradingResults`; nothing else formats scores.

Two failure families are kept apart (``TestResult.outcome``):

* the student's code failed: ``wrong_value``, ``wrong_trace``, ``budget`` (stopped by its
  work budget of game calls), ``error``, ``timeout``, ``crashed``, ``not_implemented``,
  ``missing``: shown to the student; ``not_graded``: the upload held nothing to grade
  (:mod:`grader.scoring.upload`: one test for the whole submission);
* the grader failed: ``grader_error``: detail for staff only (``staff_output``), a neutral line
  for the student (:data:`NEUTRAL_GRADER_ERROR`, also in the top-level output), and the test
  keeps its points so staff can see what to regrade (a case that did not load carries none).

Every string in the model is cleaned before it leaves (:meth:`GradingResults.clean`: the grading
loop and the Gradescope writer call it): NUL characters and lone surrogates, which a submission
can print, raise or return, become U+FFFD, and the test's output says how many were replaced.
It also keeps the whole under :data:`RESULTS_BOUND` bytes of JSON (:meth:`GradingResults.bound`),
whatever each test holds: under the room ``results.json`` has reserved beside it
(:data:`grader.files.RESERVE_BYTES`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import grader.algorithms as algorithm_specs
from grader.feedback.markdown import REPLACED_NOTE, clean_text, may_need_cleaning

PASSED = "passed"
STUDENT_OUTCOMES = (
    "wrong_value", "wrong_trace", "budget", "error", "timeout", "crashed", "not_implemented",
    "missing", "not_graded",
)  # fmt: skip
GRADER_ERROR = "grader_error"
# What a student reads where the grader, not their code, failed.
NEUTRAL_GRADER_ERROR = (
    "The autograder could not grade this part because of a problem on the course staff's side. "
    "Staff have been told and will regrade this submission."
)

# ``TestResult.extra_data`` key: why the upload is not a Python program at all (a syntax error, a
# notebook that cannot be read), so nothing in it could run; platforms that tell a format error
# from a graded attempt (PrairieLearn's ``gradable: false``) read it. Set by the grading loop.
UPLOAD_ERROR = "upload_error"

# Bytes of JSON all tests' outputs and extra data may take in a results file (each piece of what
# a worker sends is capped, but a test's output, its HTML replay of traces (256,000 characters
# of ids) and 111 tests multiply: 98 kB a test gave an 11 MB results.json, issue 34). Measured
# without indentation; the file's indentation adds up to 2.5 times that to lists of short ids
# six levels deep: still under grader.files.RESERVE_BYTES, the room set aside for the file.
RESULTS_BOUND = 4 * 1024 * 1024
CUT_NOTE = "\n\n(the rest of this output, {count:,} characters, was cut: results.json is kept " \
           "under {bound:,} bytes)"

# Test numbers group tests by algorithm, in the registry's order (grader.algorithms): 1.x
# minimax, 2.x alpha-beta, ...
ALGORITHM_NUMBERS = {name: algorithm_specs.number(name) for name in algorithm_specs.names()}


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

    @property
    def hidden_label(self) -> str:
        """What the platforms that list tests by name call a hidden test: its number only (its
        name would tell its case)."""
        return f"hidden test {self.number}"

    @property
    def failure_reason(self) -> str:
        """The one line a test that is not passed shows where tests are listed: its summary, or
        only "not passed" for a hidden test."""
        return "not passed" if self.hidden else (self.summary or "not passed")

    def clean(self) -> int:
        """Replace NUL and lone surrogates in every string; note it in ``output``. How many."""
        count = 0
        for name in ("name", "number", "algorithm", "case_name", "visibility", "output",
                     "staff_output", "summary"):
            text, replaced = clean_text(getattr(self, name))
            setattr(self, name, text)
            count += replaced
        self.extra_data, replaced = clean_data(self.extra_data)
        count += replaced
        if count:
            note = REPLACED_NOTE.format(count=count)
            self.output = "\n\n".join(filter(None, [self.output, note]))
        return count


@dataclass
class GradingResults:
    tests: list[TestResult] = field(default_factory=list)
    output: str = ""  # top-level message (Markdown)
    staff_notes: list[str] = field(default_factory=list)  # grader errors, audit findings
    execution_time: float = 0.0
    extra_data: dict[str, Any] = field(default_factory=dict)
    # Gradescope leaderboard entries ({"name", "value"[, "order"]}), opt-in: [play] leaderboard
    leaderboard: list[dict[str, Any]] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(test.score for test in self.tests)

    @property
    def max_score(self) -> float:
        return sum(test.max_score for test in self.tests)

    @property
    def all_passed(self) -> bool:
        return all(test.passed for test in self.tests)

    def clean(self) -> int:
        """:meth:`TestResult.clean` on every test, and the same for the top-level strings
        (noted in ``output``). Idempotent: a second call finds nothing. How many were replaced.
        Results with nothing to replace (every grade of honest code, and the writer's second
        call) are told so by one C-encoded pass (:func:`may_need_cleaning`), not walked."""
        if not may_need_cleaning(self._strings()):
            self.bound()
            return 0
        count = sum(test.clean() for test in self.tests)
        top = 0
        self.output, replaced = clean_text(self.output)
        top += replaced
        self.staff_notes, replaced = clean_data(self.staff_notes)
        top += replaced
        self.extra_data, replaced = clean_data(self.extra_data)
        top += replaced
        if top:
            self.output = "\n\n".join(filter(None, [self.output, REPLACED_NOTE.format(count=top)]))
        self.bound()
        return count + top

    def _strings(self) -> list[Any]:
        """Everything :meth:`clean` cleans, as one JSON-like value."""
        return [self.output, self.staff_notes, self.extra_data,
                [[test.name, test.number, test.algorithm, test.case_name, test.visibility,
                  test.output, test.staff_output, test.summary, test.extra_data]
                 for test in self.tests]]

    def bound(self, limit: int = RESULTS_BOUND) -> int:
        """Keep the tests' outputs and extra data under ``limit`` bytes of JSON in all: first
        the largest HTML replays go (``extra_data["replay"]``, traces for the HTML report), then
        every output over an equal share is cut there, saying so. Idempotent. Bytes removed."""
        def size(value: Any) -> int:
            try:  # the C encoder's: 4 times faster than indented
                return len(json.dumps(value, default=str))
            except (TypeError, ValueError):  # keys the writer makes strings later (json_safe)
                return len(repr(value))

        sizes = [size(t.output) + size(t.staff_output) + size(t.extra_data) for t in self.tests]
        before = total = sum(sizes) + size(self.output) + size(self.staff_notes) \
            + size(self.extra_data)
        if total <= limit:
            return 0
        for index in sorted(range(len(self.tests)), key=lambda i: -sizes[i]):
            extra = self.tests[index].extra_data
            if total <= limit:
                break
            if "replay" in extra:
                total -= size(extra.pop("replay"))
                extra["replay_dropped"] = f"results.json is kept under {limit:,} bytes"
        if total > limit and self.tests:
            share = max(limit - size(self.output) - size(self.staff_notes)
                        - size(self.extra_data), 0) // len(self.tests)
            for test in self.tests:
                room = max(share - size(test.staff_output) - size(test.extra_data), 2_000)
                for name in ("output", "staff_output"):
                    text = getattr(test, name)
                    if size(text) > room:
                        keep = max(len(text) * room // size(text) - 200, 0)
                        setattr(test, name, text[:keep] + CUT_NOTE.format(
                            count=len(text) - keep, bound=limit))
            total = sum(size(t.output) + size(t.staff_output) + size(t.extra_data)
                        for t in self.tests) + size(self.output) + size(self.staff_notes) \
                + size(self.extra_data)
        return before - total

    def by_algorithm(self) -> dict[str, list[TestResult]]:
        groups: dict[str, list[TestResult]] = {}
        for test in self.tests:
            groups.setdefault(test.algorithm, []).append(test)
        return groups




def reaches_pass_fraction(earned: float, total: float, pass_fraction: float) -> bool:
    """Whether ``earned`` points reach ``pass_fraction`` of ``total`` (1: full marks), rounding
    aside: the CI reports' pass mark (JUnit's job status, GitHub Classroom's run)."""
    return earned >= pass_fraction * total - 1e-9


def clean_data(value: Any) -> tuple[Any, int]:
    """``value`` (JSON-like data) with :func:`clean_text` applied to every string, keys too."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        cleaned, count = {}, 0
        for key, item in value.items():
            key, replaced_key = clean_data(key)
            cleaned[key], replaced = clean_data(item)
            count += replaced_key + replaced
        return cleaned, count
    if isinstance(value, (list, tuple)):
        items = [clean_data(item) for item in value]
        return type(value)(item for item, _ in items), sum(count for _, count in items)
    return value, 0
