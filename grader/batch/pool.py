"""The process pool that grades a batch's submissions, and grading one submission in it.

Each pool process is set up once (:func:`init_process`): the answer key the parent computed,
the rubric, and every case file loaded, so a submission costs only its own grading. A
submission is graded by :func:`grade_submission`, in a pool process: the one place to wrap
per-submission policy (a job slot's worker user, a time budget for the whole submission).
Each submission still gets a fresh sandbox worker of its own (started by
:func:`grader.scoring.grade.grade`).
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from grader.batch.export import Submission
from grader.batch.progress import Progress
from grader.batch.scores import RESULTS_FILE, record_failure, summary

_STATE: dict[str, Any] = {}  # this pool process's answer key, rubric, case paths and cases


def init_process(key_path: str, calibration: float, rubric_path: str | None,
                 case_paths: list[str]) -> None:
    """Set up a pool process: its own session (a submission that signals its grader's process
    group reaches this process, never the batch), the answer key, the rubric and the cases."""
    from grader.answers.store import AnswerKey
    from grader.cases import load_case
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
    loaded: dict[Path, Any] = {}
    for path in _STATE["cases"]:
        try:
            loaded[path] = load_case(path)
        except Exception:  # noqa: BLE001, S112 - grade() loads it again and reports it
            continue
    _STATE["loaded"] = loaded


def _load(path: Path) -> Any:
    """A case this process loaded at start (a broken one is loaded again, to raise its error)."""
    from grader.cases import load_case

    case = _STATE.get("loaded", {}).get(Path(path))
    return case if case is not None else load_case(path)


def grade_submission(submission: Path, results_path: Path) -> dict[str, Any]:
    """Grade one submission with this process's key, write its results.json, summarise it.

    Runs in a pool process; per-submission policy (who the worker runs as, a budget for the
    whole submission) wraps this function."""
    from grader.report.gradescope import write_results
    from grader.sandbox.submission import locate_submission
    from grader.scoring.grade import grade

    started = time.perf_counter()
    error = ""
    with tempfile.TemporaryDirectory(prefix="grader-batch-") as scratch:
        try:  # what the upload holds, for scores.csv's error column
            locate_submission(submission, Path(scratch))
        except Exception as problem:  # noqa: BLE001 - graded anyway: the results say why
            error = f"{type(problem).__name__}: {problem}"
        try:  # the upload as it is (a zip too), so the results name the file chosen in it
            results = grade(submission, _STATE["cases"], rubric=_STATE["rubric"],
                            answers=_STATE["answers"], load=_load)
            if error:
                results.extra_data["batch_error"] = error
            data = write_results(results, results_path)
        except Exception as problem:  # noqa: BLE001 - the grader failed on this one: go on
            failed = record_failure(results_path, f"grading failed: {problem!r}",
                                    traceback.format_exc())
            return {**failed, "seconds": time.perf_counter() - started}
    return {**summary(data), "seconds": time.perf_counter() - started}


def prepare_key(case_paths: list[Path], rubric_path: Path | None, key_path: Path) -> float:
    """Compute every reference answer once, in the parent; save them for the pool processes
    (``key_path``) and the staff cache. Returns the machine's calibration."""
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


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def run_pool(todo: list[Submission], out: Path, jobs: int, setup: tuple,
             summaries: dict[str, dict], progress: Progress) -> None:
    """Grade ``todo`` in ``jobs`` processes. When a process dies (a pool breaks, failing every
    submission in flight), each of those is graded again alone, so only the one that kills its
    grader gets an error row."""
    from grader.sandbox.process import run_folder

    run_folder()  # made (and held) here: the forked processes put their workers' scratch
    #               folders in it, and end without the exit hook that would remove their own
    suspects = _pooled(todo, out, jobs, setup, summaries, progress)
    for submission in suspects:
        if _pooled([submission], out, 1, setup, summaries, progress):
            error = "the grading process died twice while grading this submission"
            summaries[submission.id] = record_failure(out / submission.id / RESULTS_FILE, error)
            progress.update(submission.id, summaries[submission.id], skipped=False)


def _pooled(todo: list[Submission], out: Path, jobs: int, setup: tuple,
            summaries: dict[str, dict], progress: Progress) -> list[Submission]:
    """One pool over ``todo``; the submissions lost to a broken pool are returned."""
    broken = []
    pool = ProcessPoolExecutor(max_workers=max(1, min(jobs, len(todo))),
                               initializer=init_process, initargs=setup)
    try:
        futures = {pool.submit(grade_submission, s.path, out / s.id / RESULTS_FILE): s
                   for s in todo}
        for future in as_completed(futures):
            submission = futures[future]
            try:
                found = future.result()
            except BrokenProcessPool:
                broken.append(submission)
                continue
            except Exception as problem:  # noqa: BLE001 - recorded; the batch goes on
                found = record_failure(out / submission.id / RESULTS_FILE,
                                       f"grading failed: {problem!r}")
            summaries[submission.id] = found
            progress.update(submission.id, found, skipped=False)
    except KeyboardInterrupt:
        # The pool's processes have sessions of their own (see init_process), so Ctrl-C
        # reaches only this one: stop them here rather than wait for their submissions.
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return broken
