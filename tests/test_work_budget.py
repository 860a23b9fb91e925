"""Same submission, same score: budgets counted in game calls, at any load (issue 13).

The known-wrong variants that search more than the reference (strict pruning, never pruning,
eager generation) are graded by the real ``grader grade`` twice, the second run with twice as many
busy processes as cores, and every test's score and output must be the same each time
(timing fields aside: ``execution_time`` and each test's ``extra_data.timing``, docs/staff.md).
A search stopped by its budget is shown, with its first difference, the tree and the hint, in
the terminal, results.json and the HTML report.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest
import suite_modules

ROOT = Path(__file__).resolve().parent.parent
variants = suite_modules.load("submissions/variants.py")

CASES = [ROOT / "trees/public" / name for name in (
    "tictactoe-empty-board.json", "aima-fig-5-2.json", "prune-equal-depth-2.json",
    "nim-winning-move.json")]
VARIANTS = ("strict_pruning", "never_prunes", "eager_generation")
TIMING = ("execution_time",)  # top-level fields that are timings by nature
TIGHT = "[defaults]\nwork_multiple = 10\n\n[random_trees]\npoints = 0\n"
TINY = "[defaults]\nwork_multiple = 1\nwork_floor = 0\n\n[random_trees]\npoints = 0\n"


def _module(name: str):
    """Variant ``name``'s search.py as a module of this process."""
    spec = importlib.util.spec_from_loader(f"variant_{name}", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(variants.source(name), f"<{name}>", "exec"), module.__dict__)  # noqa: S102
    return module


# The regrades and their busy processes share one core (where the platform lets a process
# choose): a grader among twice as many busy processes as cores gets the same share of a core
# as on all of them, and the load burns one core, not all (it was most of this file's time).
CORES = sorted(os.sched_getaffinity(0))[:1] if hasattr(os, "sched_getaffinity") else []


def _spin() -> None:  # a busy process
    if CORES:
        os.sched_setaffinity(0, CORES)
    while True:
        pass


