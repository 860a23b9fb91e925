"""The class report: what a whole batch got wrong, from its output folder alone.

Input: the ``--out`` folder of ``grader batch`` (or of ``grader batch --merge``): ``scores.csv``
(the submissions in export order and who sent them) and each submission's ``results.json``.
Nothing else is read (no export, no case file, no answer key), so shards merged on several
machines give the same report, byte for byte, as one machine's batch: no timing, date, path
or machine appears in it, and every list has a fixed order.

What is counted (:func:`class_figures`; every count is of submissions unless it says tests):

* per algorithm: each submission's share of the algorithm's points, as a histogram (ten bins
  of 10% below full marks, then full marks), the share with full marks, and the cases failed
  most;
* the named mistakes: a failing test's ``extra_data["mistakes"]`` (the diagnosis of its
  algorithm, :mod:`grader.scoring.named`; several alternatives are one entry, as the student
  was told) and an ``evaluate`` test's ``extra_data["hint"]``; with the students each one
  explains, how many of their failing tests, on which cases, and the first of them (in export
  order) as the example, whose replay page (its first test this mistake explains: one picture
  of the mistake, cheap to draw) is written beside the report. Failing tests that no
  named mistake explains are counted by algorithm and outcome;
* ``evaluate`` by play: each submission's score rate (wins + draw weight x draws, over the
  matches) against each opponent, from ``extra_data["play_summary"]``, as histograms; the
  strongest submissions by their rate against the strongest opponent played (the baseline
  search, else greedy), with the leaderboard's figures when the rubric turned it on;
* the run's health (:data:`HEALTH`): submissions stopped by the work budget, the CPU backstop,
  the memory limit, that did not parse or import, whose worker died, or that the grader could
  not grade (``scores.csv``'s error), each with its students. Read from each test's outcome and
  ``extra_data["failure"]`` (:func:`grader.scoring.failure.note_failure`).

Students are named as in ``scores.csv`` (the submission id and its submitters' names); with
``anonymise`` by a pseudonym only (:func:`pseudonym`: a hash of the submission id, the same in
every report of the course), and no name, e-mail or sid of the export's metadata is written.

Output (:func:`write_class_report`): ``NAME.html`` (:mod:`grader.report.html.classpage`: one
page, inline SVG, no script), ``NAME.json`` (the figures), ``NAME.csv`` (the same figures as
rows: section, algorithm, item, students, tests, detail) and ``NAME-replays/`` (each named
mistake's example, the replay report of its submission).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.batch.scores import FORMULA_STARTS, RESULTS_FILE, SCORES_FILE, inert_cell
from grader.files import write_text_atomically

BINS = 10  # histogram bins of a share below 1 (0-10%, ..., 90-100%), then one of full marks
FAILING_CASES = 5  # cases listed per algorithm, most failed first
STRONGEST = 10  # submissions listed by their score rate against the baseline
# The run's health: kind -> what the page calls it. Read by :func:`_health_kinds`.
HEALTH = {
    "budget": "stopped by the work budget (game calls)",
    "timeout": "stopped by the CPU backstop (a call's time limit, or the submission's CPU "
               "allowance spent)",
    "memory": "ran out of memory (the worker's limit)",
    "syntax": "did not parse (syntax error, unreadable upload)",
    "import": "failed to import",
    "crashed": "worker died",
    "grading": "not graded: the grader failed (scores.csv's error)",
}


class ClassReportError(ValueError):
    """A folder that is not a batch's output; the message names the file and what is wrong."""


@dataclass
class Student:
    """One submission of the batch: its id, who sent it, its results (None: unreadable)."""

    id: str
    names: str
    error: str
    results: dict[str, Any] | None = None
    label: str = ""  # how the report names it


@dataclass
class _Mistake:
    algorithm: str
    names: tuple[str, ...]
    title: str
    students: list[str] = field(default_factory=list)
    tests: int = 0
    cases: dict[str, int] = field(default_factory=dict)
    example: Student | None = None
    example_tests: list[str] = field(default_factory=list)  # the example's tests it explains


