"""The built-in games: rules on known positions, tree sizes, ids, value bounds and misuse errors.

The games are built the way a case builds them, through :func:`grader.games.builtin_game`.
"""

from __future__ import annotations

import math
import re
from functools import reduce
from operator import xor

import pytest

from grader.errors import AboveCutoffError, IllegalActionError, NotChanceNodeError, NotTerminalError
from grader.games import CHANCE, MAX, MIN, builtin_game
from grader.games.connect4 import ConnectFour
from grader.games.dice import DiceRace
from grader.games.three_player import ThreePlayerTakeaway


def walk(game, state, depth=0):
    """Every (state, depth) of the full tree below ``state``, root first, via actions/result."""
    yield state, depth
    if not game.is_terminal(state):
        for action in game.actions(state):
            yield from walk(game, game.result(state, action), depth + 1)


def count_nodes(game, state):
    if game.is_terminal(state):
        return 0
    return sum(1 + count_nodes(game, game.result(state, a)) for a in game.actions(state))


def ids_after(game, *actions):
    state = game.initial_state()
    for action in actions:
        state = game.result(state, action)
    return game.state_id(state), state


# --- tic-tac-toe -------------------------------------------------------------------------------


def test_tictactoe_empty_board_moves_and_ids():
    game = builtin_game("tictactoe")
    root = game.initial_state()
    assert game.players == 2 and game.to_move(root) == MAX
    assert list(game.actions(root)) == list(range(9))
    assert game.state_id(root) == "...|...|..."
    child_id, child = ids_after(game, 4)
    assert child_id == "...|.x.|..." and game.to_move(child) == MIN and game.depth_of(child) == 1


def test_tictactoe_mover_and_actions_come_from_the_position():
    game = builtin_game("tictactoe", "x.o|...|..x")
    root = game.initial_state()
    assert game.to_move(root) == MIN
    assert list(game.actions(root)) == [1, 3, 4, 5, 6, 7]
    assert ids_after(game, 4)[0] == "x.o|.o.|..x"


@pytest.mark.parametrize(
    ("board", "value"),
    [("xxx|oo.|...", 1), ("xxo|xo.|o..", -1), ("xox|xox|oxo", 0), ("xxo|oox|xox", 0)],
)
def test_tictactoe_terminal_positions(board, value):
    game = builtin_game("tictactoe", board)
    root = game.initial_state()
    assert game.is_terminal(root) and game.utility(root) == value
    assert list(game.actions(root)) == []


def test_tictactoe_winning_move_ends_the_game():
    game = builtin_game("tictactoe", "xx.|oo.|...")
    _, state = ids_after(game, 2)
    assert game.is_terminal(state) and game.utility(state) == 1 and list(game.actions(state)) == []
    _, state = ids_after(game, 8)
    assert not game.is_terminal(state)


def test_tictactoe_full_tree_has_549945_nodes():
    game = builtin_game("tictactoe")  # its time: python bench/games.py (no wall clock here)
    assert count_nodes(game, game.initial_state()) == 549_945


@pytest.mark.parametrize(
    ("board", "message"),
    [
        ("ooo|...|...", "x has 0, o has 3"),
        ("xxx|...|...", "x has 3, o has 0"),
        ("xxx|ooo|x..", "both x and o have a line"),
        ("xxx|oo.|o..", "x has a line, but o moved last"),
        ("ooo|xx.|x.x", "o has a line, but x moved last"),
        ("x.o|...", "expected 3 rows of 3"),
        ("x.o|..|...", "row 2 ('..') has 2 cells but row 1 ('x.o') has 3"),
        ("xqo|...|...", "unexpected ['q']"),
        (42, "rows of equal length"),
    ],
)
def test_tictactoe_rejects_impossible_positions(board, message):
    with pytest.raises(ValueError, match="tic-tac-toe position") as error:
        builtin_game("tictactoe", board)
    assert message in str(error.value) and repr(board) in str(error.value)


