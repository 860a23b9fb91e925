"""PrairieLearn's external-grader ``results.json``, from the one results model.

The fields are PrairieLearn's (docs/externalGrading.md of PrairieLearn/PrairieLearn, "Grading
results"): ``score`` as a fraction in [0, 1]; ``gradable`` (false: the attempt is neither
scored nor counted against the student); ``message`` and ``output`` for the whole submission;
``tests[]`` of ``{name, description, points, max_points, message, output}``, which the
``<pl-external-grader-results>`` element renders. The file must stay under 1 MB.

What students may not see: PrairieLearn shows every test it is given and has no per-test
visibility, so the tests of a case that is not ``visible`` in the rubric are folded into one
"Hidden tests" entry carrying how many there are and their points, nothing else (no names, no
feedback, not even which of them failed); staff notes (audit findings, grader errors) are never
written here: ``grader grade`` prints them to the grading job's log, which only staff read. A
test's ``output`` leaves out what its ``message`` says (:func:`after_message`): the results
element prints both.

When the grader, not the student, failed on any test, the submission is ``gradable: false``:
PrairieLearn then neither scores the attempt nor counts it, and staff regrade it. So is an upload
that is no Python program at all (PrairieLearn's own examples of "not gradable": a syntax error,
missing or malformed input): a syntax error, a notebook that is not JSON or is empty, an upload
that defines none of the graded functions, an upload with no ``search.py``; the reasons go in
``format_errors``, which PrairieLearn shows as errors, and no attempt is used.

Text is written for ``<pre>``: ``<pl-external-grader-results>`` puts ``message`` and ``output``
in ``<pre>`` blocks (through ansi2html, which escapes HTML but renders ANSI colours) and renders
no Markdown, so the feedback's Markdown is turned into plain text
(:func:`grader.feedback.markdown.plain_text`) and control characters a submission printed are
dropped (no colours or cursor moves of the student's making).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.feedback.markdown import plain_text
from grader.files import json_text, write_results_file
from grader.scoring.results import (
    GRADER_ERROR,
    NEUTRAL_GRADER_ERROR,
    UPLOAD_ERROR,
    GradingResults,
    TestResult,
)
from grader.scoring.upload import NOTHING_GRADED

MAX_BYTES = 1_000_000  # PrairieLearn's limit on results.json
HIDDEN_NAME = "Hidden tests"
# What the one line of the hidden tests shows (docs/staff.md and the PrairieLearn README say so)
HIDDEN_DESCRIPTION = "{count} hidden tests: their points only, no names or feedback"


MISSING = "missing"  # the outcome of a test whose function the upload does not define
NO_FUNCTIONS = "search.py defines none of the functions graded here (those of {names})."


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 40)] + "\n... (cut: too long)"


def pre_text(markdown: str) -> str:
    """The feedback's Markdown as the text PrairieLearn shows in ``<pre>``."""
    return plain_text(markdown)


def format_errors(results: GradingResults) -> list[str]:
    """Why the upload is not gradable in PrairieLearn's sense, one line each; empty when it is.

    Not gradable when no test could run any of its code because of the upload itself: every
    test says the upload is not Python (:data:`UPLOAD_ERROR`: a syntax error, a notebook that
    cannot be read), holds no ``search.py`` (``not_graded``), or lacks its function. A
    submission whose code ran (an exception at import time, a wrong answer) is graded."""
    reasons: list[str] = []
    missing = []
    for test in results.tests:
        if UPLOAD_ERROR in test.extra_data:
            reason = f"The upload could not be read: {test.extra_data[UPLOAD_ERROR]}"
        elif test.outcome == NOTHING_GRADED and test.algorithm == "submission":
            reason = test.summary or "nothing in the upload could be graded"
        elif test.outcome == MISSING:
            missing.append(test.algorithm)
            continue
        else:
            return []
        reason = pre_text(reason)
        if reason not in reasons:
            reasons.append(reason)
    if missing and not reasons:
        reasons.append(NO_FUNCTIONS.format(names=", ".join(dict.fromkeys(missing))))
    return reasons


def _test_entry(test: TestResult, limit: int) -> dict[str, Any]:
    message = pre_text(test.summary or ("passed" if test.passed else "not passed"))
    return {
        "name": f"{test.number} {pre_text(test.name)}",
        "description": test.case_name,
        "points": round(test.score, 6),
        "max_points": round(test.max_score, 6),
        "message": _cut(message, 2000),
        "output": _cut(after_message(pre_text(test.output), message), limit),
    }


def after_message(output: str, message: str) -> str:
    """``output`` without its first paragraph when that says what ``message`` says (a test's
    feedback most often opens with its summary line): PrairieLearn's results element shows
    both, one above the other, so the failure is then shown once."""
    head, _, rest = output.partition("\n\n")
    if " ".join(head.split()) == " ".join(message.split()) or (
            head.startswith(message) and not head[len(message):].strip(" .:")):
        return rest.lstrip("\n")
    if output.startswith(message) and output[len(message):len(message) + 1] in ("\n", ""):
        return output[len(message):].lstrip("\n")
    if message and output.startswith(message + ": "):  # the summary, then more of the sentence
        more = output[len(message) + 2:]
        return more[:1].upper() + more[1:]
    return output


def results_dict(results: GradingResults) -> dict[str, Any]:
    """PrairieLearn's results as a dict; always under :data:`MAX_BYTES` once written."""
    results.clean()  # no NUL or lone surrogate reaches the file, whoever built the results
    shown = [test for test in results.tests if not test.hidden]
    hidden = [test for test in results.tests if test.hidden]
    grader_failed = any(test.outcome == GRADER_ERROR for test in results.tests)
    errors = [] if grader_failed else format_errors(results)
    total = results.max_score
    score = min(1.0, max(0.0, results.score / total)) if total > 0 else 0.0
    data: dict[str, Any] = {
        "gradable": not grader_failed and not errors,
        "score": round(score, 6),
        "message": pre_text(results.output) or f"{results.score:g} of {total:g} points",
        "tests": [],
    }
    if grader_failed:
        data["message"] = NEUTRAL_GRADER_ERROR
    if errors:  # not gradable: no attempt used; the reasons shown as PrairieLearn's errors
        data["format_errors"] = [_cut(error, 2000) for error in errors]
        data["message"] = ("This upload could not be graded, so it does not count as an "
                           "attempt: fix what the errors above say and submit again.")
    limit = 100_000
    while True:  # long feedback (drawn trees) is cut until the file fits
        data["tests"] = [_test_entry(test, limit) for test in shown]
        if hidden:
            data["tests"].append({
                "name": HIDDEN_NAME,
                "description": HIDDEN_DESCRIPTION.format(count=len(hidden)),
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
