"""The entry points: the page of a :class:`GradingResults` (:func:`report_html`), written by
``grader check --html`` (:func:`write_html_report`) and ``grader report`` (:func:`report_main`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.report.html.load import replay_case
from grader.report.html.page import case_section, plain_section, render_page
from grader.report.html.replay import build_replay
from grader.scoring.results import GradingResults


def report_html(results: GradingResults, *, base: Path | None = None, answers: Any = None) -> str:
    """The whole page for ``results`` (see :mod:`grader.report.html`); ``answers`` defaults to
    :meth:`AnswerKey.default`, where the hints and windows of the grading run are cached."""
    from grader.answers.store import AnswerKey

    answers = answers or AnswerKey.default()
    sections, detailed, cases = [], set(), {}
    for test in results.tests:
        if test.passed or test.outcome == "grader_error":
            continue
        detailed.add(test.number)
        replay = (test.extra_data or {}).get("replay")
        if not replay:
            why = ("No step-through: your code gave no trace to replay." if test.outcome not in
                   ("wrong_trace", "wrong_value", "budget") else
                   "No step-through: this test's traces are too long to replay, or the results "
                   "do not carry them.")
            sections.append(plain_section(test, why))
            continue
        try:
            case = replay_case(replay.get("case"), test.case_name, cases, base)
            sections.append(case_section(build_replay(test, case, replay, answers)))
        except Exception as error:  # noqa: BLE001 - one bad section never loses the report
            sections.append(plain_section(test, f"The replay could not be drawn: {error}"))
    return render_page(results, sections, detailed)


def write_html_report(results: GradingResults, path: Path) -> None:
    """``grader check --html PATH``: write the report of ``results`` to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report_html(results), encoding="utf-8")


