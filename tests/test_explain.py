"""The step explanation (grader/feedback/explain.py) and the replays it reads (reference/steps.py).

The replays must be the reference's search step for step, or the sentence would explain a
search that is not the one the student is compared with.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from grader.answers.solve import mcts_settings, solve
from grader.answers.store import AnswerKey
from grader.cases import case_from_dict, find_cases, load_case
from grader.feedback.drawing import window_note
from grader.feedback.explain import step_note
from grader.run.runner import RunResult
from grader.scoring import random_trees as shrink
from reference.steps import TreeSteps, mcts_moments, tree_moments

ROOT = Path(__file__).resolve().parent.parent
SLOW = {"tictactoe-empty-board", "tictactoe-corner-opening-minimax", "connect4-depth-limited"}
CASES = [case for case in map(load_case, find_cases([ROOT / "trees" / "public",
                                                     ROOT / "trees" / "hidden"]))
         if case.name not in SLOW]
PAIRS = [(case, algorithm) for case in CASES for algorithm in case.algorithms
         if algorithm in ("minimax", "expectimax", "maxn")]


@pytest.mark.parametrize("case, algorithm", PAIRS,
                         ids=[f"{algorithm}-{case.name}" for case, algorithm in PAIRS])
def test_the_tree_replay_generates_exactly_what_the_reference_does(case, algorithm):
    steps = TreeSteps(case.build_game(), star1=algorithm == "expectimax",
                      vectors=algorithm == "maxn", until=10**7)
    reference = solve(case, algorithm)
    assert steps.generated == reference.generated
    made = [moment[5][0] for moment in steps.moments if moment[0] == "generate"]
    assert made == reference.generated


def test_the_mcts_replay_expands_what_the_reference_does():
    for case in CASES:
        if "mcts" not in case.algorithms or case.mcts.check != "trace":
            continue
        settings = mcts_settings(case)
        reference = solve(case, "mcts")
        moments = mcts_moments(case.build_game(), settings.iterations,
                               random.Random(settings.seed), settings.c)
        assert len(moments) == settings.iterations, case.name
        for moment in moments:
            if moment[4] is not None:  # the expansion is the iteration's first generated node
                assert reference.generated[moment[1]] == moment[4][2], case.name


def test_star1_says_why_the_reference_went_on():
    case = load_case(ROOT / "trees" / "public" / "star1-bounded-expectimax.json")
    expected = solve(case, "expectimax")
    step = next(m[1] for m in tree_moments(case.build_game(), star1=True)
                if m[0] == "generate" and m[3] == "CHANCE" and m[4])
    got = RunResult(expected.value, expected.generated[:step] + ["elsewhere"])
    note = step_note(case, "expectimax", "inclusive", expected, got, AnswerKey(cache=None))
    assert "S + U·R" in note and "so no cut" in note and note.endswith("Yours generated elsewhere.")


def test_a_tie_and_a_missing_bound_are_explained_in_max_n():
    data = {"$schema": shrink.SCHEMA, "name": "tie", "description": "a tie at B, P0 twice in a row", "algorithms": ["maxn"],
            "players": 3, "max_sum": 10,
            "tree": {"id": "R", "player": 0, "children": [
                {"id": "A", "value": [6, 2, 2]},
                {"id": "B", "player": 0, "children": [
                    {"id": "B1", "value": [4, 3, 3]}, {"id": "B2", "value": [4, 5, 1]},
                    {"id": "B3", "value": [1, 1, 1]}]}]}}
    case = case_from_dict(data)
    expected = solve(case, "maxn")
    got = RunResult(expected.value, ["A", "B", "B1", "B2"])  # stops at B3
    note = step_note(case, "maxn", "inclusive", expected, got, AnswerKey(cache=None))
    assert "B2 only ties entry 0, and ties keep the first child" in note
    assert "its parent's mover is player 0 too" in note and "It generates B3 next" in note


def test_a_trace_that_ends_early_has_stopped_only_when_the_work_budget_stopped_it():
    case = load_case(ROOT / "trees" / "public" / "deep-narrow.json")
    answers = AnswerKey(cache=None)
    for algorithm in ("minimax", "alpha_beta"):
        expected = solve(case, algorithm)
        got = RunResult(expected.value, expected.generated[:20])
        if algorithm == "minimax":
            returned = step_note(case, algorithm, "inclusive", expected, got, answers)
            stopped = step_note(case, algorithm, "inclusive", expected, got, answers,
                                stopped=True)
        else:
            returned = window_note(case, "inclusive", expected.generated, got.generated)
            stopped = window_note(case, "inclusive", expected.generated, got.generated,
                                  stopped=True)
        assert "stopped" not in returned and returned.endswith("it returned after 20.")
        assert stopped.endswith("Your search had stopped.")


def test_no_explanation_past_where_a_stopped_replay_ends(monkeypatch):
    import reference.steps as steps

    case = load_case(ROOT / "trees" / "public" / "deep-narrow.json")
    expected = solve(case, "minimax")
    got = RunResult(expected.value, expected.generated[:20] + ["elsewhere"])
    monkeypatch.setattr(steps, "STEP_LIMIT", 10)
    assert step_note(case, "minimax", "inclusive", expected, got, AnswerKey(cache=None)) is None
    monkeypatch.undo()
    assert "Yours generated elsewhere" in step_note(case, "minimax", "inclusive", expected, got,
                                                    AnswerKey(cache=None))