def test_tictactoe_evaluation_counts_open_lines():
    def value(board):
        game = builtin_game("tictactoe", board, depth_limit=0)
        return game.evaluate(game.initial_state())

    assert value(None) == 0
    assert value("x..|...|...") == pytest.approx(0.3)  # 8 lines open for x, 5 for o
    assert value("...|.x.|...") == pytest.approx(0.4)
    assert value("x..|.o.|...") == pytest.approx(-0.1)  # 4 lines open for x, 5 for o
    game = builtin_game("tictactoe", "x..|...|...", depth_limit=2)
    for state, depth in walk(game, game.initial_state()):
        if not game.is_terminal(state) and depth == 2:
            assert -1 < game.evaluate(state) < 1


# --- Connect Four ------------------------------------------------------------------------------


def test_connect4_gravity_and_actions():
    game = builtin_game("connect4")
    assert (game.rows, game.columns, game.connect) == (4, 4, 3)
    assert list(game.actions(game.initial_state())) == [0, 1, 2, 3]
    assert ids_after(game, 1)[0] == "....|....|....|.x.."
    assert ids_after(game, 1, 1, 2)[0] == "....|....|.o..|.xx."
    full_column = builtin_game("connect4", "x...|o...|x...|o...")
    assert list(full_column.actions(full_column.initial_state())) == [1, 2, 3]


def test_connect4_lines_and_draws():
    game = builtin_game("connect4", "....|....|.x..|.xoo")
    assert game.to_move(game.initial_state()) == MAX
    _, state = ids_after(game, 1)  # x completes a column of three
    assert game.is_terminal(state) and game.utility(state) == 1
    diagonal = builtin_game("connect4", "....|..o.|.ox.|oxx.")  # o completes a diagonal
    assert diagonal.is_terminal(diagonal.initial_state())
    assert diagonal.utility(diagonal.initial_state()) == -1
    draw = builtin_game("connect4", "xox|xox|oxo")
    assert (draw.rows, draw.columns) == (3, 3)
    assert draw.is_terminal(draw.initial_state()) and draw.utility(draw.initial_state()) == 0


def test_connect4_evaluation_counts_windows():
    game = builtin_game("connect4", "....|....|....|.x..", depth_limit=0)
    assert game.evaluate(game.initial_state()) == pytest.approx(0.04)  # 4 windows / 100
    # x: 3 windows without o (row, column, anti-diagonal); o: 2 without x (column, anti-diagonal)
    game = builtin_game("connect4", "....|....|....|ox..", depth_limit=0)
    assert game.evaluate(game.initial_state()) == pytest.approx(0.01)


@pytest.mark.parametrize(
    ("state", "params", "message"),
    [
        ("x...|....|....|....", {}, "empty cell below"),
        ("....|....|....|oo..", {}, "x has 0, o has 2"),
        ("....|....|....", {"rows": 4}, "has 3 rows of 4"),
        (None, {"connect": 5}, "connect must be between 2 and"),
        (None, {"rows": 0}, "rows must be a positive integer"),
    ],
)
def test_connect4_rejects_bad_positions_and_params(state, params, message):
    with pytest.raises(ValueError, match="connect-four") as error:
        builtin_game("connect4", state, params)
    assert message in str(error.value)


# --- Nim ---------------------------------------------------------------------------------------


def test_nim_actions_results_and_ids():
    game = builtin_game("nim", [1, 2])
    root = game.initial_state()
    assert game.state_id(root) == "1-2|max" and game.to_move(root) == MAX
    assert list(game.actions(root)) == ["p0-1", "p1-1", "p1-2"]
    child_id, child = ids_after(game, "p1-2")
    assert child_id == "1-0|min" and game.to_move(child) == MIN
    assert list(game.actions(child)) == ["p0-1"]


@pytest.mark.parametrize(
    ("state", "misere", "value"),
    [
        ({"piles": [0, 0], "to_move": "max"}, False, -1),  # min took the last object
        ({"piles": [0, 0], "to_move": "min"}, False, 1),
        ({"piles": [0, 0], "to_move": "max"}, True, 1),
        ("0-0|min", True, -1),
    ],
)
def test_nim_terminal_utilities(state, misere, value):
    game = builtin_game("nim", state, {"misere": misere})
    assert game.is_terminal(game.initial_state()) and game.utility(game.initial_state()) == value


