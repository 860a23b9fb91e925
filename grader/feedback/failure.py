"""Turn a comparison into feedback a student can act on (Markdown, lines <= 100 columns).

A failing test's output, in order: what was run; the value (expected vs got); each differing
sequence with the first difference marked (``^`` and the step), then the nodes searched that the
reference pruned, those pruned that it searched, and those generated twice; the tree drawn with
both searches' marks (explicit trees, :mod:`grader.feedback.drawing`); for alpha-beta, the
reference's window at the first difference; then the hints of the known mistakes that explain the
run (:mod:`grader.feedback.diagnosis`). This module only formats; it decides nothing about scores.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import Any

import grader.algorithms as algorithm_specs
from grader.compare import Comparison, SequenceDiff, describe
from grader.feedback import drawing
from grader.feedback.markdown import fenced_lines, inline_text

WIDTH = drawing.WIDTH
WINDOW = 6  # ids shown at most on each side of the first difference
MAX_LISTED = 12  # extra / missing ids listed before "and N more"
LISTED_CHARS = 200  # ... and no more characters of them than this
TREE_HEADING = "The tree, with what each search generated:"  # (the terminal finds it by this)


def wrap(text: str, width: int = WIDTH) -> list[str]:
    """One Markdown line wrapped to ``width``; a bullet's continuation lines are indented."""
    if len(text) <= width:
        return [text]
    indent = "  " if text.startswith("- ") else ""
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False)


def _listed(ids: list[str]) -> str:
    """Ids joined by commas: at most MAX_LISTED of them and about three lines' worth."""
    shown: list[str] = []
    for node in ids[:MAX_LISTED]:
        if shown and sum(len(item) + 2 for item in shown) + len(node) > LISTED_CHARS:
            break
        shown.append(node)
    rest = len(ids) - len(shown)  # the student's ids may be forged: shown as inert text
    return ", ".join(map(inline_text, shown)) + (f" and {rest} more" if rest else "")


def _columns(expected: list[str], got: list[str], first: int, room: int) -> tuple[int, int]:
    """The widest range [start, stop) around ``first`` whose aligned ids fit in ``room``."""
    length = max(len(expected), len(got))

    def width(index: int) -> int:
        left = expected[index] if index < len(expected) else ""
        right = got[index] if index < len(got) else ""
        return max(len(left), len(right), 1) + 1

    start, stop, used = first, first + 1, width(first)
    grew = True
    while grew:
        grew = False
        if stop < length and stop - first <= WINDOW and used + width(stop) <= room:
            used, stop, grew = used + width(stop), stop + 1, True
        if start > 0 and first - start < WINDOW and used + width(start - 1) <= room:
            start, used, grew = start - 1, used + width(start - 1), True
    return start, stop


def sequence_report(diff: SequenceDiff, *, expected_label: str = "expected",
                    width: int = WIDTH, cut: bool = False) -> list[str]:
    """The lines describing one differing sequence (empty when equal). ``cut``: the student's
    trace was cut at a cap (far past the reference's length), so its length and what it lacks
    are not known: neither is stated."""
    if diff.equal:
        return []
    first = diff.first_difference or 0
    label_width = max(len(expected_label), len("yours")) + 2
    start, stop = _columns(diff.expected, diff.got, first, width - label_width - 8)
    top, bottom, caret_at = [], [], 0
    for index in range(start, stop):
        left = diff.expected[index] if index < len(diff.expected) else ""
        right = diff.got[index] if index < len(diff.got) else ""
        column = max(len(left), len(right), 1)
        if index == first:
            caret_at = sum(len(cell) + 1 for cell in top)
        top.append(left.ljust(column))
        bottom.append(right.ljust(column))
    lead = "... " if start else ""
    caret = " " * (label_width + len(lead) + caret_at) + f"^ step {first + 1}"
    if len(caret) > width:  # a difference at the far right: point from the other side
        caret = " " * (label_width + len(lead) + caret_at - 1 - len(f"step {first + 1} ")) + (
            f"step {first + 1} ^")
    more_top = " ..." if stop < len(diff.expected) else ""
    more_bottom = " ..." if stop < len(diff.got) else ""
    heading = (f"`{diff.label}` differs at step {first + 1} "
               f"(expected {len(diff.expected)} ids, yours has {len(diff.got)}):")
    if cut:
        heading = (f"`{diff.label}` differs at step {first + 1} (expected {len(diff.expected)} "
                   f"ids; yours was cut after {len(diff.got)}, the most kept):")
    lines = [heading, *fenced_lines([
        f"{expected_label}:".ljust(label_width) + lead + " ".join(top).rstrip() + more_top,
        "yours:".ljust(label_width) + lead + " ".join(bottom).rstrip() + more_bottom,
        caret,
    ])]
    if diff.extra:
        lines += wrap(f"- searched, but the reference pruned them: {_listed(diff.extra)}")
    if diff.missing and not cut:  # a cut trace may hold them past the cut
        lines += wrap(f"- not searched, but the reference searched them: {_listed(diff.missing)}")
    if diff.duplicates:
        twice = [f"{node} ({count}x)" for node, count in diff.duplicates.items()]
        lines += wrap(f"- {diff.label} more often than the reference did: {_listed(twice)}")
    return lines


