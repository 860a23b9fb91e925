"""grader/shrink.py: random trees, the smallest failing one, and its test in the grading run.

Most tests drive the search with an in-process worker (the submission's functions run here),
which is what the sandbox would answer; the wiring tests use the real sandboxed worker.
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import suite_modules
from hypothesis import given, settings

from grader.answers.solve import mcts_settings, solve
from grader.cases import case_from_dict, load_case
from grader.cases.rubric import load_rubric, rubric_from_dict
from grader.feedback.drawing import alpha_beta_moments
from grader.run.runner import run_algorithm
from grader.scoring import random_trees as shrink
from grader.scoring.grade import grade

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests" / "submissions"
STUBS = ("max_value", "min_value", "alpha_beta", "expectimax", "maxn", "mcts")

variants = suite_modules.load("submissions/variants.py")


@dataclass
class Reply:
    status: str
    value: Any = None
    generated: list = field(default_factory=list)
    evaluated: list = field(default_factory=list)
    error: dict | None = None
    message: str = ""
    function: str | None = None
    table: dict | None = None  # as WorkerReply: the final table's summary, alpha_beta_tt only


class InProcessWorker:
    """Answers ``run`` as the sandbox would, running a known submission's functions here."""

    def __init__(self, name: str) -> None:
        module = types.ModuleType(f"shrink_submission_{name}")
        exec(compile(variants.source(name), f"<{name}>", "exec"), module.__dict__)  # noqa: S102
        self.table = {stub: getattr(module, stub) for stub in STUBS}
        self.calls = 0

    def run(self, data: dict, algorithm: str, time_limit: float = 1.0, **_: Any) -> Reply:
        self.calls += 1
        case = case_from_dict(data)
        settings_ = mcts_settings(case) if algorithm == "mcts" else None
        try:
            run = run_algorithm(self.table, case.build_game(), algorithm, mcts=settings_)
        except Exception as error:  # noqa: BLE001 - the sandbox reports it as an error
            return Reply("error", error={"type": type(error).__name__, "message": str(error)})
        return Reply("ok", run.value, run.generated, run.evaluated)


def smallest(name: str, algorithm: str, rule: str = "inclusive", count: int = 60):
    finder = shrink.Finder(InProcessWorker(name), algorithm, rule, count=count, seed_value=0)
    return finder, finder.search()


@pytest.mark.parametrize("algorithm", ["minimax", "alpha_beta", "expectimax", "maxn", "mcts"])
def test_random_trees_are_valid_cases_the_reference_solves(algorithm):
    @settings(max_examples=25, deadline=None, database=None)
    @given(shrink.case_dicts(algorithm))
    def check(data):
        case = case_from_dict(data)
        assert case.algorithms == [algorithm]
        solve(case, algorithm)
        leaves, nodes, _ = shrink.tree_size(data)
        assert 2 <= leaves and nodes <= 1 + 3 + 9 + 27

    check()


def test_never_prunes_shrinks_to_at_most_four_leaves():
    finder, found = smallest("never_prunes", "alpha_beta")
    assert found is not None and found.comparison is not None
    assert shrink.tree_size(found.data)[0] <= 4
    assert found.comparison.value.ok and not found.comparison.generated.equal
    lines = shrink.report(found, "alpha_beta", "inclusive", finder.tried, finder.failures)
    assert max(map(len, lines)) <= 100
    text = "\n".join(lines)
    assert "(`never_prunes`)" in text and "(`strict_pruning`)" not in text  # told apart
    assert re.search(r"── \S+ = \d+ +\+ +· +\d+", text)  # a node only the student made, drawn


def test_strict_pruning_shrinks_to_a_tree_with_a_value_equal_to_the_bound():
    _, found = smallest("strict_pruning", "alpha_beta")
    assert found is not None
    step = found.comparison.generated.first_difference
    moments = alpha_beta_moments(found.case.build_game(), strict=False)
    cut = next(m for m in moments if m.kind == "cut" and m.step == step)
    assert cut.v == (cut.beta if cut.is_max else cut.alpha)  # the tie the strict rule skips
    assert shrink.tree_size(found.data)[0] <= 5


