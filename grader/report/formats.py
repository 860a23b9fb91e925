"""The result formats ``grader grade --format`` writes, one writer module each, one place to
choose among them. Every writer reads the one results model and keeps the same guarantees: the
file is always written (atomically) and always valid for its platform, and a grader failure
still writes a valid file of the format (:func:`write_error`).

=============== ==================================== ========================================
format          for                                  module
=============== ==================================== ========================================
``gradescope``  Gradescope's ``results.json``        :mod:`grader.report.gradescope`
``prairielearn`` PrairieLearn's external grader      :mod:`grader.report.prairielearn`
``junit``       GitLab CI, Jenkins, other CI         :mod:`grader.report.junit`
``classroom``   GitHub Classroom's grading reporter  :mod:`grader.report.classroom`
=============== ==================================== ========================================
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from grader.files import write_data_atomically
from grader.report import classroom, gradescope, junit, prairielearn
from grader.scoring.results import GradingResults


@dataclass(frozen=True)
class Format:
    name: str
    default_file: str  # where ``grader grade`` writes when not told
    write: Callable[[GradingResults, Path], object]  # never raises for the results' content
    error_text: Callable[[str, str], object]  # (message, staff detail) -> JSON data or XML text


FORMATS = {
    "gradescope": Format("gradescope", "results.json", gradescope.write_results,
                         gradescope.error_results),
    "prairielearn": Format("prairielearn", "results.json", prairielearn.write_results,
                           prairielearn.error_results),
    "junit": Format("junit", "junit.xml", junit.write_results, junit.error_xml),
    "classroom": Format("classroom", "classroom.json", classroom.write_results,
                        classroom.error_results),
}
FORMAT_NAMES = tuple(FORMATS)


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"expected a format among {', '.join(FORMATS)}, got: {name!r}") from None


def write_results(results: GradingResults, path: Path, format_name: str = "gradescope") -> None:
    """Write ``results`` in ``format_name`` to ``path`` (a valid file whatever happens)."""
    get_format(format_name).write(results, Path(path))


def write_error(message: str, detail: str, path: Path, format_name: str = "gradescope") -> None:
    """Write the format's "the grader failed" file: no score, a neutral message for students."""
    write_data_atomically(get_format(format_name).error_text(message, detail), path)
