"""``grader batch``: regrade every submission of a Gradescope export, in parallel; a share of
it on each of several machines (``--shard K/N``), and those shares merged (``--merge``).

Output, in ``out``: ``<submission>/results.json`` for each (the file Gradescope would get,
always valid) and ``scores.csv`` (one row a submission: who, total, error, one column a test).
The parts live in :mod:`grader.batch`: the export (:mod:`~grader.batch.export`), the pool
(:mod:`~grader.batch.pool`), scores.csv (:mod:`~grader.batch.scores`), shards
(:mod:`~grader.batch.shards`).

Speed: reference answers are computed once, in this process, before any grading
(:func:`~grader.batch.pool.prepare_key`), and saved to ``<out>/.answer-key.json``; each
grading process loads that file and every case once. A rerun skips submissions whose
``results.json`` is newer than the submission, every case file and the rubric (``force``
redoes them). One broken submission never stops the batch: its failure is its row's ``error``
and its ``results.json`` is Gradescope's error results.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

from grader.batch.export import Submission, find_submissions, newest_change, read_metadata
from grader.batch.pool import cores, prepare_key, run_pool
from grader.batch.progress import Progress
from grader.batch.scores import RESULTS_FILE, SCORES_FILE, previous_summary, write_scores
from grader.batch.shards import ShardError, merge_shards, parse_shard, take_shard, write_manifest

KEY_FILE = ".answer-key.json"

__all__ = ["KEY_FILE", "Submission", "batch_main", "find_submissions", "merge_main",
           "read_metadata"]


def batch_main(submissions: Path, out: Path, *, cases: list[Path], jobs: int | None = None,
               force: bool = False, rubric_path: Path | None = None,
               stream: TextIO | None = None, shard: str | None = None,
               report: Path | None = None, anonymise: bool = False) -> int:
    """Grade every submission in ``submissions`` (or share ``shard`` = ``"K/N"`` of them) into
    ``out``; with ``report``, then write the class report there (:func:`class_report`). Exit 0;
    1 when some submission has an error (its row says which); 2 when nothing could be graded
    (bad folder, cases or shard) or the report could not be written."""
    from grader.cases import find_cases
    from grader.cases.rubric import DEFAULT_PATH, load_rubric
    from grader.sandbox.portable import require_sandbox

    stream = stream or sys.stdout
    out = Path(out)
    try:
        if jobs is not None and jobs < 1:
            raise ValueError(f"expected --jobs of at least 1, got {jobs}")
        require_sandbox("grader batch")  # staff grade only in the full sandbox, as on Gradescope
        everyone = find_submissions(Path(submissions), exclude=out)
        share = parse_shard(shard) if shard is not None else None
        found = take_shard(everyone, share) if share else everyone
        case_paths = find_cases([Path(c) for c in cases])
        load_rubric(rubric_path)  # a broken rubric stops the batch before any grading
    except Exception as error:  # noqa: BLE001 - FileNotFoundError, RubricError, ShardError
        print(f"grader batch: {error}", file=sys.stderr)
        return 2
    if share:
        write_manifest(out, share, everyone, found)
        print(f"shard {share[0]}/{share[1]}: {len(found)} of {len(everyone)} submissions",
              file=stream)
    rubric_file = Path(rubric_path) if rubric_path else DEFAULT_PATH
    rubric_file = rubric_file / "rubric.toml" if rubric_file.is_dir() else rubric_file
    inputs = [p.stat().st_mtime for p in [*case_paths, rubric_file] if p.exists()]
    summaries: dict[str, dict[str, Any]] = {}
    progress = Progress(len(found), stream)
    todo = []
    for submission in found:
        previous = None if force else previous_summary(
            out / submission.id / RESULTS_FILE, max([newest_change(submission.path), *inputs]))
        if previous is None:
            todo.append(submission)
        else:
            summaries[submission.id] = previous
            progress.update(submission.id, previous, skipped=True)
    if todo:
        out.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        calibration = prepare_key(case_paths, rubric_path, out / KEY_FILE)
        progress.say(f"reference answers for {len(case_paths)} cases ready in "
                     f"{time.perf_counter() - started:.1f} s")
        setup = (str(out / KEY_FILE), calibration, str(rubric_path) if rubric_path else None,
                 [str(p) for p in case_paths])
        try:
            run_pool(todo, out, jobs or cores(), setup, summaries, progress)
        except KeyboardInterrupt:
            write_scores(out / SCORES_FILE, found, summaries)
            progress.say(f"interrupted: {len(summaries)} of {len(found)} submissions in "
                         f"{out / SCORES_FILE}; run again to grade the rest")
            return 130
    out.mkdir(parents=True, exist_ok=True)
    write_scores(out / SCORES_FILE, found, summaries)
    errors = [s for s in found if summaries[s.id]["error"]]
    _notes(summaries, stream)
    print(f"{len(found)} submissions: {len(todo)} graded, {len(found) - len(todo)} up to date, "
          f"{len(errors)} with errors; scores in {out / SCORES_FILE}", file=stream)
    if report is not None and class_report(out, report, anonymise, stream):
        return 2
    return 1 if errors else 0


def merge_main(folders: list[Path], out: Path, *, stream: TextIO | None = None,
               report: Path | None = None, anonymise: bool = False) -> int:
    """``grader batch --merge DIR... --out OUT [--report F]``: the shards' results in one
    folder and one scores.csv (and the class report of them). Exit 0; 1 when a submission has
    an error or a shard lacks a result; 2 when the folders are not every share of one split or
    the report could not be written."""
    stream = stream or sys.stdout
    try:
        submissions, summaries, problems = merge_shards([Path(f) for f in folders], Path(out))
    except ShardError as error:
        print(f"grader batch --merge: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"grader batch --merge: {problem}", file=sys.stderr)
    errors = [s for s in submissions if summaries[s.id]["error"]]
    _notes(summaries, stream)
    print(f"{len(folders)} shards merged: {len(submissions)} submissions, {len(errors)} with "
          f"errors; scores in {Path(out) / SCORES_FILE}", file=stream)
    if report is not None and class_report(Path(out), report, anonymise, stream):
        return 2
    return 1 if errors or problems else 0


def class_report(out: Path, report: Path, anonymise: bool, stream: TextIO) -> int:
    """The class report of the batch output ``out`` at ``report`` (``grader report --class``'s
    work, :mod:`grader.batch.classreport`): 0 when written, else 2 (the reason on stderr)."""
    from grader.commands.report import class_report_main

    return class_report_main(out, html=report, anonymise=anonymise, stream=stream)


def _notes(summaries: dict[str, dict[str, Any]], stream: TextIO) -> None:
    for note in sorted({note for summary in summaries.values() for note in summary["notes"]}):
        print(f"staff note: {note}", file=stream)
