"""Turn a comparison into feedback a student can act on (Markdown, lines <= 100 columns).

This module only formats; it decides nothing about scores.
"""

from __future__ import annotations

from grader.compare import Comparison, SequenceDiff, describe

WINDOW = 5  # ids shown on each side of the first difference in long sequences
MAX_LISTED = 12  # extra / missing ids listed before "and N more"


def _aligned(expected: list[str], got: list[str], start: int, stop: int) -> tuple[str, str, list[int]]:
    """Two rows of ids, each column as wide as its wider id; returns the column offsets too."""
    top, bottom, offsets, column = [], [], [], 0
    for index in range(start, stop):
        left = expected[index] if index < len(expected) else ""
        right = got[index] if index < len(got) else ""
        width = max(len(left), len(right), 1)
        top.append(left.ljust(width))
        bottom.append(right.ljust(width))
        offsets.append(column)
        column += width + 1
    return " ".join(top).rstrip(), " ".join(bottom).rstrip(), offsets


def _listed(ids: list[str]) -> str:
    shown = ", ".join(ids[:MAX_LISTED])
    return shown + (f" and {len(ids) - MAX_LISTED} more" if len(ids) > MAX_LISTED else "")


def sequence_report(diff: SequenceDiff, *, expected_label: str = "expected") -> list[str]:
    """The lines describing one differing sequence (empty when equal)."""
    if diff.equal:
        return []
    first = diff.first_difference or 0
    start = max(0, first - WINDOW)
    stop = min(max(len(diff.expected), len(diff.got)), first + WINDOW + 1)
    top, bottom, offsets = _aligned(diff.expected, diff.got, start, stop)
    prefix_top = f"{expected_label}: " + ("... " if start else "")
    prefix_bottom = "yours:".ljust(len(expected_label) + 1) + " " + ("... " if start else "")
    caret = " " * (len(prefix_top) + offsets[first - start]) + f"^ step {first + 1}"
    lines = [
        f"`{diff.label}` differs at step {first + 1} "
        f"(expected {len(diff.expected)} ids, yours has {len(diff.got)}):",
        "```",
        prefix_top + top + (" ..." if stop < len(diff.expected) else ""),
        prefix_bottom + bottom + (" ..." if stop < len(diff.got) else ""),
        caret,
        "```",
    ]
    if diff.extra:
        lines.append(f"- searched, but the reference pruned them: {_listed(diff.extra)}")
    if diff.missing:
        lines.append(f"- not searched, but the reference searched them: {_listed(diff.missing)}")
    if diff.duplicates:
        twice = [f"{node} ({count}x)" for node, count in diff.duplicates.items()]
        lines.append(f"- generated more than once: {_listed(twice)}")
    return lines


def comparison_report(comparison: Comparison) -> list[str]:
    """Value verdict, then each differing sequence."""
    lines = []
    if comparison.value.ok:
        lines.append("Value: correct.")
    else:
        lines.append(f"Value: {comparison.value.message}.")
    for diff in (comparison.generated, comparison.evaluated):
        report = sequence_report(diff)
        if report:
            lines.append("")
            lines.extend(report)
    return lines


def value_line(expected, got) -> str:
    return f"expected {describe(expected)}, got {describe(got)}"


def failure_report(case, algorithm: str, rule: str, expected, got, comparison: Comparison) -> list[str]:
    """Markdown lines for a failing (case, algorithm) test: what differs, and where."""
    lines = [f"**{algorithm}** on `{case.name}`: {case.description}"]
    if algorithm == "alpha_beta":
        lines.append(f"(pruning rule: {rule})")
    lines.append("")
    lines.extend(comparison_report(comparison))
    return lines
