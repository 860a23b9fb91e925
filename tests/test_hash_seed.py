"""The grader's own process runs with Python's random hash seed (only the sandbox worker pins
``PYTHONHASHSEED=0``): nothing it writes may depend on it.

Two known-wrong variants (their feedback: the tree drawn, the first difference, the named
mistake, an MCTS iteration explained; a correct solution's passing tests say less) are graded on the public cases (``CASES``) by
the real ``grader grade`` under two hash seeds, each with an answer cache of its own (so the
reference answers are computed under each seed too), and the results must be the same apart
from the fields that are timings by nature (docs/staff.md, "Reproducible"). A set or a
frozenset of strings iterated where the output's order comes from, a ``hash()`` used as a key
order or a seed, fails here. The second seed's run grades with two workers at once (``--jobs
2``): its results must be one worker's too (the tests shared out, run in parallel, put back in
order; the named mistake decided on the same observations).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import suite_modules

ROOT = Path(__file__).resolve().parent.parent
variants = suite_modules.load("submissions/variants.py")

SUBMISSIONS = ("strict_pruning", "ucb_log10")
SEEDS = ("1", "2")  # two seeds under which sets of strings iterate in different orders
JOBS = {"1": "1", "2": "2"}  # workers grading at once, by seed


def _without_timings(results: dict) -> dict:
    """``results`` minus ``execution_time`` and each test's ``extra_data.timing``."""
    data = {key: value for key, value in results.items() if key != "execution_time"}
    data["tests"] = [{**test, "extra_data": {key: value for key, value in
                                             (test.get("extra_data") or {}).items()
                                             if key != "timing"}}
                     for test in results["tests"]]
    return data


# The public cases but the empty tic-tac-toe board: its whole-game searches, with a cold cache
# for each seed, were 40% of this test's time and go through the same game, traces and
# feedback as the other tic-tac-toe cases.
CASES = [path for path in sorted((ROOT / "trees" / "public").glob("*.json"))
         if path.name != "tictactoe-empty-board.json"]


def _grade(submission: Path, out: Path, seed: str, cache: Path) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": seed, "GRADER_CACHE": str(cache), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "grader", "grade", "--submission",
                           str(submission), "--results", str(out), "--jobs", JOBS[seed],
                           "--cases", *map(str, CASES)],
                          cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


def test_the_grader_gives_the_same_results_under_any_hash_seed(tmp_path):
    sets_differ = [subprocess.run(
        [sys.executable, "-c", "print(list({'alpha', 'beta', 'gamma', 'delta', 'epsilon'}))"],
        env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True).stdout
        for seed in SEEDS]
    assert sets_differ[0] != sets_differ[1], "the seeds must give sets of strings two orders"
    for name in SUBMISSIONS:
        submission = variants.materialize(name, tmp_path / name)
        runs = [_grade(submission, tmp_path / f"{name}-{seed}.json", seed,
                       tmp_path / f"cache-{seed}") for seed in SEEDS]
        failed = [t for t in runs[0]["tests"] if t["score"] < t["max_score"]]
        assert runs[0]["tests"] and failed, name  # feedback compared
        first, second = map(_without_timings, runs)
        for one, other in zip(first["tests"], second["tests"]):
            assert one == other, (name, one["name"])
        assert first == second, name


STATEFUL = '''

_correct_alpha_beta = alpha_beta
_roots = []  # kept between calls: every third search from a root answers one too high


def alpha_beta(game, state, alpha=-math.inf, beta=math.inf, depth=0):
    if depth == 0:
        _roots.append(state)
        if len(_roots) % 3 == 0:
            return _correct_alpha_beta(game, state, alpha, beta, depth) + 1
    return _correct_alpha_beta(game, state, alpha, beta, depth)
'''


def test_a_submission_keeping_state_between_calls_gets_the_same_results_on_one_core_as_on_two(
        tmp_path):
    """The tests are shared among two workers whether they run one after the other (``--jobs
    1``, a student's machine) or at once (``--jobs 2``, run_autograder on two CPUs): a search
    whose answers depend on the calls before it in its process sees the same calls either way.
    (With one worker for --jobs 1, each worker's third root search fell on other tests.)"""
    from grader.scoring.grade import grade

    submission = tmp_path / "search.py"
    submission.write_text((ROOT / "tests" / "submissions" / "correct" / "search.py").read_text()
                           + STATEFUL)
    runs = [grade(submission, [ROOT / "trees" / "public"], algorithms=["alpha_beta"], jobs=jobs)
            for jobs in (1, 2)]
    one, two = ([(t.name, t.score, t.output) for t in run.tests] for run in runs)
    assert any(score == 0 for _, score, _ in one) and any(score > 0 for _, score, _ in one)
    assert one == two


def test_a_small_grade_runs_on_one_worker_whatever_jobs_is(tmp_path, monkeypatch):
    """A grade estimated under SHARED_FROM game calls (here two small cases) is not shared out:
    a second worker's start would cost more than its tests. The choice depends on the cases
    only, so a stateful submission gets the same results with --jobs 1 and 2;
    $GRADER_SHARE_FROM=0 shares any grade, and a bad value is the grader's error, named."""
    from grader.errors import GraderError
    from grader.scoring import grade as grading

    counts = []
    real_users = grading.worker_users
    monkeypatch.setattr(grading, "worker_users", lambda count: counts.append(count) or
                        real_users(count))
    submission = tmp_path / "search.py"
    submission.write_text((ROOT / "tests" / "submissions" / "correct" / "search.py").read_text()
                           + STATEFUL)
    small = [ROOT / "trees" / "public" / name for name in
             ("aima-fig-5-2.json", "depth-limit-1.json", "depth-limit-2.json")]
    runs = [grading.grade(submission, small, algorithms=["alpha_beta"], jobs=jobs)
            for jobs in (1, 2)]
    one, two = ([(t.name, t.score, t.output) for t in run.tests] for run in runs)
    assert counts == [1, 1] and len(one) == 3 and one == two
    assert any(score == 0 for _, score, _ in one)  # the third root search is off by one
    monkeypatch.setenv(grading.SHARED_FROM_VARIABLE, "0")
    grading.grade(submission, small, algorithms=["alpha_beta"])
    assert counts[-1] == grading.SHARES
    monkeypatch.setenv(grading.SHARED_FROM_VARIABLE, "many")
    with pytest.raises(GraderError, match="GRADER_SHARE_FROM: expected a whole number"):
        grading.grade(submission, small, algorithms=["alpha_beta"])
