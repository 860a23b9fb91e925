"""The terminal report for ``grader check``: a score table per algorithm, then each failure.

Colour only when the stream is a terminal and ``NO_COLOR`` is unset (https://no-color.org).
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from grader.results import GradingResults, TestResult

GREEN, YELLOW, RED, BOLD, RESET = "\033[32m", "\033[33m", "\033[31m", "\033[1m", "\033[0m"
MARKS = {"passed": "PASS", "wrong_trace": "PART"}


def use_colour(stream: TextIO) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR")


def _paint(text: str, colour: str, enabled: bool) -> str:
    return f"{colour}{text}{RESET}" if enabled else text


def _mark(test: TestResult, colour: bool) -> str:
    mark = MARKS.get(test.outcome, "FAIL")
    tint = GREEN if test.passed else YELLOW if test.outcome == "wrong_trace" else RED
    return _paint(mark, tint, colour)


def score_table(results: GradingResults, colour: bool = False) -> str:
    """One row a test, grouped by algorithm, with per-algorithm and total scores."""
    lines = []
    for algorithm, tests in results.by_algorithm().items():
        earned = sum(test.score for test in tests)
        possible = sum(test.max_score for test in tests)
        passed = sum(test.passed for test in tests)
        header = f"{algorithm}: {earned:g}/{possible:g} points, {passed}/{len(tests)} tests passed"
        lines.append(_paint(header, BOLD, colour))
        for test in tests:
            label = test.name.split(": ", 1)[-1]
            if len(label) > 70:
                label = label[:67] + "..."
            score = f"{test.score:g}/{test.max_score:g}"
            lines.append(f"  {_mark(test, colour)} {test.number:>5} {score:>7}  {label}")
            if not test.passed and test.summary:
                lines.append(f"{'':22}{test.summary[:76]}")
    lines.append("")
    lines.append(_paint(f"Total: {results.score:g}/{results.max_score:g}", BOLD, colour))
    return "\n".join(lines)


def failure_details(results: GradingResults) -> str:
    blocks = []
    for test in results.tests:
        if test.passed or not test.output:
            continue
        blocks.append(f"--- {test.number} {test.name} ---\n{test.output.rstrip()}\n")
    return "\n".join(blocks)


def print_report(results: GradingResults, stream: TextIO = sys.stdout) -> None:
    colour = use_colour(stream)
    details = failure_details(results)
    if details:
        stream.write(details + "\n")
    stream.write(score_table(results, colour) + "\n")