def _minimax(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [_minimax(game, game.result(state, a)) for a in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


@pytest.mark.parametrize("piles", [[1], [2], [1, 1], [1, 2], [1, 2, 3], [2, 2, 1], [3, 1, 1]])
def test_nim_values_match_the_theory(piles):
    normal = builtin_game("nim", piles)
    assert _minimax(normal, normal.initial_state()) == (1 if reduce(xor, piles) else -1)
    misere = builtin_game("nim", piles, {"misere": True})
    mover_wins = sum(piles) % 2 == 0 if max(piles) <= 1 else reduce(xor, piles) != 0
    assert _minimax(misere, misere.initial_state()) == (1 if mover_wins else -1)
    for game in (normal, misere):  # the nim-sum evaluation agrees in sign with the value
        cut = builtin_game("nim", piles, {"misere": game.misere}, depth_limit=0)
        assert cut.evaluate(cut.initial_state()) == 0.5 * _minimax(game, game.initial_state())


@pytest.mark.parametrize(
    "state",
    [[], [1, -1], [True], "1-x|max", "1-2|top", "1-2|", {"piles": [1], "to_move": "up"}, {"p": 1}],
)
def test_nim_rejects_bad_states(state):
    with pytest.raises(ValueError, match="nim position"):
        builtin_game("nim", state)


# --- the dice race (chance nodes) --------------------------------------------------------------


def test_dice_turn_structure():
    game = builtin_game("dice")
    root = game.initial_state()
    assert game.state_id(root) == "0-0|max|t0" and game.to_move(root) == MAX
    assert list(game.actions(root)) == ["roll", "step"]
    rolled_id, rolled = ids_after(game, "roll")
    assert rolled_id == "0-0|max rolls|t0" and game.to_move(rolled) == CHANCE
    assert ids_after(game, "step")[0] == "1-0|min|t1"
    landed_id, landed = ids_after(game, "roll", "+2")
    assert landed_id == "2-0|min|t1" and game.to_move(landed) == MIN and game.depth_of(landed) == 2


def test_dice_probabilities_sum_to_one_and_are_unequal():
    game = builtin_game("dice")
    for state, _ in walk(game, game.initial_state()):
        if game.to_move(state) == CHANCE and not game.is_terminal(state):
            outcomes = game.chance_outcomes(state)
            assert [action for action, _ in outcomes] == list(game.actions(state))
            probabilities = [p for _, p in outcomes]
            assert math.fsum(probabilities) == pytest.approx(1, abs=1e-12)
            assert len(set(probabilities)) == len(probabilities) == 3
    with pytest.raises(NotChanceNodeError, match=re.escape("'0-0|max|t0', where player 0")):
        game.chance_outcomes(game.initial_state())


@pytest.mark.parametrize(
    ("start", "actions", "end", "value"),
    [
        ("3-0|max|t2", ["roll", "+2"], "4-0|min|t3", 1),  # counters stop at the target
        ("1-3|min|t3", ["step"], "1-4|max|t4", -1),
        ("2-1|min|t5", ["step"], "2-2|max|t6", 0),  # the turn cap
        ("3-1|min|t5", ["roll", "+0"], "3-1|max|t6", 0.5),  # (3 - 1) / target 4
    ],
)
def test_dice_terminals_and_utilities(start, actions, end, value):
    game = builtin_game("dice", start)
    state_id, state = ids_after(game, *actions)
    assert state_id == end and game.is_terminal(state) and game.utility(state) == value
    assert list(game.actions(state)) == []


def test_dice_tree_is_small_and_values_bounded():
    game = builtin_game("dice", value_bounds=(-1, 1))
    low, high = DiceRace.VALUE_RANGE
    states = list(walk(game, game.initial_state()))  # its time: python bench/games.py
    assert len(states) - 1 == 4680
    for state, _ in states:
        if game.is_terminal(state):
            assert low <= game.utility(state) <= high
        else:
            assert low < game._heuristic(state) < high


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("5-0|max|t0", "a counter is above the target"),
        ("4-4|max|t2", "both counters reached the target"),
        ("0-0|max|t7", "more turns were played than the cap"),
        ("4-0|min rolls|t1", "the die is rolling after the game ended"),
        ("0-0|chance|t0", "expected '<max counter>"),
        (3, "expected '<max counter>"),
    ],
)
def test_dice_rejects_impossible_states(state, message):
    with pytest.raises(ValueError, match="dice position") as error:
        builtin_game("dice", state)
    assert message in str(error.value)


