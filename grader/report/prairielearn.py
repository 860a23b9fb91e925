"""PrairieLearn's external-grader ``results.json``, from the one results model.

The fields are PrairieLearn's (docs/externalGrading.md of PrairieLearn/PrairieLearn, "Grading
results"): ``score`` as a fraction in [0, 1]; ``gradable`` (false: the attempt is neither
scored nor counted against the student); ``message`` and ``output`` for the whole submission;
``tests[]`` of ``{name, description, points, max_points, message, output}``, which the
``<pl-external-grader-results>`` element renders. The file must stay under 1 MB.

What students may not see: PrairieLearn shows every test it is given and has no per-test
visibility, so the tests of a case that is not ``visible`` in the rubric are folded into one
"Hidden tests" entry carrying their points and nothing else (no names, no feedback, not even
which of them failed); staff notes (audit findings, grader errors) are never written here:
``grader grade`` prints them to the grading job's log, which only staff read.

When the grader, not the student, failed on any test, the submission is ``gradable: false``:
PrairieLearn then neither scores the attempt nor counts it, and staff regrade it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.files import json_text, write_results_file
from grader.scoring.results import GRADER_ERROR, NEUTRAL_GRADER_ERROR, GradingResults, TestResult

MAX_BYTES = 1_000_000  # PrairieLearn's limit on results.json
HIDDEN_NAME = "Hidden tests"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 40)] + "\n... (cut: too long)"


def _test_entry(test: TestResult, limit: int) -> dict[str, Any]:
    return {
        "name": f"{test.number} {test.name}",
        "description": test.case_name,
        "points": round(test.score, 6),
        "max_points": round(test.max_score, 6),
        "message": _cut(test.summary or ("passed" if test.passed else "not passed"), 2000),
        "output": _cut(test.output, limit),
    }


def results_dict(results: GradingResults) -> dict[str, Any]:
    """PrairieLearn's results as a dict; always under :data:`MAX_BYTES` once written."""
    shown = [test for test in results.tests if not test.hidden]
    hidden = [test for test in results.tests if test.hidden]
    grader_failed = any(test.outcome == GRADER_ERROR for test in results.tests)
    total = results.max_score
    score = min(1.0, max(0.0, results.score / total)) if total > 0 else 0.0
    data: dict[str, Any] = {
        "gradable": not grader_failed,
        "score": round(score, 6),
        "message": results.output or f"{results.score:g} of {total:g} points",
        "tests": [],
    }
    if grader_failed:
        data["message"] = NEUTRAL_GRADER_ERROR
    limit = 100_000
    while True:  # long feedback (drawn trees) is cut until the file fits
        data["tests"] = [_test_entry(test, limit) for test in shown]
        if hidden:
            data["tests"].append({
                "name": HIDDEN_NAME,
                "description": f"{len(hidden)} tests whose details are not shown",
                "points": round(sum(test.score for test in hidden), 6),
                "max_points": round(sum(test.max_score for test in hidden), 6),
                "message": "",
                "output": "",
            })
        if len(json_text(data).encode()) < MAX_BYTES or limit == 0:
            break
        limit //= 4
    if len(json_text(data).encode()) >= MAX_BYTES:  # summaries alone too long: totals only
        data["message"] = _cut(data["message"], 10_000)
        data["tests"] = []
    return data


def error_results(message: str, detail: str = "") -> dict[str, Any]:
    """The results when grading itself failed: not gradable (no attempt used), a neutral message.
    ``detail`` is for staff: :func:`grader.commands.grade.grade_main` prints it to the log."""
    return {"gradable": False, "score": 0.0, "message": NEUTRAL_GRADER_ERROR, "tests": []}



def write_results(results: GradingResults, path: Path) -> dict[str, Any]:
    """Write ``results`` to ``path``; on any failure write :func:`error_results` instead."""
    return write_results_file(path, lambda: results_dict(results), error_results)