def comparison_report(comparison: Comparison, *, cut: bool = False) -> list[str]:
    """Value verdict, then each differing sequence (``cut``: the student's traces were cut)."""
    value = comparison.value  # its message may quote what the student returned: inert
    lines = wrap("Value: correct." if value.ok else f"Value: {inline_text(value.message)}.")
    generated, evaluated = comparison.generated, comparison.evaluated
    lines += ["", *sequence_report(generated, cut=cut)] if not generated.equal else []
    if evaluated.equal:
        return lines
    if generated.equal or _news(evaluated, generated):
        return lines + ["", *sequence_report(evaluated, cut=cut)]
    step = evaluated.first_difference + 1
    return [*lines, "", f"`evaluated` differs too, from step {step}, in the same nodes."]


def _news(evaluated: SequenceDiff, generated: SequenceDiff) -> bool:
    """Whether the ``evaluated`` diff says more than the ``generated`` one."""
    return bool(set(evaluated.extra) - set(generated.extra)
                or set(evaluated.missing) - set(generated.missing) or evaluated.duplicates)


def tree_report(case: Any, algorithm: str, rule: str, expected: Any, got: Any,
                comparison: Comparison, moments: list[Any] | None = None, *,
                stopped: bool = False) -> list[str]:
    """The drawn tree (explicit trees only) and, for alpha-beta, the window at the difference
    (``moments``: the reference's replay from the answer key; None replays it here;
    ``stopped``: the work budget stopped the student's search)."""
    lines: list[str] = []
    if comparison.generated.equal:
        tree = drawing.draw_tree(case, expected, got, max_rows=10**9)
        tree = tree if len(tree) <= drawing.MAX_ROWS + 1 else []  # no difference to cut around
    else:
        tree = drawing.draw_tree(case, expected, got)
    if tree:
        lines += ["", TREE_HEADING, *fenced_lines(
            [*tree, "", *(line.replace("`", "") for line in drawing.LEGEND)])]
    if algorithm_specs.get(algorithm).window and not comparison.generated.equal:
        note = drawing.window_note(case, rule, expected.generated, got.generated, moments,
                                   stopped=stopped)
        if note:
            lines += ["", *wrap(note)]
    return lines


def hints_report(hints: Iterable[Any]) -> list[str]:
    """The known mistakes' hints (:class:`grader.feedback.diagnosis.Hint`), each wrapped."""
    hints = list(hints)
    if not hints:
        return []
    lines = [""]
    if len(hints) > 1:
        lines += wrap(f"Your run matches {len(hints)} known mistakes: each gives exactly your "
                      "value and your `generated`.")
        lines.append("")
    for index, hint in enumerate(hints):
        if index:
            lines.append("")
        for line in hint.markdown():
            lines += wrap(line)
    return lines


def value_line(expected: Any, got: Any) -> str:
    return f"expected {describe(expected)}, got {describe(got)}"


def failure_report(case: Any, algorithm: str, rule: str, expected: Any, got: Any,
                   comparison: Comparison, hints: Iterable[Any] = (),
                   moments: list[Any] | None = None, note: str | None = None, *,
                   cut: bool = False, stopped: bool = False) -> list[str]:
    """Markdown lines for a failing (case, algorithm) test: what differs, where, and why.
    ``note``: the step explanation at the first difference (:mod:`grader.feedback.explain`;
    alpha-beta's is the window, from ``moments``); ``cut``: the student's traces were cut at
    the cap; ``stopped``: the work budget stopped the search."""
    lines = wrap(f"**{algorithm}** on `{case.name}`: {case.description}")
    if algorithm_specs.get(algorithm).window:
        lines.append(f"(pruning rule: {rule})")
    lines.append("")
    lines += comparison_report(comparison, cut=cut)
    lines += tree_report(case, algorithm, rule, expected, got, comparison, moments,
                         stopped=stopped)
    if note:
        lines += ["", *(part for sentence in note.split("\n") for part in wrap(sentence))]
    lines += hints_report(hints)
    return lines


__all__ = ["TREE_HEADING", "comparison_report", "failure_report", "hints_report", "sequence_report",
           "tree_report", "value_line", "wrap"]