def pseudonym(submission_id: str) -> str:
    """A submission's stable pseudonym: the same id always gives the same one, in every report;
    nothing of the export's metadata goes into it."""
    return "student-" + hashlib.sha256(f"class-report:{submission_id}".encode()).hexdigest()[:8]


def _plain(cell: str) -> str:
    """A scores.csv cell as it was before :func:`inert_cell` guarded it."""
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS) else cell


def read_batch(folder: Path) -> list[Student]:
    """The submissions of a batch's output folder, in export order, with their results."""
    folder = Path(folder)
    scores = folder / SCORES_FILE
    try:
        text = scores.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ClassReportError(f"{folder}: no {SCORES_FILE}; expected the --out folder of "
                               "`grader batch` (or of `grader batch --merge`)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ClassReportError(f"{scores}: cannot read it: {error}") from None
    reader = csv.DictReader(io.StringIO(text))
    columns = reader.fieldnames or []
    if not {"submission", "names", "error"} <= set(columns):
        raise ClassReportError(f"{scores}: line 1: expected the columns submission, names and "
                               f"error of a batch's scores.csv, got {', '.join(columns)!r}")
    rows = list(reader)
    students = []
    for line, row in enumerate(rows, 2):
        submission_id = _plain(row.get("submission") or "")
        if not submission_id or "/" in submission_id or submission_id in (".", ".."):
            raise ClassReportError(f"{scores}: line {line}: expected a submission id, got "
                                   f"{submission_id!r}")
        student = Student(submission_id, _plain(row.get("names") or ""),
                          _plain(row.get("error") or ""))
        try:
            data = json.loads((folder / submission_id / RESULTS_FILE).read_text(encoding="utf-8"))
            student.results = data if isinstance(data, dict) else None
        except (OSError, ValueError):
            student.results = None  # counted under the run's health, as not graded
        students.append(student)
    return students


def _label(student: Student, anonymise: bool) -> str:
    if anonymise:
        return pseudonym(student.id)
    return f"{student.id} ({student.names})" if student.names else student.id


def _tests(student: Student) -> list[dict[str, Any]]:
    """The student's graded tests (numbered, worth points or played), each as in results.json."""
    found = []
    for test in (student.results or {}).get("tests") or []:
        if not isinstance(test, dict) or not test.get("number"):
            continue
        extra = test.get("extra_data") if isinstance(test.get("extra_data"), dict) else {}
        if extra.get("outcome") == "not_graded":  # an upload with nothing to grade: no column
            continue
        found.append({**test, "extra_data": extra})
    return found


def _split_name(name: str) -> tuple[str, str]:
    """``"alpha_beta: aima-fig-5-2 (description)"`` -> ``("alpha_beta", "aima-fig-5-2")``."""
    algorithm, colon, rest = str(name).partition(": ")
    if not colon:
        return "other", str(name)
    return algorithm, rest.split(" (", 1)[0]


def _score(test: dict[str, Any]) -> tuple[float, float]:
    try:
        return float(test.get("score") or 0.0), float(test.get("max_score") or 0.0)
    except (TypeError, ValueError):
        return 0.0, 0.0


def _failed(test: dict[str, Any]) -> bool:
    score, most = _score(test)
    extra = test.get("extra_data") or {}
    return most > 0 and score < most and extra.get("outcome") != "grader_error"


def _bin(share: float) -> int:
    """The bin of a share: 0..BINS-1 for [0, 0.1), ..., [0.9, 1); BINS for full marks."""
    if share >= 1 - 1e-9:
        return BINS
    return min(BINS - 1, max(0, int(share * BINS + 1e-9)))


def _histogram(shares: Iterable[float]) -> list[int]:
    counts = [0] * (BINS + 1)
    for share in shares:
        counts[_bin(share)] += 1
    return counts


def _algorithms(students: list[Student]) -> list[dict[str, Any]]:
    order: dict[str, tuple] = {}
    earned: dict[str, dict[str, list[float]]] = {}  # algorithm -> student -> [score, most]
    failing: dict[str, dict[str, list[str]]] = {}  # algorithm -> case -> students
    for student in students:
        for test in _tests(student):
            algorithm, case = _split_name(test.get("name", ""))
            score, most = _score(test)
            if most <= 0:
                continue
            number = tuple(int(p) for p in str(test["number"]).split(".") if p.isdigit())
            order[algorithm] = min(order.get(algorithm, number), number)
            points = earned.setdefault(algorithm, {}).setdefault(student.label, [0.0, 0.0])
            points[0] += score
            points[1] += most
            if _failed(test):
                who = failing.setdefault(algorithm, {}).setdefault(case, [])
                if student.label not in who:
                    who.append(student.label)
    figures = []
    for algorithm in sorted(earned, key=lambda name: (order[name], name)):
        shares = [score / most for score, most in earned[algorithm].values()]
        full = sum(1 for score, most in earned[algorithm].values() if score >= most - 1e-9)
        cases = sorted(failing.get(algorithm, {}).items(),
                       key=lambda item: (-len(item[1]), item[0]))
        figures.append({
            "algorithm": algorithm, "students": len(shares), "full_marks": full,
            "full_share": round(full / len(shares), 4) if shares else 0.0,
            "mean_share": round(sum(shares) / len(shares), 4) if shares else 0.0,
            "histogram": _histogram(shares),
            "failing_cases": [{"case": case, "students": len(who)}
                              for case, who in cases[:FAILING_CASES]],
            "cases_failed": len(cases)})
    return figures


PLAY_HINT = "evaluate_hint"  # the name of an ``evaluate`` hint (its title tells them apart)


def _play_hint_title(hint: str) -> str:
    """An ``evaluate`` hint's first clause (before ":", ". " or ", so "): its title here."""
    text = hint.replace("`", "")
    for end in (":", ". ", ", so "):
        text = text.split(end, 1)[0]
    return " ".join(text.split())


def _mistakes(students: list[Student]) -> tuple[list[_Mistake], list[dict[str, Any]], int]:
    """The named mistakes (most students first), the failing tests no named mistake explains
    (by algorithm and outcome), and how many failing tests there are in all."""
    found: dict[tuple[str, tuple[str, ...], str], _Mistake] = {}
    unexplained: dict[tuple[str, str], dict[str, Any]] = {}
    failing = 0
    for student in students:
        for test in _tests(student):
            if not _failed(test):
                continue
            failing += 1
            algorithm, case = _split_name(test.get("name", ""))
            extra = test.get("extra_data") or {}
            hints = [h for h in extra.get("mistakes") or [] if isinstance(h, dict)]
            if hints:
                names = tuple(str(h.get("name", "")) for h in hints)
                title = ", or ".join(str(h.get("title", "")) for h in hints)
            elif isinstance(extra.get("hint"), str) and extra["hint"]:
                title = _play_hint_title(extra["hint"])
                names = (PLAY_HINT,)
            else:
                outcome = str(extra.get("outcome") or "failed")
                row = unexplained.setdefault((algorithm, outcome), {
                    "algorithm": algorithm, "outcome": outcome, "tests": 0, "students": []})
                row["tests"] += 1
                if student.label not in row["students"]:
                    row["students"].append(student.label)
                continue
            mistake = found.setdefault((algorithm, names, title),
                                       _Mistake(algorithm, names, title))
            if student.label not in mistake.students:
                mistake.students.append(student.label)
            if mistake.example is None:
                mistake.example = student
            if mistake.example is student:
                mistake.example_tests.append(str(test["number"]))
            mistake.tests += 1
            mistake.cases[case] = mistake.cases.get(case, 0) + 1
    mistakes = sorted(found.values(), key=lambda m: (-len(m.students), -m.tests, m.algorithm,
                                                     m.title))
    rows = sorted(unexplained.values(), key=lambda r: (-r["tests"], r["algorithm"], r["outcome"]))
    return mistakes, rows, failing


def _play(students: list[Student]) -> dict[str, Any]:
    rates: dict[str, dict[str, list[float]]] = {}  # opponent -> student -> [value, matches]
    leaderboard: dict[str, list[dict[str, Any]]] = {}
    for student in students:
        for test in _tests(student):
            summary = test["extra_data"].get("play_summary")
            try:
                value, matches = float(summary.get("value") or 0), float(summary["matches"])
            except (AttributeError, KeyError, TypeError, ValueError):  # no play, or damaged
                continue
            if matches <= 0:
                continue
            totals = rates.setdefault(str(summary.get("opponent", "?")), {}).setdefault(
                student.label, [0.0, 0.0])
            totals[0] += value
            totals[1] += matches
        board = (student.results or {}).get("leaderboard")
        if isinstance(board, list) and board:
            leaderboard[student.label] = [
                {"name": str(e.get("name", "")), "value": e.get("value")} for e in board
                if isinstance(e, dict)]
    opponents = []
    for opponent in sorted(rates):
        shares = [value / matches for value, matches in rates[opponent].values()]
        opponents.append({"opponent": opponent, "students": len(shares),
                          "mean_rate": round(sum(shares) / len(shares), 4),
                          "histogram": _histogram(shares)})
    # ranked against the strongest opponent played: the baseline search, else greedy
    strongest_opponent = next((o for o in ("baseline", "greedy", "random") if o in rates),
                              min(rates, default=""))
    against = rates.get(strongest_opponent) or {}
    ranked = sorted(((value / matches, label) for label, (value, matches) in against.items()),
                    key=lambda item: (-item[0], item[1]))
    strongest = [{"student": label, "rate": round(rate, 4),
                  **({"leaderboard": leaderboard[label]} if label in leaderboard else {})}
                 for rate, label in ranked[:STRONGEST]]
    return {"opponents": opponents, "strongest": strongest, "ranked_against": strongest_opponent,
            "leaderboard": bool(leaderboard)}


def _health_kinds(student: Student) -> set[str]:
    """The health rows (:data:`HEALTH`) a submission is in."""
    kinds = set()
    if student.error or student.results is None:
        kinds.add("grading")
    for test in _tests(student):
        extra = test.get("extra_data") or {}
        outcome = extra.get("outcome")
        failure = extra.get("failure") if isinstance(extra.get("failure"), dict) else {}
        if outcome == "budget":
            kinds.add("budget")
        if outcome == "timeout":
            kinds.add("timeout")
        if failure.get("error") == "MemoryError":
            kinds.add("memory")
        if extra.get("upload_error"):
            kinds.add("syntax")
        elif failure.get("status") == "import_error":
            kinds.add("import")
        if outcome == "crashed":
            kinds.add("crashed")
    return kinds


def _health(students: list[Student]) -> list[dict[str, Any]]:
    found: dict[str, list[str]] = {kind: [] for kind in HEALTH}
    for student in students:
        for kind in _health_kinds(student):
            found[kind].append(student.label)
    return [{"kind": kind, "label": HEALTH[kind], "count": len(found[kind]),
             "students": found[kind]} for kind in HEALTH]


def replay_name(mistake_index: int, name: str) -> str:
    """The file name of a mistake's example replay (in the report's ``-replays`` folder), from
    the submission id or its pseudonym (never a student's name)."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in name)[:60]
    return f"mistake-{mistake_index + 1:02d}-{safe or 'student'}.html"


def class_figures(students: list[Student], *, anonymise: bool = False, replays: str = ""
                  ) -> tuple[dict[str, Any], list[tuple[str, Student, list[str]]]]:
    """The report's figures (the JSON file), and the example replays to write: (file name in
    ``replays``, student, [the number of its first test the mistake explains]). Labels are set
    on ``students``."""
    for student in students:
        student.label = _label(student, anonymise)
    mistakes, unexplained, failing = _mistakes(students)
    examples = []
    listed = []
    for index, mistake in enumerate(mistakes):
        entry = {"algorithm": mistake.algorithm, "mistakes": list(mistake.names),
                 "title": mistake.title, "students": len(mistake.students),
                 "tests": mistake.tests,
                 "cases": [{"case": case, "tests": count} for case, count in
                           sorted(mistake.cases.items(), key=lambda item: (-item[1], item[0]))],
                 "who": mistake.students}
        if mistake.example is not None and mistake.example.results is not None:
            example = mistake.example
            name = replay_name(index, pseudonym(example.id) if anonymise else example.id)
            examples.append((name, example, mistake.example_tests[:1]))
            entry["example"] = {"student": example.label, "test": mistake.example_tests[0],
                                "replay": f"{replays}/{name}" if replays else ""}
        listed.append(entry)
    explained = sum(m.tests for m in mistakes)
    figures = {
        "report": "class report", "version": 1, "anonymised": anonymise,
        "submissions": len(students),
        "graded": sum(1 for s in students if s.results is not None and not s.error),
        "algorithms": _algorithms(students),
        "mistakes": listed,
        "failing_tests": failing, "explained_tests": explained,
        "unexplained_tests": failing - explained, "unexplained": unexplained,
        "play": _play(students),
        "health": _health(students),
    }
    return figures, examples


def figures_csv(figures: dict[str, Any]) -> str:
    """The figures as rows: ``section, algorithm, item, students, tests, detail``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["section", "algorithm", "item", "students", "tests", "detail"])

    def row(*cells: Any) -> None:
        writer.writerow([inert_cell(c) for c in cells])

    for entry in figures["algorithms"]:
        name = entry["algorithm"]
        for index, count in enumerate(entry["histogram"]):
            row("score_histogram", name, _bin_label(index), count, "", "")
        row("full_marks", name, "full marks", entry["full_marks"], "",
            f"of {entry['students']}")
        for case in entry["failing_cases"]:
            row("failing_case", name, case["case"], case["students"], "", "")
    for entry in figures["mistakes"]:
        row("mistake", entry["algorithm"], entry["title"], entry["students"], entry["tests"],
            "; ".join(f"{c['case']} ({c['tests']})" for c in entry["cases"]))
    for entry in figures["unexplained"]:
        row("unexplained", entry["algorithm"], entry["outcome"], len(entry["students"]),
            entry["tests"], "")
    for entry in figures["play"]["opponents"]:
        for index, count in enumerate(entry["histogram"]):
            row("play_histogram", "evaluate", f"{entry['opponent']} {_bin_label(index)}",
                count, "", "")
    for entry in figures["play"]["strongest"]:
        row("strongest", "evaluate", entry["student"], "", "",
            f"{entry['rate']} vs {figures['play']['ranked_against']}")
    for entry in figures["health"]:
        row("health", "", entry["kind"], entry["count"], "", "; ".join(entry["students"]))
    return buffer.getvalue()


