"""Quiescence search: the games' noisy moves, the case rules, the reference's exact trace on
the hand-worked horizon tree (stand pat, noisy moves, the stand-pat cut), horizon cases where
the depth-limited and the quiescent answers part, and the catalogue against the public cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.answers.tree_walk import walk
from grader.cases import case_from_dict, find_cases, load_case
from grader.errors import CaseError
from grader.games.connect4 import ConnectFour
from grader.games.mnk import MNKGame
from grader.games.tictactoe import TicTacToe
from grader.run.runner import run_algorithm
from reference import decision, reference_functions
from reference.minimax import max_value, min_value
from reference.mistakes import mistakes_for

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "trees" / "public"
INTRO = PUBLIC / "quiescence-horizon-intro.json"
Q_CASES = [load_case(path) for path in find_cases([PUBLIC, ROOT / "trees" / "hidden"])
           if "quiescence" in load_case(path).algorithms]
PUBLIC_Q = [case for case in Q_CASES if case.path.parent == PUBLIC]


def run(functions, case, algorithm="quiescence"):
    return run_algorithm(functions, case.build_game(), algorithm)


# --- the games' noisy moves ----------------------------------------------------------------------


def test_tictactoe_noisy_moves_win_or_block_and_a_quiet_board_has_none() -> None:
    game = TicTacToe("xx.|oo.|...")  # x to move: 2 wins, 5 blocks o's row
    state = game.initial_state()
    assert game.noisy_actions(state) == (2, 5) and not game.is_quiet(state)
    calm = TicTacToe("x..|.o.|...")
    assert calm.noisy_actions(calm.initial_state()) == () and calm.is_quiet(calm.initial_state())
    won = TicTacToe("xxx|oo.|...")
    assert won.noisy_actions(won.initial_state()) == () and won.is_quiet(won.initial_state())


def test_connect4_and_mnk_noisy_moves_follow_the_falling_mark_and_the_board_size() -> None:
    game = ConnectFour("....|....|o...|xx..")  # o to move; column 2 lands beside x x: a block
    assert game.noisy_actions(game.initial_state()) == (2,)
    board = MNKGame(".....|.xxx.|..o..|..o..|.....")  # o to move: 5 and 9 block x's four
    assert board.noisy_actions(board.initial_state()) == (5, 9)


def test_a_tree_node_is_quiet_unless_marked_and_its_noisy_moves_are_its_marked_children() -> None:
    game = load_case(INTRO).build_game()
    root = game.initial_state()
    b, c = game.result(root, "B"), game.result(root, "C")
    assert not game.is_quiet(b) and game.noisy_actions(b) == ("B1",)
    assert game.is_quiet(c) and game.noisy_actions(c) == ()
    assert game.quiescence_limit == 2


def test_a_quiescence_case_needs_a_depth_limit_and_a_limit_needs_quiescence() -> None:
    data = json.loads(INTRO.read_text())
    del data["depth_limit"]
    with pytest.raises(CaseError, match="quiescence searches on from the depth cutoff"):
        case_from_dict(data)
    data = json.loads(INTRO.read_text())
    data["algorithms"] = ["alpha_beta"]
    with pytest.raises(CaseError, match="quiescence_limit is given but quiescence is not"):
        case_from_dict(data)


# --- the reference -----------------------------------------------------------------------------


def test_the_horizon_tree_stands_pat_extends_noisy_moves_and_cuts_on_stand_pat() -> None:
    case = load_case(INTRO)
    got = run(reference_functions(), case)
    # B: stand pat 5 for MIN, then its noisy B1 (MAX: stand -10, noisy B1a -4); C quiet: 3;
    # D: MIN's stand pat 2 <= alpha 3 already, so its noisy D1 is never generated.
    assert (got.value, got.generated, got.evaluated) == (3, ["B", "B1", "B1a", "C", "D"],
                                                         ["B", "B1", "B1a", "C", "D"])
    plain = run(reference_functions(), case, "alpha_beta")
    assert (plain.value, plain.generated) == (5, ["B", "C", "D"])
    assert decision(case.build_game(), "quiescence") == "C"
    assert decision(case.build_game(), "alpha_beta") == "B"


def test_the_drawn_tree_extends_noisy_moves_with_stand_pat_values() -> None:
    nodes = {node.id: node for node in walk(load_case(INTRO).build_game(), quiescence=True)}
    assert (nodes["B"].value, nodes["B"].stand, nodes["B"].children) == (-4, 5, ["B1"])
    assert (nodes["D"].value, nodes["D"].children) == (2, ["D1"])  # stand pat beats D1's 9
    assert nodes["C"].cutoff and nodes["C"].value == 3


@pytest.mark.parametrize("state, plain_move, quiet_move", [
    ("x..|.o.|o.x", 1, 2),  # the public horizon case: square 1 loses, square 2 wins
    ("...|o..|.xx", 2, 6),  # o to move (hidden): 2 lets x win, 6 blocks
])
def test_depth_limited_search_walks_into_a_loss_the_quiescent_one_sees(
        state, plain_move, quiet_move) -> None:
    game = TicTacToe(state, depth_limit=1)
    assert decision(game, "alpha_beta") == plain_move
    assert decision(game, "quiescence") == quiet_move
    full = TicTacToe(state)
    root = full.initial_state()

    def exact(action):
        child = full.result(root, action)
        return (max_value if full.to_move(child) == 0 else min_value)(full, child, 1)

    mover_sign = 1 if full.to_move(root) == 0 else -1
    assert mover_sign * exact(quiet_move) > mover_sign * exact(plain_move)


def test_the_quiescent_answer_differs_from_the_depth_limited_one_on_public_cases() -> None:
    functions = reference_functions()
    parted = [case.name for case in PUBLIC_Q
              if (run(functions, case).value, decision(case.build_game(), "quiescence"))
              != (run(functions, case, "alpha_beta").value,
                  decision(case.build_game(), "alpha_beta"))]
    assert {"quiescence-horizon-intro", "quiescence-tictactoe-horizon",
            "quiescence-tictactoe-x", "quiescence-connect4-win"} <= set(parted)


# --- the catalogue against the public cases -----------------------------------------------------


@pytest.mark.parametrize("mistake", mistakes_for("quiescence", "inclusive"),
                         ids=lambda mistake: mistake.name)
def test_every_catalogue_mistake_fails_a_public_case(mistake) -> None:
    reference = reference_functions()
    failing = []
    for case in PUBLIC_Q:
        want, got = run(reference, case), run(mistake.functions("inclusive"), case)
        if (want.value, want.generated, want.evaluated) != (got.value, got.generated,
                                                            got.evaluated):
            failing.append(case.name)
    assert failing, mistake.name


# --- the case checks of the quiet / noisy marks ----------------------------------------------------


def _marked(edit) -> dict:
    data = json.loads(INTRO.read_text())
    edit(data["tree"])
    return data


@pytest.mark.parametrize("edit, says, where", [
    (lambda tree: tree["children"][0]["children"][1].update(quiet=False),
     "leaf 'B2' is marked \"quiet\": false", "$.tree.children[0].children[1]"),
    (lambda tree: tree["children"][1]["children"][0].update(noisy=True),
     "'C1' is marked noisy but its parent 'C' is quiet", "$.tree.children[1].children[0]"),
    (lambda tree: tree["children"][0]["children"][0].pop("eval"),
     "node 'B1' is reached past the depth limit along noisy moves (depth 2)",
     "$.tree.children[0].children[0]"),
])
def test_a_misplaced_mark_or_a_missing_stand_pat_eval_is_an_error_naming_the_node(
        edit, says, where) -> None:
    with pytest.raises(CaseError) as caught:
        case_from_dict(_marked(edit))
    assert says in str(caught.value) and where in str(caught.value)


def test_marks_in_a_case_without_quiescence_are_an_error() -> None:
    data = json.loads(INTRO.read_text())
    data["algorithms"] = ["alpha_beta"]
    del data["quiescence_limit"]
    with pytest.raises(CaseError, match="has a quiet/noisy mark, which only the quiescence"):
        case_from_dict(data)


# --- the TA tools: grader new and grader generate -------------------------------------------------


def test_new_and_generate_write_trees_where_quiescence_changes_the_answer() -> None:
    from grader.commands.generate import generate_cases
    from grader.commands.new import skeleton

    made = [skeleton("quiescence", 2, 3), *generate_cases("quiescence", count=2)]
    for data in made:
        case = case_from_dict(data)
        assert case.depth_limit == 2
        game = case.build_game()
        assert (run(reference_functions(), case).value, decision(game, "quiescence")) != (
            run(reference_functions(), case, "alpha_beta").value, decision(game, "alpha_beta"))


def test_the_failure_drawing_shows_the_noisy_moves_past_the_depth_limit(tmp_path) -> None:
    from grader.feedback.drawing import draw_tree

    case = load_case(INTRO)
    stand_pat_less = next(m for m in mistakes_for("quiescence", "inclusive")
                          if m.name == "no_stand_pat")
    expected = run(reference_functions(), case)
    got = run(stand_pat_less.functions("inclusive"), case)
    text = "\n".join(draw_tree(case, expected, got))
    assert "B1 MAX, eval -10 (past the depth limit)" in text
    assert "└── D1 = 9" in text and "◀ step 6: yours" in text
    assert "B2" not in text and "C1" not in text  # quiet moves past the limit: never drawn


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.data())
def test_random_trees_for_quiescence_are_valid_cases_with_a_depth_limit(data) -> None:
    from grader.scoring.random_trees import case_dicts

    case = case_from_dict(data.draw(case_dicts("quiescence")))
    assert case.depth_limit in (1, 2)
    run(reference_functions(), case)  # every stand pat past the limit has its eval
