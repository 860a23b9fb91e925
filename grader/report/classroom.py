"""GitHub Classroom's autograding result, from the one results model.

GitHub Classroom's workflow ends with ``classroom-resources/autograding-grading-reporter@v1``:
for each id in its ``runners`` input it reads the environment variable ``<ID>_RESULTS`` (upper
case), base64 of a JSON object ``{"version": 1, "status": "pass"|"fail"|"error", "max_score",
"tests": [{"name", "status", "score", "message", ...}]}``. What it does with them (its v1
``dist/main.js``, which ``@v1`` runs) decides what a student sees:

* the step log prints one line a test, ``✅ name`` or ``❌ name``, and a test's ``message`` only
  when its status is ``error``; so the one-line reason of a failed test goes in its **name**;
* the log's totals ("Total points for RUNNER", the table's "Total") count **tests passed**:
  ``passed / tests x max_score`` a runner, while the "Points X/Y" notice Classroom records adds
  up the tests' ``score``. The two agree only when every test of a runner is all or nothing and
  worth the same. So each test is written as entries that are (a test worth its points, passed
  or not; a test with partial credit, one passed entry for what it earned and one failed entry
  for the rest), and the entries are grouped into one runner a weight (``worth1pt``,
  ``worth0p5pt``; tests worth 0 points, such as the handout's ``evaluate`` checks, in
  ``checks``, which no total counts). Both totals are then the rubric's points.

``grader grade --format classroom`` writes ``classroom.json``: ``{"runners": {ID: runner
result, ...}}``. The grading step of the workflow that ``grader build handout --ci github``
adds hands each runner to the reporter through ``$GITHUB_ENV`` and names them in the step
output ``runners`` (:func:`write_github_step`). Hidden cases keep their points and pass/fail
under a neutral name. A grader failure gives one runner with ``status: "error"`` and the
neutral message, which the reporter prints.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from grader.feedback.markdown import plain_text
from grader.files import write_results_file
from grader.scoring.results import (
    GRADER_ERROR,
    NEUTRAL_GRADER_ERROR,
    GradingResults,
    TestResult,
    reaches_pass_fraction,
)

MAX_MESSAGE = 300  # the reason shown in a failed test's name: one line
CHECKS = "checks"  # the runner of tests worth no points
ERROR_RUNNER = "grading"


def _reason(test: TestResult) -> str:
    if test.outcome == GRADER_ERROR:
        return NEUTRAL_GRADER_ERROR
    text = " ".join(plain_text(test.failure_reason).split())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def _label(test: TestResult) -> str:
    if test.hidden:
        return test.hidden_label
    return f"{test.number} {test.algorithm}: {test.case_name}" if test.case_name else \
        f"{test.number} {test.name}"


def _entry(name: str, status: str, score: float, message: str = "") -> dict[str, Any]:
    return {"name": name, "status": status, "score": round(score, 6), "message": message,
            "test_code": "", "filename": "", "line_no": 0, "duration": 0}


def entries(test: TestResult) -> Iterator[tuple[float, dict[str, Any]]]:
    """``test`` as all-or-nothing entries, each with its weight (what it is worth)."""
    label, points, score = _label(test), round(test.max_score, 6), round(test.score, 6)
    if test.outcome == GRADER_ERROR:
        yield points, _entry(f"{label}: {NEUTRAL_GRADER_ERROR}", "error", 0.0, NEUTRAL_GRADER_ERROR)
    elif test.passed and score >= points:
        yield points, _entry(label, "pass", points)
    elif score <= 0:
        reason = _reason(test)
        yield points, _entry(f"{label}: {reason}", "fail", 0.0, reason)
    else:  # partial credit: what was earned passes, the rest fails with the reason
        reason = _reason(test)
        yield score, _entry(f"{label} ({score:g} of {points:g} points)", "pass", score)
        rest = round(points - score, 6)
        yield rest, _entry(f"{label} (the other {rest:g}): {reason}", "fail", 0.0, reason)


def runner_id(weight: float) -> str:
    """The runner of the entries worth ``weight`` points: letters and digits only (the
    reporter's rule for runner ids; ``<ID>_RESULTS`` is an environment variable)."""
    if weight <= 0:
        return CHECKS
    return f"worth{weight:g}pt".replace(".", "p").replace("-", "m").replace("+", "")


def _runner(tests: list[dict[str, Any]], max_score: float) -> dict[str, Any]:
    statuses = {test["status"] for test in tests}
    status = "error" if "error" in statuses else "fail" if "fail" in statuses else "pass"
    return {"version": 1, "status": status, "max_score": round(max_score, 6), "tests": tests}


def results_dict(results: GradingResults) -> dict[str, Any]:
    """``{"runners": {id: runner result}}``, heaviest entries first, ``checks`` last."""
    results.clean()
    groups: dict[float, list[dict[str, Any]]] = {}
    for test in results.tests:
        for weight, entry in entries(test):
            groups.setdefault(weight, []).append(entry)
    runners = {}
    for weight in sorted(groups, key=lambda w: (w <= 0, -w)):
        tests = groups[weight]
        runners[runner_id(weight)] = _runner(tests, weight * len(tests) if weight > 0 else 0)
    return {"runners": runners}


def error_results(message: str, detail: str = "") -> dict[str, Any]:
    """The grader failed: one runner in error, the neutral message (the reporter prints it)."""
    return {"runners": {ERROR_RUNNER: _runner(
        [_entry("autograder error", "error", 0.0, NEUTRAL_GRADER_ERROR)], 0)}}


def write_results(results: GradingResults, path: Path) -> dict[str, Any]:
    """Write ``results`` to ``path``; on any failure write :func:`error_results` instead."""
    return write_results_file(path, lambda: results_dict(results), error_results)


def write_github_step(results_path: Path, env_file: Path | None = None,
                      output_file: Path | None = None, *, pass_fraction: float = 1.0) -> list[str]:
    """Hand ``classroom.json`` to the reporter: ``<ID>_RESULTS=<base64>`` lines appended to
    ``env_file`` (``$GITHUB_ENV``: the next steps' environment) and ``runners=<ids>`` to
    ``output_file`` (``$GITHUB_OUTPUT``). A missing or unreadable file is handed on as the
    grader-failure runner, so the reporter always has something to show.

    The reporter fails the run when a runner's status is ``fail``: when the points reach
    ``pass_fraction`` of the total (1, the default: full marks), failed runners are handed on
    as ``pass`` (their tests still show their crosses), so the run passes. The runner ids."""
    env_file = Path(env_file or os.environ["GITHUB_ENV"])
    output_file = Path(output_file or os.environ["GITHUB_OUTPUT"])
    try:
        runners = json.loads(Path(results_path).read_text(encoding="utf-8"))["runners"]
        if not isinstance(runners, dict) or not runners:
            raise ValueError("no runners")
    except (OSError, ValueError, KeyError, TypeError):
        runners = error_results("no classroom.json")["runners"]
    earned = sum(test.get("score", 0) for data in runners.values() for test in data["tests"])
    total = sum(data.get("max_score", 0) for data in runners.values())
    if reaches_pass_fraction(earned, total, pass_fraction):
        for data in runners.values():
            data["status"] = "pass" if data["status"] == "fail" else data["status"]
    with env_file.open("a", encoding="utf-8") as stream:
        for name, data in runners.items():
            encoded = base64.b64encode(json.dumps(data).encode()).decode()
            stream.write(f"{name.upper()}_RESULTS={encoded}\n")
    with output_file.open("a", encoding="utf-8") as stream:
        stream.write(f"runners={','.join(runners)}\n")
    print(f"points {earned:g}/{total:g} (the reporter's log and its \"Points\" notice alike)")
    return list(runners)
