"""``grader grade``: grade a submission and write Gradescope's ``results.json``, whatever happens.

A grader crash still leaves a valid file (:func:`grader.report.gradescope.error_results`).
"""

from __future__ import annotations

import traceback
from pathlib import Path

from grader.files import reserve_space, write_json_atomically
from grader.report.gradescope import error_results, write_results


def grade_main(
    submission: Path, cases: list[Path], *, results_path: Path, rubric_path: Path | None = None
) -> int:
    """``grader grade``: grade and write ``results_path``. Exit 0, or 2 when the grader failed.

    The file is written in every case: a grader crash leaves the error results, never nothing.
    """
    from grader.cases.rubric import load_rubric
    from grader.scoring.grade import grade

    reserve_space(Path(results_path))  # a disk the submission fills still takes the results
    try:
        results = grade(Path(submission), [Path(c) for c in cases], rubric=load_rubric(rubric_path))
        data = write_results(results, Path(results_path))
        print(f"score {data['score']:g}/{results.max_score:g}; results written to {results_path}")
        for note in results.staff_notes:
            print(f"staff note: {note}")
        return 0
    except BaseException as error:  # noqa: BLE001  (the file must exist whatever happened)
        write_json_atomically(
            error_results(f"grading failed: {error!r}", traceback.format_exc()), Path(results_path)
        )
        print(f"grading failed: {error!r}; error results written to {results_path}")
        if isinstance(error, KeyboardInterrupt):
            raise
        return 2
