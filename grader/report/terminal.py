"""The terminal report for ``grader check``: the score table first, then each failure explained.

The table has a line an algorithm, its named mistake once, and a row per failing test. Then,
per algorithm with a failure, one block: the named mistake's hint once, and the failing tests,
the smallest first, each with its first difference (the first with its tree), within one
terminal screen (:data:`BLOCK_LINES`), a failure word for word like one above (the same
exception) listed by number instead; the rest listed by number, every one in full with
``verbose`` (``grader check --verbose``) or in the HTML report. The failure texts are the tests'
Markdown outputs (the same the Gradescope page shows), made plain terminal text: code fences,
code spans' backticks, backslash escapes and headings' ``#`` dropped, ``**bold**`` bold, tables
aligned in columns (:func:`grader.feedback.markdown.aligned_tables`, the same tables the
Markdown shows), prose wrapped to the terminal's width (``COLUMNS`` honoured, at most 100
columns); :func:`markdown_for_terminal` does the same for ``grader play``. ``evaluate``'s values
on sample positions (the handout's check, shown though it passes) only with ``verbose``. A
function that is not implemented yet gets one line, not one block per case.
Colour only when the stream is a terminal and ``NO_COLOR`` is unset (https://no-color.org);
ASCII instead of box lines and symbols when the stream is not UTF-8 or ``GRADER_ASCII`` is set.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from typing import TextIO

from grader.feedback.drawing import LEGEND, WIDTH, asciify, wants_ascii
from grader.feedback.failure import TREE_HEADING
from grader.feedback.markdown import aligned_tables, unmarked_line
from grader.scoring.results import GradingResults, TestResult

GREEN, YELLOW, RED, CYAN, BOLD, RESET = (
    "\033[32m", "\033[33m", "\033[31m", "\033[36m", "\033[1m", "\033[0m")
MARKS = {"passed": "PASS", "wrong_trace": "PART", "budget": "STOP"}
NOT_IMPLEMENTED = "not_implemented"
_FUNCTION = re.compile(r"`(\w+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_HEADING = re.compile(r"^#{1,6} +(.*)$")
_CODE_SPAN = re.compile(r"(?<!\\)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
MIN_WIDTH = 40
BLOCK_LINES = 50  # an algorithm's failures by default: one terminal screen


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


def terminal_width(stream: TextIO | None = None) -> int:
    """The columns the report may use: ``COLUMNS`` when set, else the width of the terminal
    ``stream`` is (100 when it is none), kept within 40 and :data:`WIDTH` (100)."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit():
        found = int(columns)
    else:
        found = WIDTH
        isatty = getattr(stream, "isatty", None)
        if isatty is not None and isatty():
            try:
                found = os.get_terminal_size(stream.fileno()).columns
            except (AttributeError, OSError, ValueError):
                found = WIDTH
    return max(MIN_WIDTH, min(WIDTH, found))


def _wrapped(text: str, width: int, indent: str = "", first: str = "") -> list[str]:
    """``text`` wrapped to ``width`` at spaces (never mid-word), ``first`` before its first
    line and ``indent`` before the others."""
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=False) or [first.rstrip()]


def _row_summary(test: TestResult, diagnosed: bool) -> str:
    """A failing test's summary line; its named mistake is left to the algorithm's line."""
    summary = test.summary
    if diagnosed:
        summary = re.sub(r" \(likely mistake: .*\)$", "", summary)
    return summary


