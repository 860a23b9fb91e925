"""``grader check``: what students run. Public cases, a score table, each failure explained."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.cases.rubric import load_rubric
from grader.report.terminal import print_report
from grader.scoring.grade import grade


def check_main(
    submission: Path,
    cases: list[Path],
    *,
    algorithm: str | None = None,
    name_filter: str | None = None,
    rubric_path: Path | None = None,
    html: Path | None = None,
) -> int:
    """Exit 0 when every selected test passes, 1 otherwise."""
    results = grade(
        Path(submission),
        [Path(c) for c in cases],
        rubric=load_rubric(rubric_path),
        algorithms=[algorithm] if algorithm else None,
        name_filter=name_filter,
    )
    print_report(results, sys.stdout)
    if html:
        from grader.report.html import write_html_report

        write_html_report(results, Path(html))
        print(f"HTML report written to {html}")
    if not results.tests:
        print("no tests selected: check --algorithm / -k")
        return 1
    return 0 if results.all_passed else 1