def _bin_label(index: int) -> str:
    if index == BINS:
        return "100%"
    return f"{index * 100 // BINS}-{(index + 1) * 100 // BINS}%"


def write_class_report(folder: Path, html_path: Path, *, anonymise: bool = False
                       ) -> dict[str, Any]:
    """Read the batch's output ``folder``, write the report ``html_path`` with its ``.json``
    and ``.csv`` beside it and the examples' replays in ``<stem>-replays/``; the figures."""
    from grader.report.html.classpage import class_page
    from grader.report.html.load import results_from_json
    from grader.report.html.report import report_html

    html_path = Path(html_path)
    replays = html_path.parent / f"{html_path.stem}-replays"
    students = read_batch(Path(folder))
    figures, examples = class_figures(students, anonymise=anonymise, replays=replays.name)
    html_path.parent.mkdir(parents=True, exist_ok=True)
    if examples:
        replays.mkdir(exist_ok=True)
    for stale in sorted(replays.glob("*.html")) if replays.is_dir() else []:
        if stale.name not in {name for name, _, _ in examples}:
            stale.unlink()
    answers = None
    if examples:  # the hints and windows the replays draw: the staff cache, read once
        from grader.answers.store import AnswerKey

        answers = AnswerKey.default()
    for name, student, numbers in examples:
        try:  # the example's first test this mistake explains: a page of the mistake
            results = results_from_json(student.results)
            results.tests = [test for test in results.tests if test.number in numbers]
            page = report_html(results, base=Path(folder) / student.id, answers=answers)
        except Exception as error:  # noqa: BLE001 - one example lost, never the report
            page = f"<!DOCTYPE html><p>The replay could not be drawn: {error}</p>\n"
        write_text_atomically(page, replays / name)
    write_text_atomically(class_page(figures), html_path)
    write_text_atomically(json.dumps(figures, indent=1, sort_keys=True) + "\n",
                          html_path.with_suffix(".json"))
    write_text_atomically(figures_csv(figures), html_path.with_suffix(".csv"))
    return figures
