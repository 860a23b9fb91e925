"""``grader check``: what students run. Public cases, a score table, each failure explained."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.cases.rubric import load_rubric
from grader.commands.environment import missing_message, missing_packages
from grader.errors import CaseError, GraderError
from grader.paths import REPO_ROOT
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
    verbose: bool = False,
) -> int:
    """Exit 0 when every selected test passes, 1 otherwise, 2 when the cases cannot be read."""
    _tolerant_console()
    missing = missing_packages()
    if missing:  # the student's machine, not the staff: say what to install
        print(f"grader check: {missing_message(missing, REPO_ROOT)}", file=sys.stderr)
        return 2
    try:
        results = grade(
            Path(submission),
            [Path(c) for c in cases],
            rubric=load_rubric(rubric_path),
            algorithms=[algorithm] if algorithm else None,
            name_filter=name_filter,
        )
    except (FileNotFoundError, GraderError, CaseError) as error:  # CaseError: the rubric's
        print(f"grader check: {error}", file=sys.stderr)
        return 2
    print_report(results, sys.stdout, verbose=verbose)
    if html:
        from grader.report.html import write_html_report

        write_html_report(results, Path(html))
        print(f"HTML report written to {html}")
    if not results.tests:
        print("no tests selected: check --algorithm / -k")
        return 1
    return 0 if results.all_passed else 1


def _tolerant_console() -> None:
    """A console that cannot show a character (a Windows code page, output redirected to a
    cp1252 file) gets ``\\u0444`` for it instead of a crash: the tree is drawn in ASCII there
    already (:func:`grader.feedback.drawing.wants_ascii`), but a path or a student's printed
    text may hold any character."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding not in ("utf8", "utf_8") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