def test_the_search_is_reproducible():
    first = smallest("strict_pruning", "alpha_beta", count=30)[1]
    second = smallest("strict_pruning", "alpha_beta", count=30)[1]
    assert first.data == second.data


@pytest.mark.parametrize("name, algorithm", [
    ("chance_as_min", "expectimax"), ("maxn_player0", "maxn"), ("mcts_max_reward", "mcts"),
    ("recomputes_child", "minimax"),
])
def test_other_mistakes_are_found_and_named(name, algorithm):
    finder, found = smallest(name, algorithm)
    assert found is not None
    text = "\n".join(shrink.report(found, algorithm, "inclusive", finder.tried, finder.failures))
    assert f"(`{name}`)" in text


def test_a_correct_submission_passes_within_the_call_budget():
    finder, found = smallest("correct", "alpha_beta", count=40)
    assert found is None
    assert finder.worker.calls <= 40 and finder.tried == finder.worker.calls


def test_a_spent_budget_stops_the_sandboxed_calls():
    worker = InProcessWorker("never_prunes")
    finder = shrink.Finder(worker, "alpha_beta", "inclusive", count=60, seed_value=0, budget=0)
    assert finder.search() is None and worker.calls == 0


# --- in the grading run ----------------------------------------------------------------------

RUBRIC = rubric_from_dict({"random_trees": {"points": {"alpha_beta": 2}, "count": 40}})
CASE = ROOT / "trees" / "public" / "aima-fig-5-2.json"


def test_the_random_tree_test_is_numbered_after_the_algorithms_cases(tmp_path):
    path = variants.materialize("never_prunes", tmp_path)
    results = grade(path, [CASE], rubric=RUBRIC, algorithms=["alpha_beta"])
    assert [t.number for t in results.tests] == ["2.1", "2.2"]
    random_test = results.tests[1]
    assert random_test.name == "alpha_beta: random trees (the smallest failing tree is shown)"
    assert random_test.max_score == 2 and random_test.score == 0
    assert "├── " in random_test.output and "(`never_prunes`)" in random_test.output


def test_a_correct_submission_earns_the_random_tree_points():
    path = SUBMISSIONS / "correct" / "search.py"
    results = grade(path, [CASE], rubric=RUBRIC, algorithms=["alpha_beta"])
    assert results.tests[-1].passed and results.tests[-1].score == 2


def test_no_points_no_test():
    counters = {"alpha_beta": 3}
    assert list(shrink.random_tree_tests(load_rubric(None), None, counters)) == []
    assert counters == {"alpha_beta": 3}


def test_an_unimplemented_function_fails_at_once():
    results = grade(ROOT / "student" / "search.py", [CASE], rubric=RUBRIC,
                    algorithms=["alpha_beta"])
    assert results.tests[-1].outcome == "not_implemented"
    assert "`alpha_beta` is not implemented yet" in results.tests[-1].summary


def test_without_the_reference_the_test_is_left_to_gradescope(monkeypatch):
    monkeypatch.setattr(shrink, "reference_available", lambda: False)
    assert list(shrink.random_tree_tests(RUBRIC, None, {"alpha_beta": 0})) == []
    note = shrink.handout_note(RUBRIC)
    assert note == ("Random-tree tests for alpha_beta (2 points) are not run here: they need the "
                    "reference, so they run on Gradescope.")
    assert shrink.handout_note(RUBRIC, wanted={"minimax"}) == ""


def test_the_probe_tree_is_a_valid_case_for_every_algorithm():
    for algorithm in ("minimax", "alpha_beta", "expectimax", "maxn", "mcts"):
        reply = shrink._probe(InProcessWorker("correct"), algorithm)
        assert reply.status == "ok", (algorithm, reply)


def test_a_case_file_and_a_random_tree_look_alike():
    """Random trees use the corpus's id scheme (A; B, C; B1, B2; B1.1)."""
    case = load_case(ROOT / "trees" / "public" / "aima-fig-5-2.json")
    ids = set(solve(case, "minimax").generated)
    assert {shrink._node_id((1,)), shrink._node_id((1, 2)), shrink._node_id((2, 3))} <= ids
    assert shrink._node_id((1, 2, 3)) == "B2.3"
