"""``grader report RESULTS --html F``: the HTML replay report from a graded ``results.json``;
``grader report --class DIR --html F``: the class report of a batch's output folder
(:mod:`grader.batch.classreport`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from grader.report.html.load import results_from_json
from grader.report.html.report import report_html


def report_main(results_path: Path, *, html: Path) -> int:
    """``grader report RESULTS --html F``: 0 when written, 2 when the results cannot be read."""
    results_path = Path(results_path)
    try:
        data = json.loads(results_path.read_text(encoding="utf-8"))
        results = results_from_json(data)
    except OSError as error:
        print(f"grader report: {results_path}: cannot read it: {error.strerror}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"grader report: {results_path}: {error}", file=sys.stderr)
        return 2
    missing = sum(1 for t in results.tests if not t.passed
                  and "replay" not in t.extra_data and "play" not in t.extra_data)
    text = report_html(results, base=results_path.parent)
    try:
        Path(html).write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"grader report: {html}: cannot write it: {error.strerror}", file=sys.stderr)
        return 2
    print(f"HTML report written to {html}")
    if missing:
        print(f"note: {missing} failing test(s) carry no replay data in {results_path}",
              file=sys.stderr)
    return 0


def class_report_main(folder: Path, *, html: Path, anonymise: bool = False,
                      stream: TextIO | None = None) -> int:
    """``grader report --class DIR --html F [--anonymise]``: the class report of the batch
    output ``DIR``, with its .json and .csv beside ``F``. 0 when written, 2 when ``DIR`` is not
    a batch's output or the report cannot be written."""
    from grader.batch.classreport import ClassReportError, write_class_report

    stream = stream or sys.stdout
    try:
        figures = write_class_report(Path(folder), Path(html), anonymise=anonymise)
    except ClassReportError as error:
        print(f"grader report --class: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"grader report --class: {error.filename or html}: cannot write it: "
              f"{error.strerror}", file=sys.stderr)
        return 2
    print(f"class report of {figures['submissions']} submissions written to {html} (and "
          f"{Path(html).with_suffix('.json').name}, {Path(html).with_suffix('.csv').name}): "
          f"{len(figures['mistakes'])} named mistakes, {figures['unexplained_tests']} failing "
          "tests without one", file=stream)
    return 0