def score_table(results: GradingResults, colour: bool = False, *, verbose: bool = False,
                width: int = WIDTH) -> str:
    """The score table: per algorithm its score, its named mistake (once), and a row per
    failing test with what went wrong; passing tests are counted (each listed when
    ``verbose``). Every line within ``width`` columns, wrapped between words."""
    lines = []
    diagnoses = results.extra_data.get("diagnoses") or {}
    for algorithm, tests in results.by_algorithm().items():
        earned = sum(test.score for test in tests)
        possible = sum(test.max_score for test in tests)
        passed = sum(test.passed for test in tests)
        header = f"{algorithm}: {earned:g}/{possible:g} points, {passed}/{len(tests)} tests passed"
        lines.append(_paint(header, BOLD, colour))
        if algorithm in diagnoses:  # one diagnosis for the algorithm, from every case of it
            lines += _wrapped(f"likely mistake: {diagnoses[algorithm]['title']} (explained below)",
                              width, " " * 4, "  ")
        for test in tests:
            if test.passed and not verbose:
                continue
            label = test.case_name or test.name.split(": ", 1)[-1]  # (its description: below)
            score = f"{test.score:g}/{test.max_score:g}"
            lead = f"  {MARKS.get(test.outcome, 'FAIL')} {test.number:>5} {score:>7}  "
            text = label
            if not test.passed and test.summary and test.outcome != NOT_IMPLEMENTED:
                text += ": " + unmarked_line(_row_summary(test, algorithm in diagnoses))
            rows = _wrapped(text, width, " " * len(lead), lead)
            mark = MARKS.get(test.outcome, "FAIL")
            rows[0] = rows[0].replace(mark, _mark(test, colour), 1)
            lines += rows
        if passed and passed < len(tests) and not verbose:
            lines.append(f"  {passed} other test{'s' if passed > 1 else ''} passed")
    lines.append("")
    lines.append(_paint(f"Total: {results.score:g}/{results.max_score:g}", BOLD, colour))
    return "\n".join(lines)


def terminal_text(markdown: str, colour: bool = False) -> str:
    """A test's Markdown output for a terminal: no code fences, bold where it was bold."""
    lines = [line for line in markdown.rstrip().splitlines() if not line.startswith("```")]
    text = "\n".join(lines)
    return _BOLD.sub(lambda m: _paint(m.group(1), BOLD, colour), text)


def _blocks(lines: list[str]) -> list[list[str]]:
    """Markdown lines as paragraphs; a fenced block stays with the paragraph it is in."""
    blocks: list[list[str]] = [[]]
    fenced = False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        if not line.strip() and not fenced:
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append(line)
    return [block for block in blocks if block]


def _logical(block: list[str]) -> list[str]:
    """A paragraph's lines as written before they were wrapped at 100 columns (a bullet's
    continuation lines joined to it), so a narrower terminal wraps them afresh; fenced lines and
    table rows as they are."""
    lines: list[str] = []
    fenced, joinable = False, False
    for line in block:
        if line.startswith("```"):
            fenced = not fenced
            lines.append(line)
            joinable = False
        elif fenced or line.startswith("|"):
            lines.append(line)
            joinable = False
        elif joinable and not line.startswith("- "):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
            joinable = True
    return lines


_LEGEND = {line.replace("`", "") for line in LEGEND}


def _case_text(test: TestResult, hint: str | None, *, tree: bool, legend: bool,
               width: int, colour: bool) -> list[str]:
    """A failing test's explanation for the terminal: its output without the algorithm's named
    mistake (shown once above), the drawn tree only when ``tree``; prose wrapped to ``width``,
    the drawings (already within 100 columns) as they are."""
    output = test.output
    if hint and hint in output:
        output = output.replace("\n\n" + hint, "").replace(hint, "")
    lines: list[str] = []
    for block in _blocks(output.rstrip().splitlines()):
        if block[0].startswith(TREE_HEADING):
            if not tree:
                continue
            block = [line for line in block if legend or line not in _LEGEND]
            while block and block[-2:-1] == [""] and block[-1].startswith("```"):
                block = block[:-2] + block[-1:]  # no blank line left where the legend was
        if block[0].startswith(f"**{test.algorithm}** on ") and not tree:
            continue  # the case's description: the full view shows it
        if lines:
            lines.append("")
        fenced = False
        for line in _unmarked(_logical(block) if width < WIDTH else block):
            if line.startswith("```"):
                fenced = not fenced
                continue
            if fenced:  # drawings fit 100 columns; what a submission printed may not
                lines.append(line if len(line) <= WIDTH else line[:WIDTH - 1] + "…")
                continue
            line = unmarked_line(line, keep_bold=True)  # no `code` marks or \ escapes
            if len(line) <= width:
                lines.append(line)
            else:
                indent = "  " if line.startswith("- ") else ""
                lines += _wrapped(line, width, indent)
    text = "\n".join(lines)
    return _BOLD.sub(lambda m: _paint(m.group(1), BOLD, colour), text).split("\n")


