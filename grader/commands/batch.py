"""``grader batch``: regrade every submission of a Gradescope export, in parallel.

Input: the folder of a Gradescope "Export Submissions" download (a folder per submission,
``submission_<id>``, and ``submission_metadata.yml`` naming the submitters), or any folder of
submission folders and zips. Output, in ``out``: ``<submission>/results.json`` for each (the
file Gradescope would get, always valid) and ``scores.csv`` (one row a submission: who, total,
error, one column a test).

Speed: reference answers are computed once, in this process, before any grading
(:func:`~grader.scoring.grade.prepare_answers`), and saved to ``<out>/.answer-key.json``; each
grading process loads that file once, so no process recomputes an answer. A rerun skips submissions
whose ``results.json`` is newer than the submission, every case file and the rubric (``force``
redoes them). One broken submission never stops the batch: its failure is its row's ``error`` and
its ``results.json`` is Gradescope's error results.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from grader.files import write_text_atomically

METADATA = "submission_metadata.yml"
KEY_FILE = ".answer-key.json"
RESULTS_FILE = "results.json"
SCORES_FILE = "scores.csv"
PEOPLE_KEYS = ("name", "email", "sid")


@dataclass
class Submission:
    """One submission of the export: its id (folder or zip name), where it is, who sent it."""

    id: str
    path: Path
    submitters: list[dict[str, str]] = field(default_factory=list)


# --- the export ----------------------------------------------------------------------------


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return "" if text in ("~", "null") else text


def read_metadata(text: str) -> dict[str, list[dict[str, str]]]:
    """Submitters by submission id, from the text of an export's ``submission_metadata.yml``.

    Gradescope writes the file from Ruby, so its keys carry a leading colon::

        submission_12345678:
          :submitters:
          - :name: Ada Lovelace
            :sid: '100'
            :email: ada@example.edu
          :created_at: 2024-03-01 10:00:00.000000000 -08:00
          :score: 10.0

    A tolerant line reader rather than a YAML dependency: top-level keys are submissions; the
    items of each one's first ``:submitters:`` list give ``name``, ``email`` and ``sid``;
    everything else (scores, history, Ruby tags) is ignored.
    """
    found: dict[str, list[dict[str, str]]] = {}
    people: list[dict[str, str]] | None = None  # the current submission's list, while open
    list_indent = item_indent = -1  # of its :submitters: key, of the list's "-" items
    person: dict[str, str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("---"):
            continue
        indent = len(raw) - len(raw.lstrip())
        if indent == 0:  # a new submission
            key = _scalar(line.rstrip(":").rstrip()) if line.endswith(":") else None
            people = found.setdefault(key, []) if key and not found.get(key) else None
            person = None
            list_indent = item_indent = -1
            continue
        if people is None:
            continue
        if list_indent < 0:  # looking for the submission's :submitters: key
            if line.rstrip(":").lstrip(":") == "submitters" and line.endswith(":"):
                list_indent = indent
            continue
        if line.startswith("-") and indent >= list_indent and item_indent in (-1, indent):
            item_indent = indent
            person = {}
            people.append(person)
            line = line[1:].strip()
        elif indent <= list_indent or indent <= item_indent:  # the list ended: keep only this one
            people, person = None, None
            continue
        name, colon, value = line.partition(": ")
        name = name.strip().lstrip(":")
        if person is not None and colon and name in PEOPLE_KEYS:
            person[name] = _scalar(value)
    return found


def find_submissions(folder: Path, exclude: Path | None = None) -> list[Submission]:
    """The submissions in ``folder`` (sorted by id), with their submitters when the metadata
    names them. An export unzipped into a single folder of its own is looked into."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no submissions folder at {str(folder)!r}: expected a "
                                "Gradescope export folder (or a folder of submissions)")
    entries = [p for p in sorted(folder.iterdir()) if not p.name.startswith((".", "__MACOSX"))]
    if not (folder / METADATA).exists():
        inner = [p for p in entries if p.is_dir() and (p / METADATA).exists()]
        if len(inner) == 1 and len([p for p in entries if p.is_dir()]) == 1:
            return find_submissions(inner[0], exclude)
    metadata = {}
    if (folder / METADATA).exists():
        metadata = read_metadata((folder / METADATA).read_text(encoding="utf-8", errors="replace"))
    excluded = exclude.resolve() if exclude is not None else None
    submissions = []
    for path in entries:
        if path.resolve() == excluded or not (path.is_dir() or path.suffix.lower() == ".zip"):
            continue
        name = path.stem if path.suffix.lower() == ".zip" else path.name
        submissions.append(Submission(name, path, metadata.get(name, [])))
    return submissions


