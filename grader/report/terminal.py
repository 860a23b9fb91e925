"""The terminal report for ``grader check``: each failure explained, then a score table.

The failure texts are the tests' Markdown outputs (the same the Gradescope page shows), made
readable in a terminal: code fences dropped, ``**bold**`` bold. A function that is not
implemented yet gets one line, not one block per case. Colour only when the stream is a
terminal and ``NO_COLOR`` is unset (https://no-color.org); ASCII instead of box lines and
symbols when the stream is not UTF-8 or ``GRADER_ASCII`` is set.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TextIO

from grader.feedback.drawing import WIDTH, asciify, wants_ascii
from grader.scoring.results import GradingResults, TestResult

GREEN, YELLOW, RED, CYAN, BOLD, RESET = (
    "\033[32m", "\033[33m", "\033[31m", "\033[36m", "\033[1m", "\033[0m")
MARKS = {"passed": "PASS", "wrong_trace": "PART", "budget": "STOP"}
NOT_IMPLEMENTED = "not_implemented"
_FUNCTION = re.compile(r"`(\w+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


def use_colour(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    if not (isatty and isatty()) or os.environ.get("NO_COLOR"):
        return False
    return not sys.platform.startswith("win") or _windows_escapes(stream)


def _windows_escapes(stream: TextIO) -> bool:
    """Whether the Windows console behind ``stream`` shows ANSI colour codes: it does once
    asked to (virtual terminal processing, Windows 10 and later; Windows Terminal always);
    an older console would print them as ``<-[32m``, so there the report has no colour."""
    try:
        import ctypes
        import msvcrt

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = msvcrt.get_osfhandle(stream.fileno())  # type: ignore[attr-defined]
        mode = ctypes.c_uint32()
        if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
            return False
        return bool(mode.value & _VIRTUAL_TERMINAL
                    or kernel32.SetConsoleMode(handle, mode.value | _VIRTUAL_TERMINAL))
    except (ImportError, AttributeError, OSError, ValueError):
        return False


_VIRTUAL_TERMINAL = 0x0004  # ENABLE_VIRTUAL_TERMINAL_PROCESSING


def _paint(text: str, colour: str, enabled: bool) -> str:
    return f"{colour}{text}{RESET}" if enabled else text


def _tint(test: TestResult) -> str:
    return GREEN if test.passed else YELLOW if test.outcome == "wrong_trace" else RED


def _mark(test: TestResult, colour: bool) -> str:
    return _paint(MARKS.get(test.outcome, "FAIL"), _tint(test), colour)


def score_table(results: GradingResults, colour: bool = False) -> str:
    """One row a test, grouped by algorithm, with per-algorithm and total scores."""
    lines = []
    diagnoses = results.extra_data.get("diagnoses") or {}
    for algorithm, tests in results.by_algorithm().items():
        earned = sum(test.score for test in tests)
        possible = sum(test.max_score for test in tests)
        passed = sum(test.passed for test in tests)
        header = f"{algorithm}: {earned:g}/{possible:g} points, {passed}/{len(tests)} tests passed"
        lines.append(_paint(header, BOLD, colour))
        if algorithm in diagnoses:  # one diagnosis for the algorithm, from every case of it
            lines.append(f"  likely mistake: {diagnoses[algorithm]['title']}"[:WIDTH])
        for test in tests:
            label = test.name.split(": ", 1)[-1]
            if len(label) > 70:
                label = label[:67] + "..."
            score = f"{test.score:g}/{test.max_score:g}"
            lines.append(f"  {_mark(test, colour)} {test.number:>5} {score:>7}  {label}")
            if not test.passed and test.summary and test.outcome != NOT_IMPLEMENTED:
                lines.append(f"{'':22}{test.summary[:76]}")
    lines.append("")
    lines.append(_paint(f"Total: {results.score:g}/{results.max_score:g}", BOLD, colour))
    return "\n".join(lines)


def terminal_text(markdown: str, colour: bool = False) -> str:
    """A test's Markdown output for a terminal: no code fences, bold where it was bold."""
    lines = [line for line in markdown.rstrip().splitlines() if not line.startswith("```")]
    text = "\n".join(lines)
    return _BOLD.sub(lambda m: _paint(m.group(1), BOLD, colour), text)


def not_implemented_lines(results: GradingResults) -> list[str]:
    """One line per function that is not implemented yet, with the tests it fails."""
    by_function: dict[str, list[str]] = {}
    for test in results.tests:
        if test.outcome == NOT_IMPLEMENTED:
            found = _FUNCTION.search(test.summary or test.output)
            by_function.setdefault(found.group(1) if found else test.algorithm, []).append(
                test.number)
    lines = []
    for function, numbers in by_function.items():
        shown = ", ".join(numbers[:6]) + (f" and {len(numbers) - 6} more" if len(numbers) > 6 else "")
        plural = "s" if len(numbers) > 1 else ""
        lines.append(f"`{function}` is not implemented yet: {len(numbers)} test{plural} ({shown}).")
    return lines


def failure_details(results: GradingResults, colour: bool = False) -> str:
    """Each failure's explanation; not-implemented functions summed up in one line each."""
    blocks = []
    for test in results.tests:
        shown = test.passed and (test.extra_data or {}).get("show_output")  # evaluate's check
        if (test.passed and not shown) or not test.output or test.outcome == NOT_IMPLEMENTED:
            continue
        title = f"--- {test.number} {test.name}"
        title = title[:WIDTH - 8] + "... ---" if len(title) > WIDTH - 4 else title + " ---"
        header = _paint(title, _tint(test), colour)
        blocks.append(f"{header}\n{terminal_text(test.output, colour)}\n")
    pending = not_implemented_lines(results)
    if pending:
        blocks.append(_paint("--- not implemented yet ---", CYAN, colour) + "\n"
                      + "\n".join(pending) + "\n")
    return "\n".join(blocks)


def print_report(results: GradingResults, stream: TextIO = sys.stdout) -> None:
    colour = use_colour(stream)
    text = failure_details(results, colour)
    if results.output:
        text += ("\n" if text else "") + terminal_text(results.output, colour) + "\n"
    text = (text + "\n" if text else "") + score_table(results, colour) + "\n"
    stream.write(asciify(text) if wants_ascii(stream) else text)