def _unmarked(block: list[str]) -> list[str]:
    """A paragraph's lines with Markdown's block syntax made text: a table (outside fences)
    aligned in columns (:func:`grader.feedback.markdown.aligned_tables`, the same table the
    Markdown view shows), a ``## heading`` bold without its hashes."""
    lines: list[str] = []
    outside: list[str] = []
    fenced = False
    for line in [*block, None]:
        if line is None or line.startswith("```"):
            # code spans' backticks dropped first: one may cross a line of the Markdown
            lines += aligned_tables(_CODE_SPAN.sub(r"\2", "\n".join(outside)).split("\n")
                                    if outside else [])
            outside = []
            if line is not None:
                fenced = not fenced
                lines.append(line)
        elif fenced:
            lines.append(line)
        else:
            heading = _HEADING.match(line)
            outside.append(f"**{heading.group(1)}**" if heading else line)
    return lines


def markdown_for_terminal(markdown: str, stream: TextIO | None = None) -> str:
    """Feedback written as Markdown (a test's output) as terminal text: no fences, headings or
    table syntax, bold where it was bold (in colour on a terminal), prose wrapped to the
    terminal's width, ASCII where the stream cannot show box lines."""
    colour = use_colour(stream) if stream is not None else False
    test = TestResult("", "", "", "", 0, 0, "", output=markdown)
    text = "\n".join(_case_text(test, None, tree=True, legend=True,
                                width=terminal_width(stream), colour=colour))
    return asciify(text) if stream is not None and wants_ascii(stream) else text


def _title(test: TestResult, colour: bool, width: int) -> str:
    title = f"--- {test.number} {test.case_name or test.name} "
    return _paint(title + "-" * max(3, min(width, 60) - len(title)), _tint(test), colour)


def algorithm_block(algorithm: str, tests: list[TestResult], diagnosis: dict | None, *,
                    colour: bool = False, verbose: bool = False, width: int = WIDTH,
                    room: int = BLOCK_LINES) -> list[str]:
    """One algorithm's failures: its named mistake once, then the failing tests, the smallest
    first, each with its first difference; the first with its tree; one word for word like a
    test shown above only by number. Within ``room`` lines
    (unless ``verbose``: every test in full; or the hint and the first test's tree are more:
    that tree is still shown); the tests left out are listed by number."""
    failing = [t for t in tests if not t.passed and t.output and t.outcome != NOT_IMPLEMENTED]
    if not failing:
        return []
    head = f"=== {algorithm}: {len(failing)} failing test{'s' if len(failing) > 1 else ''} "
    lines = [_paint(head + "=" * max(3, min(width, 60) - len(head)), BOLD, colour)]
    hint = diagnosis.get("hint") if diagnosis else None
    if hint:
        lines += _case_text(TestResult("", "", algorithm, "", 0, 0, "", output=hint), None,
                            tree=True, legend=True, width=width, colour=colour)
    if verbose:
        for test in failing:
            lines += ["", _title(test, colour, width),
                      *_case_text(test, hint, tree=True, legend=True, width=width,
                                  colour=colour)]
        return lines
    views = []
    for test in failing:
        full = _case_text(test, hint, tree=True, legend=True, width=width, colour=colour)
        short = _case_text(test, hint, tree=False, legend=False, width=width, colour=colour)
        drawn = TREE_HEADING in test.output
        views.append((not drawn, len(short), len(full), test, full, short))
    views.sort(key=lambda view: view[:3])  # a case with a tree first, the smallest first
    left_out, same, shown = [], [], set()
    for index, (_, _, _, test, full, short) in enumerate(views):
        if tuple(full) in shown:  # word for word a failure shown above (the same exception)
            same.append(test)
        elif index == 0 and len(full) + 2 <= room:  # its tree too, if that fits a screen alone
            lines += ["", _title(test, colour, width), *full]
        elif len(lines) + len(short) + 2 <= room - 2:
            lines += ["", _title(test, colour, width), *short]
        else:
            left_out.append(test)
        shown.add(tuple(full))
    if same:
        lines += ["", *_wrapped(f"The same failure, word for word, on {_listed(same)}.", width)]
    if left_out:
        lines += ["", *_wrapped(f"Also failing: {_listed(left_out)}. To see one in full: "
                                f"grader check -a {algorithm} -k NAME --verbose (or --html "
                                "report.html).", width)]
    return lines


