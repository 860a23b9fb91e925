"""reference/replay.py and reference/values.py: the one instrumented alpha-beta and the backed-up
values, checked against the reference's own traced runs; and how grader/ reaches them (from
reference/ on staff machines, from the answer key in the handout, never from a search of its own).
"""

from __future__ import annotations

import ast
import math
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from grader.answers import sheet as answer_sheet
from grader.answers import tree_walk
from grader.answers.solve import solve
from grader.answers.store import AnswerKey
from grader.answers.tree_walk import node_values
from grader.cases import case_from_dict, find_cases, load_case
from grader.commands.key import key_main
from grader.feedback.diagnosis import window_moments
from grader.feedback.scene import build_scene
from grader.games.base import CHANCE, MAX
from grader.scoring.random_trees import case_dicts
from reference.replay import AlphaBetaReplay, alpha_beta_moments
from reference.values import back_up

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "trees" / "public"
RULES = ("inclusive", "strict")
# (tic-tac-toe from the empty board takes seconds under the strict rule: left out)
CASES = [c for c in (load_case(p) for p in find_cases([PUBLIC, ROOT / "trees" / "hidden"]))
         if "alpha_beta" in c.algorithms and c.name != "tictactoe-empty-board"]


def _agrees_with_the_reference(case, rule: str) -> AlphaBetaReplay:
    replay = AlphaBetaReplay(case.build_game(), rule)
    reference = solve(case, "alpha_beta", pruning=rule)
    assert (replay.value, replay.generated, replay.evaluated) == (
        reference.value, reference.generated, reference.evaluated), (case.name, rule)
    return replay


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_replay_is_the_reference_step_for_step_with_sound_windows(case):
    for rule in RULES:
        replay = _agrees_with_the_reference(case, rule)
        generates = [m for m in replay.moments if m[0] == "generate"]
        assert [m[7][0] for m in generates] == replay.generated
        assert [m[1] for m in generates] == list(range(len(replay.generated)))
        for kind, _, _, is_max, alpha, beta, v, _ in replay.moments:
            if kind == "generate":  # not cut yet: the window is open (closed only by equality)
                assert alpha < beta if rule == "inclusive" else alpha <= beta
            else:
                bound = beta if is_max else alpha
                cuts = (v >= bound if is_max else v <= bound) if rule == "inclusive" else (
                    v > bound if is_max else v < bound)
                assert cuts, (case.name, rule)
        assert [c.pruned for c in replay.cuts] == [m[7] for m in replay.moments if m[0] == "cut"]


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(case_dicts("alpha_beta"))
def test_the_replay_agrees_with_the_reference_on_random_trees(data):
    case = case_from_dict(data)
    for rule in RULES:
        _agrees_with_the_reference(case, rule)


def test_fail_soft_bounds_bracket_the_exact_values():
    checked = 0
    for case in (c for c in CASES if c.form != "game"):
        exact = {n.id: n.value for n in tree_walk.walk(case.build_game()) if not n.repeat}
        for rule in RULES:
            replay = AlphaBetaReplay(case.build_game(), rule)
            assert (replay.visits[0].alpha, replay.visits[0].beta) == (-math.inf, math.inf)
            for visit in replay.visits:
                bound = visit.bound()
                true = exact[visit.id]
                if visit.exact:
                    assert visit.returned == true
                elif bound == "<=":  # "at most": the true value is no larger
                    assert true <= visit.returned
                elif bound == ">=":
                    assert true >= visit.returned
                checked += bound != ""
    assert checked >= 20


def test_until_stops_after_the_step_asked_for():
    case = load_case(PUBLIC / "aima-fig-5-2.json")
    whole = AlphaBetaReplay(case.build_game())
    short = AlphaBetaReplay(case.build_game(), until=3)
    assert not short.complete and short.value is None and whole.complete and whole.value == 3
    assert short.generated == whole.generated[:5]
    assert short.moments == whole.moments[: len(short.moments)]
    assert alpha_beta_moments(case.build_game(), False, until=3) == short.moments