def newest_change(path: Path) -> float:
    """The latest modification time of ``path`` and, for a folder, of anything inside it."""
    newest = path.stat().st_mtime
    if path.is_dir():
        for inner in path.rglob("*"):
            newest = max(newest, inner.stat().st_mtime)
    return newest


# --- grading one submission (in a pool process) ----------------------------------------------

_STATE: dict[str, Any] = {}  # this pool process's answer key, rubric and case paths


def _init_process(key_path: str, calibration: float, rubric_path: str | None,
                  case_paths: list[str]) -> None:
    """Set up a pool process: its own session (a submission that signals its grader's process
    group reaches this process, never the batch), and this process's answer key and rubric."""
    from grader.answers.store import AnswerKey
    from grader.cases.rubric import load_rubric
    from grader.sandbox.limits import claim_worker_slot

    try:
        os.setsid()
    except OSError:
        pass
    claim_worker_slot()  # this process's workers get a user of their own: none signals another
    _STATE["answers"] = AnswerKey(files=[Path(key_path)], calibration=calibration)
    _STATE["rubric"] = load_rubric(rubric_path)
    _STATE["cases"] = [Path(path) for path in case_paths]


def _summary(data: dict[str, Any]) -> dict[str, Any]:
    """What a scores.csv row needs from a results.json."""
    extra = data.get("extra_data") or {}
    tests = [(str(t["number"]), str(t.get("name", "")), float(t.get("score") or 0.0),
              float(t.get("max_score") or 0.0)) for t in data.get("tests", []) if t.get("number")]
    return {"score": float(data.get("score") or 0.0), "max_score": sum(t[3] for t in tests),
            "tests": tests, "error": extra.get("batch_error", ""),
            "notes": list(extra.get("staff_notes", []))}


def grade_submission(submission: Path, results_path: Path) -> dict[str, Any]:
    """Grade one submission with this process's key, write its results.json, summarise it."""
    from grader.report.gradescope import write_results
    from grader.sandbox.submission import locate_submission
    from grader.scoring.grade import grade

    started = time.perf_counter()
    error = ""
    with tempfile.TemporaryDirectory(prefix="grader-batch-") as scratch:
        try:  # a zip is opened once, here; the sandbox then copies the one file it needs
            source = locate_submission(submission, Path(scratch))
        except Exception as problem:  # noqa: BLE001 - graded anyway: every test reports it
            source, error = submission, f"{type(problem).__name__}: {problem}"
        try:
            results = grade(source, _STATE["cases"], rubric=_STATE["rubric"],
                            answers=_STATE["answers"])
            if error:
                results.extra_data["batch_error"] = error
            data = write_results(results, results_path)
        except Exception as problem:  # noqa: BLE001 - the grader failed on this one: go on
            summary = _record_failure(results_path, f"grading failed: {problem!r}",
                                      traceback.format_exc())
            return {**summary, "seconds": time.perf_counter() - started}
    return {**_summary(data), "seconds": time.perf_counter() - started}


# --- the batch (in the parent) ---------------------------------------------------------------


