"""``grader grade``: grade a submission and write the platform's results file, whatever happens.

``--format`` picks the platform (:mod:`grader.report.formats`: Gradescope by default,
PrairieLearn, JUnit XML, GitHub Classroom). A grader crash still leaves a valid file of that
format (:func:`grader.report.formats.write_error`).
"""

from __future__ import annotations

import traceback
from pathlib import Path

from grader.errors import CaseError, GraderError
from grader.files import reserve_space
from grader.report.formats import get_format, write_error


def grade_main(
    submission: Path, cases: list[Path], *, results_path: Path | None = None,
    rubric_path: Path | None = None, format_name: str = "gradescope", jobs: int = 1,
) -> int:
    """``grader grade``: grade and write ``results_path`` (default: the format's usual file
    name) in ``format_name``. Exit 0, or 2 when the grader failed.

    The file is written in every case: a grader crash leaves the error results, never nothing.
    Staff notes and grader errors go to stdout (the job log), never into formats students read
    whole.
    """
    from grader.cases import find_cases
    from grader.footprint import fix_mmap_threshold
    from grader.cases.rubric import load_rubric
    from grader.sandbox.portable import require_sandbox
    from grader.scoring.grade import grade

    fix_mmap_threshold()  # long traces given back when freed (grader.footprint)
    chosen = get_format(format_name)
    results_path = Path(results_path or chosen.default_file)
    reserve_space(results_path)  # a disk the submission fills still takes the results
    try:  # what the command was given: a refusal is said in a line, without a traceback
        require_sandbox("grader grade")  # Gradescope grades only in the full sandbox
        rubric = load_rubric(rubric_path)
        find_cases(cases)
    except (GraderError, CaseError, FileNotFoundError) as error:
        write_error(f"grading failed: {error}", traceback.format_exc(), results_path, chosen.name)
        print(f"grading failed: {error}; error results written to {results_path}")
        return 2
    try:
        results = grade(Path(submission), [Path(c) for c in cases], rubric=rubric,
                        jobs=max(1, jobs), keep_games=False)  # one submission: no next
        chosen.write(results, results_path)
        print(f"score {round(results.score, 6):g}/{results.max_score:g}; "
              f"{chosen.name} results written to {results_path}")
        for note in results.staff_notes:
            print(f"staff note: {note}")
        return 0
    except BaseException as error:  # noqa: BLE001  (the file must exist whatever happened)
        detail = traceback.format_exc()
        write_error(f"grading failed: {error!r}", detail, results_path, chosen.name)
        print(f"grading failed: {error!r}; error results written to {results_path}\n{detail}")
        if isinstance(error, KeyboardInterrupt):
            raise
        return 2
