"""``grader report RESULTS --html F``: the HTML replay report from a graded ``results.json``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

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