def test_dice_rejects_bad_params_and_narrow_value_bounds():
    with pytest.raises(ValueError, match="target must be a positive integer"):
        builtin_game("dice", params={"target": 0})
    with pytest.raises(ValueError, match="value_bounds"):
        builtin_game("dice", value_bounds=(-0.5, 0.5))


# --- three-player takeaway (vector payoffs) ----------------------------------------------------


def test_three_player_moves_and_ids():
    game = builtin_game("three_player")
    root = game.initial_state()
    assert game.players == 3 and game.state_id(root) == "6|p0" and game.to_move(root) == 0
    assert list(game.actions(root)) == [1, 2, 3]
    child_id, child = ids_after(game, 3)
    assert child_id == "3|p1" and game.to_move(child) == 1
    near_end = builtin_game("three_player", "2|p2")
    assert list(near_end.actions(near_end.initial_state())) == [1, 2]


@pytest.mark.parametrize(
    ("state", "value"), [("0|p1", (2, 1, 0)), ("0|p0", (1, 0, 2)), ("0|p2", (0, 2, 1))]
)
def test_three_player_payoffs(state, value):
    game = builtin_game("three_player", state)
    assert game.is_terminal(game.initial_state()) and game.utility(game.initial_state()) == value


def test_three_player_evaluation():
    def value(state, max_take=3):
        game = builtin_game("three_player", state, {"max_take": max_take}, depth_limit=0)
        return game.evaluate(game.initial_state())

    assert value("2|p1") == (0, 2, 1)  # player 1 can take both
    assert value("5|p0") == (0.5, 1.5, 1)  # one at a time, player 1 would take the last
    assert value("5|p0", max_take=5) == (2, 1, 0)


@pytest.mark.parametrize("state", [6, "10|p2"])
def test_three_player_vectors_within_max_sum(state):
    for depth_limit in (None, 2):
        game = builtin_game("three_player", state, {"max_take": 2}, depth_limit=depth_limit)
        for node, depth in walk(game, game.initial_state()):
            if game.is_cutoff(node, depth):
                vector = game.evaluate(node)
                assert len(vector) == 3 and min(vector) >= 0
                assert sum(vector) <= ThreePlayerTakeaway.MAX_SUM
    default = builtin_game("three_player")
    assert count_nodes(default, default.initial_state()) == 51


def test_three_player_rejects_bad_states_and_max_sum():
    for state in (-1, "6|p3", "six", True):
        with pytest.raises(ValueError, match="three_player position"):
            builtin_game("three_player", state)
    with pytest.raises(ValueError, match="shallow pruning would be unsound"):
        builtin_game("three_player", max_sum=2)
    assert builtin_game("three_player", max_sum=3).max_sum == 3


# --- every game: ids, states, options, misuse --------------------------------------------------

GAMES = [
    ("tictactoe", "x.o|...|..x", {}),
    ("nim", [1, 2, 2], {}),
    ("nim", {"piles": [2, 1], "to_move": "min"}, {"misere": True}),
    ("connect4", "....|....|.o..|.xx.", {}),
    ("connect4", None, {"rows": 3, "columns": 3}),
    ("dice", "2-1|max|t2", {}),
    ("three_player", 6, {"max_take": 2}),
]


@pytest.mark.parametrize(("name", "state", "params"), GAMES)
def test_state_ids_round_trip(name, state, params):
    game = builtin_game(name, state, params)
    seen = {}
    for node, depth in walk(game, game.initial_state()):
        assert game.depth_of(node) == depth and hash(node) is not None
        state_id = game.state_id(node)
        assert "<" not in state_id and state_id == game.state_id(node)  # readable and stable
        seen.setdefault(state_id, node)
        if len(seen) > 300:
            break
    for state_id, node in seen.items():
        rebuilt = builtin_game(name, state_id, params)
        again = rebuilt.initial_state()
        assert rebuilt.state_id(again) == state_id
        assert rebuilt.to_move(again) == game.to_move(node)
        assert list(rebuilt.actions(again)) == list(game.actions(node))
        assert rebuilt.is_terminal(again) == game.is_terminal(node)


