"""The entry points: the page of a :class:`GradingResults` (:func:`report_html`), written by
``grader check --html`` (:func:`write_html_report`) and ``grader report`` (:func:`report_main`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.report.html.assumptions import assumption_data, assumption_section
from grader.report.html.load import replay_case
from grader.report.html.page import INTRO, case_section, legend, plain_section, render_page
from grader.report.html.play import play_legend, play_records, play_section, verdict
from grader.report.html.replay import build_replay
from grader.scoring.results import GradingResults, TestResult

PLAY_INTRO = ("Each evaluate test below lists its matches on boards: lost ones open at the "
              "move where your choice lost, with both evaluations of the moves there; move the "
              "slider, use the buttons, or the arrow keys.")
PAGE_BUDGET = 950_000  # bytes: every page stays under 1 MB, however many tests failed
LEFT_OUT = ("Left out to keep this page under 1 MB: the failing tests above fill it. "
            "`grader check -k {case} --html FILE` draws this case on its own.")


def report_html(results: GradingResults, *, base: Path | None = None, answers: Any = None) -> str:
    """The whole page for ``results`` (see :mod:`grader.report.html`); ``answers`` defaults to
    :meth:`AnswerKey.default`, where the hints and windows of the grading run are cached (read
    only when a trace is replayed: a page of played tests needs no answer key)."""
    from grader.answers.store import AnswerKey

    sections, detailed, cases = [], set(), {}
    verdicts = {t.number: verdict(t) for t in results.tests if verdict(t)}
    room = PAGE_BUDGET - _size(render_page(results, [[""]], {t.number for t in results.tests},
                                           verdicts=verdicts, legends=legend() + play_legend()))
    kinds = set()
    for test in results.tests:
        if test.outcome == "grader_error":
            continue
        if assumption_data(test):  # an assumptions test, passed or not: the table, a match
            detailed.add(test.number)
            sections.append((test, assumption_section(test)))
            continue
        if play_records(test):  # an evaluate test, passed or not: every match on a board
            detailed.add(test.number)
            sections.append((test, play_section(test)))
            kinds.add("play")
            continue
        if test.passed:
            continue
        detailed.add(test.number)
        replay = (test.extra_data or {}).get("replay")
        if not replay:
            why = ("No step-through: your code gave no trace to replay." if test.outcome not in
                   ("wrong_trace", "wrong_value", "budget") else
                   "No step-through: this test's traces are too long to replay, or the results "
                   "do not carry them.")
            sections.append((test, plain_section(test, why)))
            continue
        try:
            case = replay_case(replay.get("case"), test.case_name, cases, base)
            answers = answers or AnswerKey.default()
            sections.append((test, case_section(build_replay(test, case, replay, answers))))
            kinds.add("trace")
        except Exception as error:  # noqa: BLE001 - one bad section never loses the report
            sections.append((test, plain_section(test, f"The replay could not be drawn: {error}")))
    legends = (legend() if "trace" in kinds else []) + (play_legend() if "play" in kinds else [])
    intro = " ".join(([INTRO] if "trace" in kinds or not kinds else [])
                     + ([PLAY_INTRO] if "play" in kinds else []))
    return render_page(results, _within(sections, room), detailed, verdicts=verdicts,
                       legends=legends, intro=intro)


def _size(text: str | list[str]) -> int:
    return len(("\n".join(text) if isinstance(text, list) else text).encode("utf-8")) + 1


def _within(sections: list[tuple[TestResult, list[str]]], room: int) -> list[list[str]]:
    """The sections in order while they fit in ``room`` bytes; each one after that without its
    step-through and text, or, played, with its lost matches' boards only (the page must open
    fast and stay under 1 MB however much failed)."""
    kept = []
    for test, section in sections:
        if _size(section) > room and play_records(test):  # its lost matches only, if they fit
            section = play_section(test, lost_only=True)
        if _size(section) > room:
            section = plain_section(test, LEFT_OUT.format(case=test.case_name), output=False)
        room -= _size(section)
        kept.append(section)
    return kept


def write_html_report(results: GradingResults, path: Path) -> None:
    """``grader check --html PATH``: write the report of ``results`` to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report_html(results), encoding="utf-8")


