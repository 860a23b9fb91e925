"""Write ``results.json`` through gradescope-utils, atomically, valid whatever happens.

Each :class:`~grader.scoring.results.TestResult` becomes one unittest test method that replays the
already-computed result, decorated with gradescope-utils' ``@weight``/``@number``/
``@visibility``/``@partial_credit``. Student code never runs here: it ran in the sandbox.

gradescope-utils traps this module avoids (each pinned by a test in tests/test_gradescope.py):

* ``@partial_credit`` returns a wrapper whose ``set_score`` writes to *that* wrapper; any
  decorator above it that copies ``__dict__`` (``functools.wraps``) would hide the score. Here
  ``@partial_credit`` is the outermost decorator and the others only set attributes.
* skipped tests and failing ``subTest``\\ s are dropped from ``tests[]``: nothing here skips.
* ``execution_time`` is written as a string: the post-processor makes it a number.
* the runner writes to its ``stream``: it gets a private buffer, never stdout, so nothing a
  submission printed can corrupt or forge the file.
* the runner encodes its results as indented JSON (Python's pure encoder: as much CPU as
  writing the file itself, about 0.02 s for a whole grade's 145 tests): the post-processor
  takes the finished dict and empties the runner's, which then encodes ``{}``; the file is
  encoded once, by :func:`grader.files.write_results_file`.
"""

from __future__ import annotations

import io
import unittest
from pathlib import Path
from typing import Any

from gradescope_utils.autograder_utils.decorators import number, partial_credit, visibility
from gradescope_utils.autograder_utils.json_test_runner import JSONTestRunner

from grader.feedback.markdown import fenced
from grader.files import json_safe, write_results_file
from grader.scoring.results import GradingResults, TestResult, clean_data

# What a student reads when no part of the submission could be graded (run_autograder's own
# fallback says the same).
NEUTRAL_SUBMISSION_ERROR = (
    "The autograder could not grade this submission because of a problem on the course staff's "
    "side. Staff have been told and will regrade this submission."
)


def _test_method(result: TestResult):
    def replay(self, set_score=None):
        set_score(result.score)
        if result.output:
            print(result.output)
        if not result.passed:
            raise self.failureException(result.summary or "not passed")

    replay.__doc__ = result.name
    replay = number(result.number)(replay)
    replay = visibility(result.visibility)(replay)
    return partial_credit(result.max_score)(replay)  # outermost: see the module docstring


def results_dict(results: GradingResults) -> dict[str, Any]:
    """The Gradescope results as a dict, produced by gradescope-utils' JSONTestRunner."""
    results.clean()  # no NUL or lone surrogate reaches the file, whoever built the results
    methods = {
        f"test_{index:04d}": _test_method(test) for index, test in enumerate(results.tests)
    }
    suite_class = type("GradedTests", (unittest.TestCase,), methods)
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(suite_class)
    final: dict[str, Any] = {}

    def post_process(data: dict[str, Any]) -> None:
        data["execution_time"] = round(float(results.execution_time or data["execution_time"]), 3)
        data["score"] = round(sum(test.get("score", 0.0) for test in data["tests"]), 6)
        data["output"] = results.output
        data["output_format"] = "md"
        data["test_output_format"] = "md"
        data["stdout_visibility"] = "hidden"
        if results.leaderboard:
            data["leaderboard"] = json_safe(results.leaderboard)
        if not data.get("leaderboard"):
            data.pop("leaderboard", None)
        extra = dict(results.extra_data)
        if results.staff_notes:
            extra["staff_notes"] = results.staff_notes
        if extra:
            data["extra_data"] = extra
        for test, source in zip(data["tests"], results.tests):
            # JSONTestRunner appends "Test Failed: <summary>"; our output already says it.
            test["output"] = source.output or source.summary
            test["output_format"] = "md"
            extra = json_safe({**source.extra_data, "outcome": source.outcome})
            if source.staff_output:
                extra["staff_output"] = source.staff_output
            test["extra_data"] = extra
        final.update(data)  # the results, taken before the runner encodes them
        data.clear()  # what the runner encodes next: {} (module docstring)

    JSONTestRunner(stream=io.StringIO(), post_processor=post_process,
                   failure_prefix="").run(suite)
    return final


def error_results(message: str, detail: str = "") -> dict[str, Any]:
    """The results when grading itself failed: score 0 and only :data:`NEUTRAL_SUBMISSION_ERROR`
    for the student (an exception's text may name a hidden case or a staff path); ``message``
    and ``detail`` go to staff in a hidden test."""
    staff = clean_data(f"{message}\n\n{fenced(detail.rstrip())}" if detail.strip() else message)[0]
    return {
        "score": 0.0,
        "output": NEUTRAL_SUBMISSION_ERROR,
        "output_format": "md",
        "stdout_visibility": "hidden",
        "tests": [
            {
                "name": "Autograder error (visible to staff only)",
                "score": 0.0,
                "max_score": 0.0,
                "status": "failed",
                "visibility": "hidden",
                "output": staff,
                "output_format": "md",
            }
        ],
    }


def write_results(results: GradingResults, path: Path) -> dict[str, Any]:
    """Write ``results`` to ``path``; on any failure write :func:`error_results` instead."""
    return write_results_file(path, lambda: results_dict(results), error_results)


