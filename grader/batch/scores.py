"""What a batch keeps of each submission: a summary of its results.json, and ``scores.csv``.

``scores.csv``: one row a submission (who, total, error, one column a test, in test-number
order). A summary (:func:`summary`) is what a row needs: ``score``, ``max_score``, ``tests``
(number, name, score, max score), ``error``, ``notes`` (staff notes) and ``seconds``.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from grader.batch.export import PEOPLE_KEYS, Submission
from grader.files import write_text_atomically

RESULTS_FILE = "results.json"
SCORES_FILE = "scores.csv"


def summary(data: dict[str, Any]) -> dict[str, Any]:
    """What a scores.csv row needs from a results.json."""
    from grader.scoring.upload import NOTHING_GRADED

    extra = data.get("extra_data") or {}
    listed = [t for t in data.get("tests", []) if t.get("number")]
    tests = [(str(t["number"]), str(t.get("name", "")), float(t.get("score") or 0.0),
              float(t.get("max_score") or 0.0)) for t in listed
             if (t.get("extra_data") or {}).get("outcome") != NOTHING_GRADED]  # not a column
    return {"score": float(data.get("score") or 0.0),
            "max_score": sum(float(t.get("max_score") or 0.0) for t in listed),
            "tests": tests, "error": extra.get("batch_error", ""),
            "notes": list(extra.get("staff_notes", []))}


def _column(test: tuple[str, str, float, float]) -> str:
    return test[1].split(" (", 1)[0]  # "minimax: aima-fig-5-2 (description)" -> without it


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it, never as a formula: a student's name in the export
    (theirs to choose) or an upload's name in the error that starts like ``=HYPERLINK(...)``
    gets a leading ``'`` (OWASP's advice on CSV injection)."""
    text = str(text)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def write_scores(path: Path, submissions: list[Submission], summaries: dict[str, dict]) -> None:
    """scores.csv: submission, names, emails, sids, score, max_score, error, one column a test."""
    numbered: dict[str, tuple[int, ...]] = {}
    for found in summaries.values():
        for test in found["tests"]:
            key = tuple(int(p) for p in test[0].split(".") if p.isdigit())
            numbered.setdefault(_column(test), key)
    columns = sorted(numbered, key=lambda name: (numbered[name], name))
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["submission", "names", "emails", "sids", "score", "max_score", "error",
                     *columns])
    for submission in submissions:
        found = summaries.get(submission.id)
        if found is None:
            continue
        people = [[p.get(key, "") for p in submission.submitters] for key in PEOPLE_KEYS]
        scores = {_column(test): f"{test[2]:g}" for test in found["tests"]}
        writer.writerow([inert_cell(submission.id), *(inert_cell("; ".join(v)) for v in people),
                         f"{found['score']:g}", f"{found['max_score']:g}",
                         inert_cell(found["error"]), *(scores.get(name, "") for name in columns)])
    write_text_atomically(buffer.getvalue(), path)


def previous_summary(results_path: Path, inputs_changed: float) -> dict[str, Any] | None:
    """The summary of an up-to-date results.json (newer than every input), else None."""
    try:
        if results_path.stat().st_mtime <= inputs_changed:
            return None
        return {**summary(json.loads(results_path.read_text())), "seconds": 0.0}
    except (OSError, ValueError, TypeError, AttributeError):
        return None  # missing or damaged: grade again


def record_failure(results_path: Path, error: str, detail: str = "") -> dict[str, Any]:
    """Gradescope's error results for a submission the grader could not grade; its summary."""
    from grader.files import write_json_atomically
    from grader.report.gradescope import error_results

    data = {**error_results(error, detail), "extra_data": {"batch_error": error}}
    write_json_atomically(data, results_path)
    return {**summary(data), "seconds": 0.0}