def test_bad_rule_and_chance_node_raise_naming_what_was_given():
    game = load_case(PUBLIC / "aima-fig-5-2.json").build_game()
    with pytest.raises(ValueError, match="expected pruning to be one of .*got: 'either'"):
        AlphaBetaReplay(game, "either")
    chance = load_case(PUBLIC / "expectimax-notes-8-8-vs-36-3.json").build_game()
    with pytest.raises(ValueError, match="MAX .* or MIN .* got player 'chance' at B"):
        AlphaBetaReplay(chance)


def test_back_up_keeps_the_first_of_ties_and_sums_chance_in_order():
    assert back_up(MAX, [3, 7, 7], []) == 7
    assert back_up(1, [(5, 2, 0), (1, 2, 9)], []) == (5, 2, 0)  # P1 ties: the first child
    assert back_up(CHANCE, [10, 0.1, -10], [0.1, 0.8, 0.1]) == 0.1 * 10 + 0.8 * 0.1 + 0.1 * -10
    with pytest.raises(ValueError, match="one child or more, got none"):
        back_up(MAX, [], [])


def test_walk_without_values_gives_the_structure_and_the_leaves():
    game = load_case(PUBLIC / "aima-fig-5-2.json").build_game()
    valued, bare = tree_walk.walk(game), tree_walk.walk(game, values=False)
    assert [n.id for n in valued] == [n.id for n in bare]
    assert all(b.value == (v.value if v.cutoff else None) for v, b in zip(valued, bare))


# --- the handout: no reference/ ---------------------------------------------------------------


@pytest.fixture
def no_reference(monkeypatch):
    """As in the handout: the modules grader/ reaches for are not there."""
    for name in ("reference", "reference.replay", "reference.values", "reference.mcts"):
        monkeypatch.setitem(sys.modules, name, None)


def test_ta_tools_say_the_handout_has_no_reference(no_reference, capsys):
    with pytest.raises(tree_walk.ReferenceMissingError, match="handout does not include"):
        answer_sheet.AlphaBetaReplay  # noqa: B018 - the lazy import is what is tested
    assert key_main(PUBLIC / "aima-fig-5-2.json") == 2
    assert "needs the reference implementations" in capsys.readouterr().err


def test_the_handout_picture_takes_values_and_cuts_from_the_key(monkeypatch):
    case = load_case(PUBLIC / "aima-fig-5-2.json")
    run = solve(case, "alpha_beta")
    staff_scene = build_scene(case, "alpha_beta", run, None)
    key = AnswerKey(cache=None)
    node_values(case, key), window_moments(case, "inclusive", key)  # what the handout's key holds
    for name in ("reference.replay", "reference.values"):
        monkeypatch.setitem(sys.modules, name, None)
    scene = build_scene(case, "alpha_beta", run, None, answers=key)
    assert scene.cuts == staff_scene.cuts and scene.cuts["C"].children == ["C2", "C3"]
    assert scene.labels["B"] == "3" and scene.labels["C"] == "2"  # exact values, no bounds
    assert staff_scene.labels["C"] == "<=2" and staff_scene.bounds and not scene.bounds
    bare = build_scene(case, "alpha_beta", run, None)  # no key: leaves only, no cut marks
    assert "B" not in bare.labels and bare.labels["B1"] == "3" and not bare.cuts


def test_no_alpha_beta_or_minimax_search_is_left_in_grader():
    """No comparison with alpha / beta, and no recursive function that makes children and
    takes max / min of their values, in the package the handout ships."""
    found = []
    for path in sorted((ROOT / "grader").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                names = [getattr(n, "id", getattr(n, "attr", None))
                         for n in (node.left, *node.comparators)]
                if {"alpha", "beta"} & set(names):
                    found.append(f"{path.name}:{node.lineno} compares with alpha/beta")
            if isinstance(node, ast.FunctionDef):
                called = {getattr(c.func, "id", getattr(c.func, "attr", None))
                          for c in ast.walk(node) if isinstance(c, ast.Call)}
                if {node.name, "result"} <= called and {"max", "min"} & called:
                    found.append(f"{path.name}:{node.lineno} {node.name} searches")
    assert found == []