class Progress:
    """A progress bar with an ETA on a terminal; one plain line a submission otherwise."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.stream, self.done, self.graded = total, stream, 0, 0
        self.started = time.perf_counter()
        self.tty = stream.isatty()

    def say(self, text: str) -> None:
        """A line of its own (below the bar, on a terminal)."""
        if self.tty and 0 < self.done < self.total:
            self.stream.write("\n")
        self.stream.write(text + "\n")
        self.stream.flush()

    def update(self, name: str, summary: dict[str, Any], skipped: bool) -> None:
        self.done += 1
        self.graded += 0 if skipped else 1
        elapsed = time.perf_counter() - self.started
        left = self.total - self.done
        eta = f"{elapsed / self.graded * left:.0f} s" if self.graded else ("0 s" if not left else "?")
        what = "up to date" if skipped else f"{summary['score']:g}/{summary['max_score']:g}"
        if summary["error"]:
            what += f", error: {summary['error'][:80]}"
        if self.tty:
            if summary["error"]:  # kept above the bar
                self.stream.write(f"\r{name}: {summary['error'][:100]}\033[K\n")
            filled = int(30 * self.done / max(self.total, 1))
            bar = "#" * filled + "." * (30 - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} ETA {eta:>6}  {name[:30]:30}")
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"[{self.done}/{self.total}] {name}: {what} (ETA {eta})\n")
        self.stream.flush()


def _column(test: tuple[str, str, float, float]) -> str:
    return test[1].split(" (", 1)[0]  # "minimax: aima-fig-5-2 (description)" -> without it


def write_scores(path: Path, submissions: list[Submission], summaries: dict[str, dict]) -> None:
    """scores.csv: submission, names, emails, sids, score, max_score, error, one column a test."""
    numbered: dict[str, tuple[int, ...]] = {}
    for summary in summaries.values():
        for test in summary["tests"]:
            key = tuple(int(p) for p in test[0].split(".") if p.isdigit())
            numbered.setdefault(_column(test), key)
    columns = sorted(numbered, key=lambda name: (numbered[name], name))
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["submission", "names", "emails", "sids", "score", "max_score", "error",
                     *columns])
    for submission in submissions:
        summary = summaries.get(submission.id)
        if summary is None:
            continue
        people = [[p.get(key, "") for p in submission.submitters] for key in PEOPLE_KEYS]
        scores = {_column(test): f"{test[2]:g}" for test in summary["tests"]}
        writer.writerow([submission.id, *("; ".join(v) for v in people), f"{summary['score']:g}",
                         f"{summary['max_score']:g}", summary["error"],
                         *(scores.get(name, "") for name in columns)])
    write_text_atomically(buffer.getvalue(), path)


def _previous(results_path: Path, inputs_changed: float) -> dict[str, Any] | None:
    """The summary of an up-to-date results.json (newer than every input), else None."""
    try:
        if results_path.stat().st_mtime <= inputs_changed:
            return None
        return {**_summary(json.loads(results_path.read_text())), "seconds": 0.0}
    except (OSError, ValueError, TypeError, AttributeError):
        return None  # missing or damaged: grade again


def _prepare_key(case_paths: list[Path], rubric_path: Path | None, key_path: Path) -> float:
    """Compute every reference answer once; save them for the grading processes."""
    from grader.answers.store import AnswerKey
    from grader.cases import load_case
    from grader.cases.rubric import load_rubric
    from grader.scoring.grade import prepare_answers

    cases = []
    for path in case_paths:
        try:
            cases.append(load_case(path))
        except Exception:  # noqa: BLE001, S112 - grade() reports a broken case in every result
            continue
    answers, rubric = AnswerKey.default(), load_rubric(rubric_path)
    for case in cases:
        try:
            prepare_answers([case], rubric, answers)
        except Exception:  # noqa: BLE001, S112 - each grading process then meets it as a
            continue  # grader error in this case's tests: staff see it, no student loses points
    answers.save()  # the staff cache, for the next run
    answers.save(key_path, used_only=True)
    return answers.calibration()


def batch_main(submissions: Path, out: Path, *, cases: list[Path], jobs: int | None = None,
               force: bool = False, rubric_path: Path | None = None,
               stream: TextIO | None = None) -> int:
    """Grade every submission in ``submissions`` into ``out``. Exit 0; 1 when some submission
    has an error (its row says which); 2 when nothing could be graded (bad folder or cases)."""
    from grader.cases import find_cases
    from grader.cases.rubric import DEFAULT_PATH, load_rubric

    stream = stream or sys.stdout
    out = Path(out)
    try:
        found = find_submissions(Path(submissions), exclude=out)
        case_paths = find_cases([Path(c) for c in cases])
        load_rubric(rubric_path)  # a broken rubric stops the batch before any grading
    except Exception as error:  # noqa: BLE001 - FileNotFoundError, RubricError: say which
        print(f"grader batch: {error}", file=sys.stderr)
        return 2
    rubric_file = Path(rubric_path) if rubric_path else DEFAULT_PATH
    rubric_file = rubric_file / "rubric.toml" if rubric_file.is_dir() else rubric_file
    inputs = [p.stat().st_mtime for p in [*case_paths, rubric_file] if p.exists()]
    summaries: dict[str, dict[str, Any]] = {}
    progress = Progress(len(found), stream)
    todo = []
    for submission in found:
        previous = None if force else _previous(
            out / submission.id / RESULTS_FILE, max([newest_change(submission.path), *inputs]))
        if previous is None:
            todo.append(submission)
        else:
            summaries[submission.id] = previous
            progress.update(submission.id, previous, skipped=True)
    if todo:
        out.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        calibration = _prepare_key(case_paths, rubric_path, out / KEY_FILE)
        progress.say(f"reference answers for {len(case_paths)} cases ready in "
                     f"{time.perf_counter() - started:.1f} s")
        setup = (str(out / KEY_FILE), calibration, str(rubric_path) if rubric_path else None,
                 [str(p) for p in case_paths])
        try:
            _run_pool(todo, out, jobs or _cores(), setup, summaries, progress)
        except KeyboardInterrupt:
            write_scores(out / SCORES_FILE, found, summaries)
            progress.say(f"interrupted: {len(summaries)} of {len(found)} submissions in "
                         f"{out / SCORES_FILE}; run again to grade the rest")
            return 130
    out.mkdir(parents=True, exist_ok=True)
    write_scores(out / SCORES_FILE, found, summaries)
    errors = [s for s in found if summaries[s.id]["error"]]
    notes = sorted({note for summary in summaries.values() for note in summary["notes"]})
    for note in notes:
        print(f"staff note: {note}", file=stream)
    print(f"{len(found)} submissions: {len(todo)} graded, {len(found) - len(todo)} up to date, "
          f"{len(errors)} with errors; scores in {out / SCORES_FILE}", file=stream)
    return 1 if errors else 0


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _run_pool(todo: list[Submission], out: Path, jobs: int, setup: tuple,
              summaries: dict[str, dict], progress: Progress) -> None:
    """Grade ``todo`` in ``jobs`` processes. When a process dies (a pool breaks, failing every
    submission in flight), each of those is graded again alone, so only the one that kills its
    grader gets an error row."""
    suspects = _pooled(todo, out, jobs, setup, summaries, progress)
    for submission in suspects:
        if _pooled([submission], out, 1, setup, summaries, progress):
            error = "the grading process died twice while grading this submission"
            summaries[submission.id] = _record_failure(out / submission.id / RESULTS_FILE, error)
            progress.update(submission.id, summaries[submission.id], skipped=False)


def _pooled(todo: list[Submission], out: Path, jobs: int, setup: tuple,
            summaries: dict[str, dict], progress: Progress) -> list[Submission]:
    """One pool over ``todo``; the submissions lost to a broken pool are returned."""
    broken = []
    pool = ProcessPoolExecutor(max_workers=max(1, min(jobs, len(todo))),
                               initializer=_init_process, initargs=setup)
    try:
        futures = {pool.submit(grade_submission, s.path, out / s.id / RESULTS_FILE): s
                   for s in todo}
        for future in as_completed(futures):
            submission = futures[future]
            try:
                summary = future.result()
            except BrokenProcessPool:
                broken.append(submission)
                continue
            except Exception as problem:  # noqa: BLE001 - recorded; the batch goes on
                summary = _record_failure(out / submission.id / RESULTS_FILE,
                                          f"grading failed: {problem!r}")
            summaries[submission.id] = summary
            progress.update(submission.id, summary, skipped=False)
    except KeyboardInterrupt:
        # The pool's processes have sessions of their own (see _init_process), so Ctrl-C
        # reaches only this one: stop them here rather than wait for their submissions.
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return broken


def _record_failure(results_path: Path, error: str, detail: str = "") -> dict[str, Any]:
    """Gradescope's error results for a submission the grader could not grade; its summary."""
    from grader.report.gradescope import error_results, write_json_atomically

    data = {**error_results(error, detail), "extra_data": {"batch_error": error}}
    write_json_atomically(data, results_path)
    return {**_summary(data), "seconds": 0.0}
