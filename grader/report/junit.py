"""JUnit XML from the one results model: the report GitLab CI, Jenkins, GitHub Actions'
test-report actions and most other CI systems read.

Layout: ``<testsuites>`` holding one ``<testsuite>`` an algorithm (``name``: the algorithm),
one ``<testcase>`` a test (``classname`` ``search.<algorithm>``, ``name`` its number and
name). A test that earns less than its points has a ``<failure>`` (``type``: the outcome,
``message``: the points and the one-line summary, text: the feedback); a test the grader
failed on has an ``<error>`` with the neutral message. Points are kept where JUnit has room for
them: ``score``/``max_score`` ``<property>`` elements on each suite (the whole report's total is
their sum: Jenkins' xUnit schema, junit-10.xsd, allows ``<properties>`` in a ``<testsuite>``
only, and skips or fails on a report that has them under ``<testsuites>``). Times are 0: the
report is the same on every machine. Every report, the grader-failure one included, is valid
against junit-10.xsd (tests/test_formats.py checks it against a vendored copy).

Hidden cases (not ``visible`` in the rubric) keep their points and pass/fail, under a neutral
name ("hidden test 2.3"), with no feedback. Text that XML 1.0 cannot hold (control characters a
submission printed) is dropped, so every report parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from grader.files import write_results_file
from grader.scoring.results import (
    GRADER_ERROR,
    NEUTRAL_GRADER_ERROR,
    GradingResults,
    TestResult,
    reaches_pass_fraction,
)

SUITES_NAME = "adversarial-search"
MAX_TEXT = 100_000  # characters of feedback a test
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str, limit: int = MAX_TEXT) -> str:
    value = _NOT_XML.sub("", value)
    return value if len(value) <= limit else value[: limit - 20] + "\n... (cut)"


def _points(value: float) -> str:
    return f"{round(value, 6):g}"


def _properties(parent: ET.Element, score: float, max_score: float) -> None:
    properties = ET.SubElement(parent, "properties")
    ET.SubElement(properties, "property", name="score", value=_points(score))
    ET.SubElement(properties, "property", name="max_score", value=_points(max_score))


def _testcase(suite: ET.Element, test: TestResult) -> None:
    name = test.hidden_label if test.hidden else f"{test.number} {test.name}"
    case = ET.SubElement(suite, "testcase", classname=f"search.{test.algorithm}",
                         name=_text(name, 500), time="0")
    points = f"{_points(test.score)}/{_points(test.max_score)} points"
    if test.outcome == GRADER_ERROR:
        error = ET.SubElement(case, "error", type="grader_error", message=NEUTRAL_GRADER_ERROR)
        error.text = NEUTRAL_GRADER_ERROR
    elif not test.passed:
        reason = test.failure_reason
        failure = ET.SubElement(case, "failure", type=test.outcome,
                                message=_text(f"{points}: {reason}", 2000))
        failure.text = "" if test.hidden else _text(test.output or reason)
    if not test.hidden:
        ET.SubElement(case, "system-out").text = points


def results_xml(results: GradingResults) -> str:
    """The JUnit report as text (UTF-8 XML with its declaration)."""
    root = ET.Element("testsuites", name=SUITES_NAME)
    counts = {"tests": 0, "failures": 0, "errors": 0}
    for algorithm, tests in results.by_algorithm().items():
        failures = sum(1 for t in tests if not t.passed and t.outcome != GRADER_ERROR)
        errors = sum(1 for t in tests if t.outcome == GRADER_ERROR)
        suite = ET.SubElement(root, "testsuite", name=algorithm, tests=str(len(tests)),
                              failures=str(failures), errors=str(errors), skipped="0", time="0")
        _properties(suite, sum(t.score for t in tests), sum(t.max_score for t in tests))
        for test in tests:
            _testcase(suite, test)
        counts["tests"] += len(tests)
        counts["failures"] += failures
        counts["errors"] += errors
    root.set("tests", str(counts["tests"]))
    root.set("failures", str(counts["failures"]))
    root.set("errors", str(counts["errors"]))
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def error_xml(message: str, detail: str = "") -> str:
    """The report when grading itself failed: one test in error, with the neutral message."""
    root = ET.Element("testsuites", name=SUITES_NAME, tests="1", failures="0", errors="1", time="0")
    suite = ET.SubElement(root, "testsuite", name="grader", tests="1", failures="0", errors="1",
                          skipped="0", time="0")
    case = ET.SubElement(suite, "testcase", classname="grader", name="autograder error", time="0")
    error = ET.SubElement(case, "error", type="grader_error", message=NEUTRAL_GRADER_ERROR)
    error.text = NEUTRAL_GRADER_ERROR
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_results(results: GradingResults, path: Path) -> str:
    """Write ``results`` to ``path``; on any failure write :func:`error_xml` instead."""
    return write_results_file(path, lambda: results_xml(results), error_xml)


def meets(path: Path, pass_fraction: float = 1.0) -> int:
    """The CI job's exit status for the report at ``path``: 0 when its points reach
    ``pass_fraction`` of the total (1: full marks) and the grader did not fail, else 1, with
    one line saying why. GitLab's test report never decides a job's status (its docs: "Unit test
    reports ... do not affect job status"), so the job's script runs this after grading."""
    try:
        root = ET.parse(str(path)).getroot()
    except (OSError, ET.ParseError) as error:
        print(f"no readable JUnit report at {path}: {error}")
        return 1
    score = total = 0.0
    for suite in root.iter("testsuite"):
        points = {p.get("name"): p.get("value") for p in suite.iter("property")}
        score += float(points.get("score") or 0)
        total += float(points.get("max_score") or 0)
    errors = sum(int(suite.get("errors") or 0) for suite in root.iter("testsuite"))
    if errors:
        print(f"the grader failed on {errors} test(s): see the report; the job fails")
        return 1
    needed = f"{pass_fraction * 100:g}% of the points (PASS_FRACTION {pass_fraction:g})"
    if not reaches_pass_fraction(score, total, pass_fraction):
        print(f"points {score:g}/{total:g}: below {needed}, so the job fails")
        return 1
    print(f"points {score:g}/{total:g}: at least {needed}; the job passes")
    return 0
