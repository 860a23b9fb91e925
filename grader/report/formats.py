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

import importlib
from dataclasses import dataclass
from pathlib import Path

from grader.files import write_data_atomically
from grader.scoring.results import GradingResults


@dataclass(frozen=True)
class Format:
    """One format: its writer module, imported when the format is used (a grade writes one
    format: importing the other three writers cost ``grader grade`` 0.02 CPU s a run)."""

    name: str
    default_file: str  # where ``grader grade`` writes when not told
    module: str  # the writer: ``write_results(results, path)``, never raising for the content
    error_function: str  # (message, staff detail) -> JSON data or XML text

    def write(self, results: GradingResults, path: Path) -> object:
        return importlib.import_module(self.module).write_results(results, path)

    def error_text(self, message: str, detail: str) -> object:
        return getattr(importlib.import_module(self.module), self.error_function)(message, detail)


FORMATS = {
    "gradescope": Format("gradescope", "results.json", "grader.report.gradescope",
                         "error_results"),
    "prairielearn": Format("prairielearn", "results.json", "grader.report.prairielearn",
                           "error_results"),
    "junit": Format("junit", "junit.xml", "grader.report.junit", "error_xml"),
    "classroom": Format("classroom", "classroom.json", "grader.report.classroom",
                        "error_results"),
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
