"""Iterative deepening with root move ordering: the game's depth-varying cutoff, the case rules,
the reference's exact trace on a hand-worked tree, the decision comparison and the report of
the nodes ordering saves."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from grader.answers.store import AnswerKey
from grader.cases import case_from_dict, load_case
from grader.compare import check_decision, compare
from grader.errors import AboveCutoffError, CaseError
from grader.feedback.deepening import ordering_counts, ordering_report
from grader.feedback.explain import step_note
from grader.run.runner import RunResult, run_algorithm
from grader.run.tracing import traced
from grader.cases.rubric import load_rubric
from grader.scoring.grade import grade
from reference import reference_functions
from reference.deepening import DeepeningReplay, best_first, deepening_steps, iterative_deepening

ROOT = Path(__file__).resolve().parent.parent
INTRO = ROOT / "trees" / "public" / "iterative-deepening-intro.json"
CORRECT = ROOT / "tests" / "submissions" / "correct" / "search.py"
RUBRIC = load_rubric()


def intro_data() -> dict:
    return json.loads(INTRO.read_text())


# --- the game: with_depth_limit ---------------------------------------------------------------


def test_with_depth_limit_moves_the_cutoff_and_keeps_the_states() -> None:
    game = load_case(INTRO).build_game()
    root = game.initial_state()
    shallow = game.with_depth_limit(1)
    a = shallow.result(root, "a")
    assert shallow.depth_limit == 1 and game.depth_limit == 2
    assert shallow.is_cutoff(a, 1) and not game.is_cutoff(a, 1)
    assert shallow.evaluate(a) == 2  # a's eval: legal at the shallower cutoff only
    with pytest.raises(AboveCutoffError):
        game.evaluate(a)
    assert game.result(root, "a") is a  # one set of states


@pytest.mark.parametrize("limit", [0, 3, -1, 1.0, True, None])
def test_with_depth_limit_refuses_a_limit_outside_one_to_the_games(limit) -> None:
    game = load_case(INTRO).build_game()
    with pytest.raises(ValueError, match="with_depth_limit: expected an int at least 1 and at "
                                         "most depth_limit 2"):
        game.with_depth_limit(limit)


def test_a_traced_games_depth_limited_copy_records_into_the_same_trace() -> None:
    game = load_case(INTRO).build_game()
    wrapper, trace = traced(game)
    root = game.initial_state()
    shallow = wrapper.with_depth_limit(1)
    child = shallow.result(root, "b")
    shallow.evaluate(child)
    wrapper.result(root, "c")
    assert trace.generated_ids() == ["b", "c"] and trace.evaluated_ids() == ["b"]
    with pytest.raises(AttributeError):
        shallow.depth_limit = 2  # read-only like the game it came from


# --- the reference --------------------------------------------------------------------------


def test_the_reference_on_the_hand_worked_tree() -> None:
    # Iteration 1 evaluates a 2, b 1, c 5; iteration 2 takes c, a, b: c's leaves give 5, then
    # a1 = 3 <= 5 and b1 = 2 <= 5 cut a and b after one leaf each.
    run = run_algorithm(reference_functions(), load_case(INTRO).build_game(), "iterative_deepening")
    assert run.value == (5, "c")
    assert run.generated == ["a", "b", "c", "c", "c1", "c2", "c3", "a", "a1", "b", "b1"]
    assert run.evaluated == ["a", "b", "c", "c1", "c2", "c3", "a1", "b1"]


def test_best_first_sorts_for_the_mover_ties_and_unsearched_in_actions_order() -> None:
    values = {"a": 1, "b": 3, "c": 3}
    assert best_first(0, ["a", "b", "c", "d"], values) == ["b", "c", "a", "d"]
    assert best_first(1, ["a", "b", "c", "d"], values) == ["a", "b", "c", "d"]
    assert best_first(1, ["d", "c", "b", "a"], values) == ["a", "c", "b", "d"]


def test_a_root_at_the_cutoff_returns_its_value_and_no_action() -> None:
    game = load_case(INTRO).build_game()
    leaf = game.result(game.result(game.initial_state(), "a"), "a1")
    assert iterative_deepening(game, leaf, 2) == (3, None)


# --- the case rules ---------------------------------------------------------------------------


def test_a_deepening_case_needs_a_depth_limit() -> None:
    data = intro_data()
    del data["depth_limit"]
    with pytest.raises(CaseError, match="iterative_deepening searches to depths 1 .. "
                                        "depth_limit, so its case needs a depth_limit"):
        case_from_dict(data)


def test_every_inner_node_an_earlier_iteration_cuts_needs_an_eval() -> None:
    data = intro_data()
    del data["tree"]["children"][1]["eval"]  # b: at depth 1, cut by iteration 1
    with pytest.raises(CaseError, match="node 'b' has children and iterative deepening cuts "
                                        "at depth 1"):
        case_from_dict(data)
    data["algorithms"], data["expect"] = ["minimax"], {}  # depth 2 only: b is never cut
    case_from_dict(data)


# --- comparing (value, action) -------------------------------------------------------------


@pytest.mark.parametrize("got, ok, message", [
    ((5, "c"), True, ""),
    ([5.0, "c"], True, ""),
    ((5, "a"), False, "right value 5, but expected the action 'c', got 'a'"),
    ((3, "c"), False, "expected the value 5, got 3"),
    (5, False, "expected a pair (value, action), (5, 'c'); got 5"),
    (None, False, "expected a pair (value, action)"),
])
def test_check_decision(got, ok, message) -> None:
    check = check_decision((5, "c"), got)
    assert check.ok is ok and message in check.message


def test_compare_with_decision_grades_value_and_action_then_the_trace() -> None:
    expected = RunResult((5, "c"), ["a", "b"], ["a"])
    assert compare(expected, RunResult([5, "c"], ["a", "b"], ["a"]), decision=True).passed
    wrong_order = compare(expected, RunResult((5, "c"), ["b", "a"], ["a"]), decision=True)
    assert wrong_order.value.ok and not wrong_order.passed


# --- the nodes ordering saves -----------------------------------------------------------------


def test_ordering_counts_and_report_on_the_hand_worked_tree() -> None:
    case = load_case(INTRO)
    answers = AnswerKey(cache=None)
    assert ordering_counts(case, "inclusive", answers) == {"ordered": [3, 8], "unordered": [3, 10]}
    lines = ordering_report(case, "inclusive", answers, 12)
    assert max(map(len, lines)) <= 100
    assert " ".join(lines[:lines.index("")]) == ("**Move ordering.** Over 2 iterations the reference generates 11 nodes "
                        "with root ordering and 13 without: ordering saves 2 (15%). Your search "
                        "generated 12.")
    assert lines[-1] == "| 2 | 8 | 10 | 2 |"


def test_grading_iterative_deepening_twice_gives_the_same_results(tmp_path) -> None:
    cases = [INTRO, ROOT / "trees" / "public" / "iterative-deepening-nim-min.json"]
    first = grade(CORRECT, cases)
    second = grade(CORRECT, cases)
    assert [(t.number, t.score, t.output) for t in first.tests] == \
        [(t.number, t.score, t.output) for t in second.tests]
    assert all(t.passed for t in first.tests) and len(first.tests) == 2
    assert "ordering saves 2 (15%)" in first.tests[0].output


def test_new_and_generate_write_deepening_cases_that_load() -> None:
    from grader.commands.generate import generate_cases
    from grader.commands.new import skeleton

    made = [skeleton("iterative_deepening", 2, 3)]
    made += generate_cases("iterative_deepening", depth=3, branching=2, seed=1)
    for data in made:
        case = case_from_dict(data)
        assert case.depth_limit == 3
        run = run_algorithm(reference_functions(), case.build_game(), "iterative_deepening")
        assert len(run.evaluated) > 2 ** 3  # iterations 1 and 2 evaluated inner nodes too


def test_a_cut_student_trace_is_counted_as_at_least() -> None:
    lines = ordering_report(load_case(INTRO), "inclusive", AnswerKey(cache=None), 9, True)
    assert " ".join(lines[:lines.index("")]).endswith("Your search generated at least 9.")


# --- the step note: the iteration, its root order and the window at the first difference -----


def _deepening_cases() -> list[Path]:
    return [path for folder in ("public", "hidden")
            for path in sorted((ROOT / "trees" / folder).glob("*.json"))
            if "iterative_deepening" in json.loads(path.read_text()).get("algorithms", [])]


@pytest.mark.parametrize("rule", ["inclusive", "strict"])
def test_the_step_replay_is_the_reference_step_for_step_on_every_case(rule) -> None:
    paths = _deepening_cases()
    assert len(paths) >= 10
    for path in paths:
        case = load_case(path)
        replay = DeepeningReplay(case.build_game(), case.depth_limit, rule == "strict")
        ref = run_algorithm(reference_functions(rule), case.build_game(), "iterative_deepening")
        assert replay.complete, path.name
        assert (replay.generated, replay.evaluated, replay.value) == \
            (ref.generated, ref.evaluated, ref.value[0]), path.name


def test_the_replay_marks_each_iteration_with_its_root_order_and_why() -> None:
    moments = deepening_steps(load_case(INTRO).build_game())
    assert [m for m in moments if m[0] == "iteration"] == [
        ["iteration", 0, 1, "MAX", ["a", "b", "c"], None],
        ["iteration", 3, 2, "MAX", ["c", "a", "b"], [["c", 5], ["a", 2], ["b", 1]]]]
    assert ["cut", 9, "a", False, 5, math.inf, 3, ["a2", "a3"]] in moments


# the unordered iterations' trace (the no_ordering mistake's): a, b, c again at depth limit 2
UNORDERED = ["a", "b", "c", "a", "a1", "a2", "a3", "b", "b1", "c", "c1", "c2", "c3"]


def test_the_note_names_the_iteration_its_order_and_the_next_node() -> None:
    case, answers = load_case(INTRO), AnswerKey(cache=None)
    expected = run_algorithm(reference_functions(), case.build_game(), "iterative_deepening")
    note = step_note(case, "iterative_deepening", "inclusive", expected,
                     RunResult(5, UNORDERED), answers)
    assert note == (
        "Step 4 is in iteration 2 of the reference's iterative deepening (depth limit 2; the "
        "iteration's step 1), which searches the root's children in the order c, a, b: "
        "iteration 1's values c = 5, a = 2, b = 1, sorted best first for MAX at the root "
        "(highest first, ties in `game.actions` order). At step 4 the reference is at R (MAX) "
        "with α = −∞, β = +∞ and v = −∞ so far: v < β, no cut, so it generates c next. "
        "Yours generated a.")
    # at a cut, its window and the children it prunes; in iteration 1, game.actions order
    at_cut = step_note(case, "iterative_deepening", "inclusive", expected,
                       RunResult(5, expected.generated[:9] + ["a2"]), answers)
    assert "Step 10 is in iteration 2" in at_cut
    assert "At step 10 the reference is at a (MIN) with α = 5, β = +∞: v = 3 ≤ α = 5, so it " \
           "stops there and prunes a2, a3." in at_cut
    first = step_note(case, "iterative_deepening", "inclusive", expected,
                      RunResult(5, ["b"]), answers)
    assert first.startswith("Step 1 is in iteration 1 of the reference's iterative deepening "
                            "(depth limit 1; the iteration's step 1), which searches the root's "
                            "children in `game.actions` order (a, b, c): the first iteration")
    assert "generates a next. Yours generated b." in first


def test_the_handouts_key_holds_the_notes_for_each_rule_a_case_accepts() -> None:
    """The handout has no reference/: prepare_answers keeps the replay in the key, one a rule
    (the window follows the rule), and a key without it gives no note rather than another's."""
    from grader.scoring.grade import prepare_answers

    either = load_case(ROOT / "trees" / "hidden" / "iterative-deepening-either-rule.json")
    case, key = load_case(INTRO), AnswerKey(cache=None)
    prepare_answers([case, either], RUBRIC, key)
    stored = [entry for entry in key.entries if ":steps:iterative_deepening:" in entry]
    assert len(stored) == 3  # the intro's course rule, both of the either-rule case's
    assert {entry.rsplit(":", 1)[1] for entry in stored} == {"inclusive", "strict"}
    key.version = None  # as in the handout: only what the key file holds
    expected = run_algorithm(reference_functions(), case.build_game(), "iterative_deepening")
    note = step_note(case, "iterative_deepening", "inclusive", expected, RunResult(5, UNORDERED),
                     key)
    assert note.startswith("Step 4 is in iteration 2") and "generates c next" in note
    empty = AnswerKey(cache=None)
    empty.version = None
    assert step_note(case, "iterative_deepening", "inclusive", expected,
                     RunResult(5, UNORDERED), empty) is None
