"""GitHub Classroom's autograding result, from the one results model.

GitHub Classroom's workflow ends with ``classroom-resources/autograding-grading-reporter``: for
each id in its ``runners`` input it reads the environment variable ``<ID>_RESULTS`` (upper
case), base64 of a JSON object ``{"version": 1, "status": "pass"|"fail"|"error", "max_score",
"tests": [{"name", "status", "score", "message", ...}]}``; it adds up the tests' ``score``
against the ``max_score``s and writes "Points X/Y" on the run, which Classroom records. This
module writes that JSON; the workflow ``grader build handout --ci github`` adds base64-encodes
it into a step output (grader/commands/build_ci.py).

Messages are the one-line summaries (the workflow output that carries them is size-limited);
hidden cases keep their points and pass/fail under a neutral name. A grader failure gives
``status: "error"`` with the neutral message and no points.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.files import write_results_file
from grader.scoring.results import GRADER_ERROR, NEUTRAL_GRADER_ERROR, GradingResults, TestResult

MAX_MESSAGE = 500


def _status(test: TestResult) -> str:
    if test.outcome == GRADER_ERROR:
        return "error"
    return "pass" if test.passed else "fail"


def _entry(test: TestResult) -> dict[str, Any]:
    if test.outcome == GRADER_ERROR:
        message = NEUTRAL_GRADER_ERROR
    elif test.hidden:
        message = "" if test.passed else "not passed"
    else:
        message = test.summary or ("" if test.passed else "not passed")
    return {
        "name": f"hidden test {test.number}" if test.hidden else f"{test.number} {test.name}",
        "status": _status(test),
        "score": round(test.score, 6),
        "message": message[:MAX_MESSAGE],
        "test_code": "",
        "filename": "",
        "line_no": 0,
        "duration": 0,
    }


def results_dict(results: GradingResults) -> dict[str, Any]:
    tests = [_entry(test) for test in results.tests]
    statuses = {test["status"] for test in tests}
    status = "error" if "error" in statuses else "fail" if "fail" in statuses else "pass"
    return {"version": 1, "status": status, "max_score": round(results.max_score, 6),
            "tests": tests}


def error_results(message: str, detail: str = "") -> dict[str, Any]:
    return {"version": 1, "status": "error", "max_score": 0,
            "tests": [{"name": "autograder error", "status": "error", "score": 0,
                       "message": NEUTRAL_GRADER_ERROR, "test_code": "", "filename": "",
                       "line_no": 0, "duration": 0}]}



def write_results(results: GradingResults, path: Path) -> dict[str, Any]:
    """Write ``results`` to ``path``; on any failure write :func:`error_results` instead."""
    return write_results_file(path, lambda: results_dict(results), error_results)