def _grader(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "GRADER_CACHE": str(cache), "NO_COLOR": "1"}
    mask = os.sched_getaffinity(0) if CORES else None
    if CORES:  # this thread's, which the child inherits (no preexec_fn: pytest-xdist's threads)
        os.sched_setaffinity(0, CORES)
    try:
        return subprocess.run([sys.executable, "-m", "grader", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)
    finally:
        if mask is not None:
            os.sched_setaffinity(0, mask)


def _without_timings(results: dict) -> dict:
    data = {key: value for key, value in copy.deepcopy(results).items() if key not in TIMING}
    for test in data["tests"]:
        extra = dict(test.get("extra_data") or {})
        extra.pop("timing", None)
        test["extra_data"] = extra
    return data


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The graders' answer cache, holding the cases' answers and the known mistakes' runs the
    hints compare with, worked out first from the suite's cache as ``grader batch`` gives its
    grading processes theirs (:func:`grader.batch.pool.prepare_key`): the first regrade
    computed them itself at every run, about 2 CPU s."""
    from grader.batch.pool import prepare_key

    folder = tmp_path_factory.mktemp("answer-cache")
    prepare_key(CASES, None, folder / "answer-key.json")
    return folder


def test_regrades_give_the_same_results_at_any_load(tmp_path, cache):
    runs: dict[str, list[dict]] = {name: [] for name in VARIANTS}
    busy = len(CORES) or os.cpu_count() or 1
    # idle, then a busy process on every core: the grade gets a share of a core, as on a loaded
    # machine (more busy processes would only burn more CPU the same way)
    for load in (0, busy):
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(load)]
        for spinner in spinners:
            spinner.start()
        try:
            for name in VARIANTS:
                submission = variants.materialize(name, tmp_path / name)
                out = tmp_path / f"{name}-{load}-{len(runs[name])}.json"
                done = _grader("grade", "--submission", str(submission),
                               "--results", str(out), "--cases", *map(str, CASES), cache=cache)
                assert done.returncode == 0, done.stderr
                runs[name].append(json.loads(out.read_text()))
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.join()
    for name, results in runs.items():
        first = _without_timings(results[0])
        scores = [[test["score"] for test in run["tests"]] for run in results]
        assert all(score == scores[0] for score in scores), (name, scores)
        for run in results[1:]:
            assert _without_timings(run) == first, name
        board = next(t for t in results[0]["tests"] if "tictactoe-empty-board" in t["name"])
        # each finishes inside the default budget: right value, wrong order, partial credit
        assert board["extra_data"]["outcome"] == "wrong_trace" and board["score"] == 0.5, board
        assert set(board["extra_data"]["timing"]) == {"reference_seconds", "seconds", "cpu_window"}


def test_a_budget_stop_shows_the_difference_and_the_hint_everywhere(tmp_path, cache):
    rubric = tmp_path / "rubric.toml"
    rubric.write_text(TIGHT)
    submission = variants.materialize("never_prunes", tmp_path / "never_prunes")
    board = str(ROOT / "trees/public/tictactoe-empty-board.json")
    results, html = tmp_path / "results.json", tmp_path / "report.html"
    done = _grader("grade", "--submission", str(submission), "--results",
                   str(results), "--rubric", str(rubric), "--cases", board, cache=cache)
    assert done.returncode == 0, done.stderr
    test = next(t for t in json.loads(results.read_text())["tests"]
                if t["name"].startswith("alpha_beta"))
    assert test["score"] == 0 and test["extra_data"]["outcome"] == "budget"
    # it passed both budgets; the result calls are named (the worker is told rounder budgets, and
    # the order of the two kinds' calls does not cross: grader.scoring.budget.within_budget)
    stopped = "stopped after 183,960 `result` calls, 10.1 times what the reference needed"
    assert stopped in test["output"]
    assert "`generated` differs at step 11" in test["output"]
    assert "Likely mistake: never prunes" in test["output"]
    assert "prune" not in test["output"].split("Likely mistake")[0].split("stopped after")[0]
    check = _grader("check", "--submission", str(submission), "-a", "alpha_beta", "--rubric",
                    str(rubric), "--cases", board, "--html", str(html), cache=cache)
    flat = " ".join(check.stdout.split())  # sentences wrapped to the terminal's width
    assert "STOP" in check.stdout and stopped.replace("`", "") in flat, check.stdout  # plain
    assert "differs at step 11" in check.stdout and "never prunes" in flat
    page = html.read_text()
    assert "stopped: too many game calls" in page and "10.1 times what the reference" in page
    assert "never prunes" in page


def test_a_budget_stop_on_a_tree_draws_the_tree(tmp_path, cache):
    rubric = tmp_path / "rubric.toml"
    rubric.write_text(TINY)  # the budget is exactly the reference's calls
    submission = variants.materialize("never_prunes", tmp_path / "never_prunes")
    results = tmp_path / "results.json"
    done = _grader("grade", "--submission", str(submission), "--results",
                   str(results), "--rubric", str(rubric), "--cases",
                   str(ROOT / "trees/public/aima-fig-5-2.json"), cache=cache)
    assert done.returncode == 0, done.stderr
    test = next(t for t in json.loads(results.read_text())["tests"]
                if t["name"].startswith("alpha_beta"))
    assert test["extra_data"]["outcome"] == "budget"
    assert "stopped after 10 `result` calls, 1.0 times what the reference needed" in test["output"]
    assert "The tree, with what each search generated:" in test["output"]
    assert "`generated` differs at step 7" in test["output"]
    assert test["extra_data"]["replay"]["got"]["generated"][:7] == [
        "B", "B1", "B2", "B3", "C", "C1", "C2"]


def test_every_known_wrong_variant_that_terminates_finishes_inside_the_default_budget():
    """The rubric's defaults are chosen so: never_prunes on the empty tic-tac-toe board (30 x
    the reference's result calls, 35 x its utility calls) and recomputes_child on full
    tic-tac-toe minimax (1.1 million result calls) included. Run here, in this process."""
    from grader.answers.solve import mcts_settings
    from grader.answers.store import AnswerKey
    from grader.cases import find_cases, load_case
    from grader.cases.rubric import load_rubric
    from grader.run.runner import run_algorithm
    from grader.run.tracing import BudgetExceeded
    from grader.scoring.budget import work_budget
    from grader.scoring.pair import accepted_rules

    rubric, answers = load_rubric(), AnswerKey.default()
    cases = [load_case(path) for path in find_cases([ROOT / "trees/public", ROOT / "trees/hidden"])]
    stopped, checked = [], 0
    sys.setrecursionlimit(10_000)
    for name, variant in variants.VARIANTS.items():
        module = _module(name)
        for case in cases:
            for algorithm in case.algorithms:
                if algorithm not in variant.algorithms or (
                        algorithm == "mcts" and case.mcts is not None
                        and case.mcts.check == "outcome"):
                    continue
                rules = accepted_rules(case.pruning, rubric.for_algorithm(algorithm).pruning)
                references = [answers.reference(case, algorithm, rule) for rule in rules]
                budget = work_budget(rubric.settings_for(case, algorithm), references)
                settings = mcts_settings(case) if algorithm == "mcts" else None
                checked += 1
                try:
                    run_algorithm(vars(module), case.build_game(), algorithm, settings, budget)
                except BudgetExceeded:
                    stopped.append(f"{name} on {case.name} ({algorithm})")
                except Exception:  # noqa: BLE001, S112 - a variant that raises is not stopped
                    continue
    assert checked > 100 and stopped == []


def test_the_parent_applies_the_exact_budget_to_what_the_worker_says_and_to_its_trace():
    """The worker is told a budget rounded up to a power of two (what it is told, the submission
    can read); the parent applies the exact one, to the larger of the calls the worker reports
    and the trace it sent: a forged low count cannot hide a trace past the budget."""
    from grader.run.tracing import Budget
    from grader.sandbox.protocol import WorkerReply
    from grader.scoring.budget import within_budget, worker_budget

    exact = Budget(result=1_040, evaluated=1_700)
    assert worker_budget(exact) == Budget(result=2_048, evaluated=2_048)
    ids = [f"n{i}" for i in range(1_500)]
    inside = WorkerReply(status="ok", value=3, generated=ids[:1_040], evaluated=ids[:1_000],
                         calls={"result": 1_040, "evaluated": 1_000})
    assert within_budget(inside, exact).status == "ok"
    for calls in ({"result": 1_500, "evaluated": 10}, {"result": 0, "evaluated": 0}, None):
        reply = within_budget(WorkerReply(status="ok", value=3, generated=list(ids),
                                          evaluated=ids[:10], calls=calls), exact)
        assert (reply.status, reply.value, len(reply.generated)) == ("budget", None, 1_040), calls
        assert reply.budget_stop == {"kind": "result", "calls": 1_040}
    past = WorkerReply(status="timeout", generated=ids[:20], evaluated=ids[:20],
                       calls={"result": 20, "evaluated": 1_701})
    assert within_budget(past, exact).budget_stop == {"kind": "evaluated", "calls": 1_700}