@pytest.mark.parametrize(("name", "state", "params"), GAMES)
def test_misuse_errors_name_the_state(name, state, params):
    game = builtin_game(name, state, params)
    root = game.initial_state()
    root_id = game.state_id(root)
    with pytest.raises(NotTerminalError, match="not terminal") as error:
        game.utility(root)
    assert repr(root_id) in str(error.value)
    with pytest.raises(AboveCutoffError, match="no depth limit") as error:
        game.evaluate(root)
    assert repr(root_id) in str(error.value)
    with pytest.raises(IllegalActionError, match="legal actions are") as error:
        game.result(root, "no such action")
    assert repr(root_id) in str(error.value)
    assert repr(list(game.actions(root))) in str(error.value)
    if game.to_move(root) != CHANCE:
        with pytest.raises(NotChanceNodeError, match=re.escape(repr(root_id))):
            game.chance_outcomes(root)


@pytest.mark.parametrize(("name", "state", "params"), GAMES)
def test_depth_limit_cuts_at_the_limit(name, state, params):
    game = builtin_game(name, state, params, depth_limit=1)
    root = game.initial_state()
    assert not game.is_cutoff(root, 0)
    with pytest.raises(AboveCutoffError, match="depth limit 1"):
        game.evaluate(root)
    for action in game.actions(root):
        child = game.result(root, action)
        assert game.is_cutoff(child, 1)
        game.evaluate(child)  # a value, no error


@pytest.mark.parametrize(
    ("name", "state", "bad"),
    [
        ("tictactoe", "x.o|...|..x", 0),
        ("tictactoe", "x.o|...|..x", 9),
        ("tictactoe", "xxx|oo.|...", 5),  # the game is over
        ("connect4", "x...|o...|x...|o...", 0),  # the column is full
        ("connect4", None, 4),
        ("nim", [1, 2], "p1-3"),
        ("dice", "0-0|max rolls|t0", "roll"),
        ("three_player", "2|p0", 3),
    ],
)
def test_illegal_actions_are_refused(name, state, bad):
    game = builtin_game(name, state)
    with pytest.raises(IllegalActionError, match=f"got action {bad!r}"):
        game.result(game.initial_state(), bad)


def test_states_are_immutable_and_equal_by_position():
    game = builtin_game("tictactoe")
    _, one = ids_after(game, 0, 4)
    _, two = ids_after(game, 0, 4)
    assert one == two and hash(one) == hash(two)
    with pytest.raises(AttributeError):
        one.cells = "x" * 9


def test_options_are_stored():
    game = builtin_game("connect4", depth_limit=3, value_bounds=(-1, 1), max_sum=None)
    assert (game.depth_limit, game.value_bounds, game.max_sum) == (3, (-1, 1), None)
    assert isinstance(game, ConnectFour)
    with pytest.raises(TypeError, match="keyword argument"):
        builtin_game("tictactoe", params={"size": 4})


def test_actions_are_the_numbers_the_evaluate_docstring_says():
    """student/search.py's ``evaluate``: an action is an int, Connect Four's the column (0 the
    leftmost), the 5,5,4-game's the square ``row * game.columns + column``."""
    mnk = builtin_game("mnk", params={"rows": 5, "columns": 5, "connect": 4})
    start = mnk.initial_state()
    assert list(mnk.actions(start)) == list(range(25))
    assert mnk.board(mnk.result(start, 1 * 5 + 3))[1] == "...x."
    connect4 = builtin_game("connect4", params={"rows": 6, "columns": 7})
    start = connect4.initial_state()
    assert list(connect4.actions(start)) == list(range(7))
    assert connect4.board(connect4.result(start, 2))[-1] == "..x...."