def _listed(tests: list[TestResult]) -> str:
    """Tests by number and case name, in number order."""
    ordered = sorted(tests, key=lambda t: tuple(int(part) for part in t.number.split(".")
                                                if part.isdigit()))
    return ", ".join(f"{t.number} {t.case_name}" for t in ordered)


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
        shown = ", ".join(numbers[:6])
        shown += f" and {len(numbers) - 6} more" if len(numbers) > 6 else ""
        plural = "s" if len(numbers) > 1 else ""
        lines.append(f"{function} is not implemented yet: {len(numbers)} test{plural} ({shown}).")
    return lines


def failure_details(results: GradingResults, colour: bool = False, *, verbose: bool = False,
                    width: int = WIDTH) -> str:
    """Per algorithm with a failure, its block (:func:`algorithm_block`); functions not
    implemented yet summed up in one line each."""
    diagnoses = results.extra_data.get("diagnoses") or {}
    blocks = []
    for algorithm, tests in results.by_algorithm().items():
        lines = algorithm_block(algorithm, tests, diagnoses.get(algorithm), colour=colour,
                                verbose=verbose, width=width)
        if lines:
            blocks.append("\n".join(lines) + "\n")
    # evaluate's local check (the handout): its values are shown even when it passes, in full
    # with ``verbose`` only, so a full-marks run ends a line after its total
    shown = [test for test in results.tests
             if test.passed and (test.extra_data or {}).get("show_output") and test.output]
    for test in shown if verbose else []:
        blocks.append(f"{_title(test, colour, width)}\n"
                      + "\n".join(_case_text(test, None, tree=True, legend=False,
                                              width=width, colour=colour)) + "\n")
    if shown and not verbose:
        names = ", ".join(test.case_name or test.name for test in shown)
        blocks.append("\n".join(_wrapped(
            f"evaluate's values on sample positions ({names}): shown with --verbose.",
            width)) + "\n")
    pending = not_implemented_lines(results)
    if pending:
        wrapped = [part for line in pending for part in _wrapped(line, width, "  ")]
        blocks.append(_paint("--- not implemented yet ---", CYAN, colour) + "\n"
                      + "\n".join(wrapped) + "\n")
    return "\n".join(blocks)


def _top_output(results: GradingResults, colour: bool, width: int) -> str:
    """The submission's own messages, without the named-mistakes summary (the table has it)."""
    blocks = [block for block in _blocks(results.output.rstrip().splitlines())
              if not block[0].startswith("**Likely mistakes**")]
    text = "\n\n".join("\n".join(block) for block in blocks)
    test = TestResult("", "", "", "", 0, 0, "", output=text)
    return "\n".join(_case_text(test, None, tree=True, legend=True, width=width,
                                colour=colour)) if text else ""


def print_report(results: GradingResults, stream: TextIO = sys.stdout, *,
                 verbose: bool = False) -> None:
    """The score table first, the submission's messages, then each algorithm's failures
    (one screen each unless ``verbose``)."""
    colour = use_colour(stream)
    width = terminal_width(stream)
    parts = [score_table(results, colour, verbose=verbose, width=width) + "\n"]
    if results.output:
        top = _top_output(results, colour, width)
        if top:
            parts.append(top + "\n")
    details = failure_details(results, colour, verbose=verbose, width=width)
    if details:
        parts.append(details)
    text = "\n".join(parts)
    stream.write(asciify(text) if wants_ascii(stream) else text)
