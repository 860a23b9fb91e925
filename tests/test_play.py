"""The evaluate assignment, graded by play: the game's board view, the staff search and
opponents, the worker's evaluate request (and forged replies to it), the lockstep matches and
their cache, the score by thresholds, the hints, the handout's check and determinism.

The default rubric's matches (six cases, 64 matches) are measured by bench/play.py, not here:
these tests play two to four matches a case.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
import suite_modules
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_sandbox import machine_calibration

from grader.cases import case_from_dict, load_case
from grader.cases.rubric import RubricError, load_rubric, rubric_from_dict
from grader.errors import CaseError
from grader.feedback import play as play_feedback
from grader.feedback import records as match_records
from grader.feedback.markdown import plain_text
from grader.games import builtin_game
from grader.games.base import MAX
from grader.games.tictactoe import grid_lines
from grader.report.html.board import replay_match
from grader.run.evaluation import (
    Counter,
    EvaluationError,
    evaluate_positions,
    evaluation_game,
)
from grader.run.tracing import BudgetExceeded
from grader.sandbox.client import Worker
from grader.sandbox.limits import Limits
from grader.sandbox.protocol import WorkerReply
from grader.scoring import grade as grading
from grader.scoring import play as scoring_play
from grader.scoring.grade import grade
from reference import play, play_search

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests" / "submissions"
FAST = Limits(time=0.5, kill_margin=0.5, import_time=0.5)
C4 = {"rows": 6, "columns": 7, "connect": 4}
MID = ".......|.......|.......|..o....|..xo...|.xxo..."


variants = suite_modules.load("submissions/variants.py")
attacks = suite_modules.load("hostile/attacks.py")


def write(tmp_path: Path, body: str, name: str = "search.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    path.chmod(0o644)
    return path


def case_of(game: str, opponent: str, seed: int = 1, **play_fields) -> dict:
    params = C4 if game == "connect4" else {"rows": 5, "columns": 5, "connect": 4}
    return {"$schema": "../../grader/schema/case.schema.json", "name": f"t-{game}-{opponent}",
            "description": "test", "algorithms": ["evaluate"], "game": game, "params": params,
            "play": {"opponent": opponent, "seed": seed, **play_fields}}


def case_file(tmp_path: Path, data: dict) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir(exist_ok=True)
    path = folder / f"{data['name']}.json"
    path.write_text(json.dumps(data))
    return path


SMALL = rubric_from_dict({"play": {"matches": 4, "thresholds": [1, 2, 4]}})


# --- the game's side ------------------------------------------------------------------------


def test_a_position_is_rebuilt_from_its_id_and_impossible_ones_are_refused():
    game = builtin_game("connect4", None, C4)
    state = game.state_from_id(MID)
    assert game.state_id(state) == MID and game.board(state)[-1] == ".xxo..."
    assert game.to_move(state) == 0 and not game.is_terminal(state)
    with pytest.raises(ValueError, match="empty cell below it"):
        game.state_from_id(".......|.......|.......|..o....|..x....|.x.o...")
    with pytest.raises(ValueError, match="expected 6 rows of 7"):
        game.state_from_id("...|...|...")
    mnk = builtin_game("mnk", None, {})
    assert (mnk.rows, mnk.columns, mnk.connect) == (5, 5, 4) and len(mnk.actions(mnk.initial_state())) == 25
    won = mnk.state_from_id("xxxx.|oooo.|.....|.....|.....".replace("oooo.", "ooo..", 1))
    assert mnk.is_terminal(won) and mnk.utility(won) == 1


def test_evaluate_gets_the_rules_and_board_but_neither_the_heuristic_nor_the_depth():
    game = builtin_game("connect4", None, C4)
    view = evaluation_game(game, 5, Counter())
    assert not hasattr(view, "evaluate") and not hasattr(view, "is_cutoff")
    assert view.board(game.state_from_id(MID)) == tuple(MID.split("|"))
    with pytest.raises(AttributeError, match="read-only"):
        view.result = None


def test_each_evaluation_has_a_budget_of_game_calls_and_random_is_seeded_by_position():
    game = builtin_game("connect4", None, C4)

    def greedy_caller(g, s):
        for action in g.actions(s):
            g.result(s, action)
        return random.random()

    ids = [MID, "......." * 0 + ".......|.......|.......|.......|.......|...x..."]
    first = evaluate_positions(greedy_caller, game, ids, 7, 0, random.seed)
    second = evaluate_positions(greedy_caller, game, ids[::-1], 7, 0, random.seed)
    assert first == second[::-1]  # the same position, the same value, in any order
    counter = Counter()
    with pytest.raises(BudgetExceeded):
        evaluate_positions(greedy_caller, game, ids, 6, 0, random.seed, counter)
    assert counter.stopped_at == 0


@pytest.mark.parametrize("value", [True, float("nan"), float("inf"), "1", None, 2 ** 2000])
def test_an_evaluation_that_is_not_a_finite_number_is_refused_naming_the_position(value):
    game = builtin_game("connect4", None, C4)
    with pytest.raises(EvaluationError, match="at position '.......") as error:
        evaluate_positions(lambda g, s: value, game, [MID], 10, 0, random.seed)
    assert error.value.index == 0


# --- the staff's search and opponents --------------------------------------------------------


def test_a_win_the_search_sees_outranks_any_evaluation_and_ties_go_to_the_first_action():
    game = builtin_game("connect4", None, C4)
    state = game.state_from_id(".......|.......|.......|.......|o.o....|xxx....")  # x wins at 3
    assert play.search_move(game, state, 2, lambda g, s: 1e300) == 3
    block = game.state_from_id(".......|.......|.......|.......|x......|ooo.xx.")  # o threatens 3
    assert play.search_move(game, block, 2, lambda g, s: 0.0) == 3
    assert play.search_move(game, game.initial_state(), 2, lambda g, s: 0.0) == 0


def plain_minimax(game, state, depth, evaluation) -> tuple[object, dict]:
    """Depth-limited minimax evaluating every cutoff position: (the move, the root values)."""

    def value(node, level):
        if game.is_terminal(node):
            payoff = game.utility(node)
            return (1, -level) if payoff > 0 else (-1, level) if payoff < 0 else (0, 0.0)
        if level == depth:
            return (0, float(evaluation(game, node)))
        below = [value(game.result(node, a), level + 1) for a in game.actions(node)]
        return max(below) if game.to_move(node) == MAX else min(below)

    values = {a: value(game.result(state, a), 1) for a in game.actions(state)}
    best = (max if game.to_move(state) == MAX else min)(values.values())
    return next(a for a, v in values.items() if v == best), values


def searched(game, state, depth, evaluation) -> tuple[play.Decision, list[list[str]]]:
    """The staff search's decision and the position ids of each round it asked for."""
    rounds: list[list[str]] = []
    search = play.search(game, state, depth)
    try:
        positions = next(search)
        while True:
            rounds.append([game.state_id(p) for p in positions])
            positions = search.send([float(evaluation(game, p)) for p in positions])
    except StopIteration as stop:
        return stop.value, rounds


@st.composite
def midgames(draw, depth: int):
    """A non-terminal Connect Four or 5,5,4 position with the chosen player to move (small
    enough at depth 3: at most 12 empty squares), and an evaluation by position drawn from at
    most three values, so that many moves tie."""
    name = draw(st.sampled_from(["connect4", "mnk"]))
    game = builtin_game(name, None, C4 if name == "connect4" else {})
    fewest = 13 if name == "mnk" and depth == 3 else 0
    plies = draw(st.integers(fewest, fewest + 10))
    plies += plies % 2 != draw(st.sampled_from([0, 1]))  # 0: x to move, 1: o to move
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    state = game.initial_state()
    for _ in range(plies):
        assume(not game.is_terminal(state))
        state = game.result(state, rng.choice(list(game.actions(state))))
    assume(not game.is_terminal(state))
    palette = draw(st.lists(st.sampled_from([-3.0, -1.0, 0.0, 0.5, 2.0]), min_size=1,
                            max_size=3))
    salt = draw(st.integers(0, 999))

    def evaluation(g, s):
        return palette[random.Random(f"{salt}:{g.state_id(s)}").randrange(len(palette))]

    return game, state, evaluation


@pytest.mark.parametrize("depth", [1, 2, 3])
@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_staff_search_makes_minimax_s_move_asking_each_position_once(depth, data):
    game, state, evaluation = data.draw(midgames(depth))
    move, values = plain_minimax(game, state, depth, evaluation)
    decision, rounds = searched(game, state, depth, evaluation)
    assert decision.action == move == play.search_move(game, state, depth, evaluation)
    assert set(decision.values) | set(decision.pruned) == set(values)
    assert all(decision.values[a] == values[a] for a in decision.values)  # exact, and
    x_to_move = game.to_move(state) == MAX
    for action, bound in decision.pruned.items():  # a pruned move's bound holds
        assert values[action] <= bound if x_to_move else values[action] >= bound
    asked = [i for positions in rounds for i in positions]
    most = 1 if depth == 1 else 2 + play_search.PROBES  # the favourite, the probes, the rest
    assert len(asked) == len(set(asked)) and all(rounds) and len(rounds) <= most
    assert set(asked) <= {game.state_id(p) for p in play.cutoff_positions(game, state, depth)}
    if depth == 1:
        assert not decision.pruned
    windows = [[game.board(state)[i // game.columns][i % game.columns] for i in window]
               for window in grid_lines(game.rows, game.columns, game.connect)]  # the baseline orders moves: its definition
    assert play.baseline_evaluation(game, state) == sum(
        ("o" not in w) * w.count("x") - ("x" not in w) * w.count("o") for w in windows)


@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_search_order_bench_counts_what_each_search_asks(data):
    """bench/search_order.py, which judges an order of the staff search by positions: it
    counts what a search asks and checks its move, so the shipped search counts no more than
    the whole cutoff (asked in one round) and a search that moves otherwise ends the run."""
    from bench import search_order
    game, state, evaluation = data.draw(midgames(2))
    move, _ = plain_minimax(game, state, 2, evaluation)
    decisions = [(game, state, 2, move)]
    _, rounds = searched(game, state, 2, evaluation)
    shipped = search_order.counted(decisions, evaluation, play_search.search)
    assert shipped == (sum(len(positions) for positions in rounds), len(rounds))
    whole = search_order.counted(decisions, evaluation, search_order.whole_cutoff)
    assert whole == (len(play.cutoff_positions(game, state, 2)), 1 if whole[0] else 0)
    assert shipped[0] <= whole[0] and search_order.least(decisions) <= whole[0]
    others = [a for a in game.actions(state) if a != move]
    assume(others)
    with pytest.raises(SystemExit, match="an order must never change a move"):
        search_order.counted([(game, state, 2, others[0])], evaluation, play_search.search)


def test_the_staff_search_evaluates_a_fraction_of_a_midgame_s_cutoff():
    midgames = [("connect4", C4, MID, 3), ("mnk", {}, ".....|.x...|..o..|...x.|..o..", 7)]
    for name, params, position, move in midgames:
        game = builtin_game(name, None, params)
        state = game.state_from_id(position)
        decision, rounds = searched(game, state, 2, play.reference_evaluation)
        asked = sum(len(positions) for positions in rounds)
        full = len(play.cutoff_positions(game, state, 2))
        assert decision.action == move and decision.pruned
        assert 1 <= len(rounds) <= 2 + play_search.PROBES
        assert asked * 3 < full, (position, asked, full)  # 13 of 49, 59 of 420 (99 before the
        # favourite's own move was the first probe, 116 in 3 rounds)


def test_the_greedy_opponent_takes_a_win_and_blocks_a_single_threat():
    game = builtin_game("connect4", None, C4)
    rng = random.Random(0)
    win = game.state_from_id(".......|.......|.......|.......|o.o....|xxx....")
    assert play.greedy_move(game, win, rng) == 3
    block = game.state_from_id(".......|.......|.......|.......|x......|ooo.xx.")
    assert all(play.greedy_move(game, block, random.Random(seed)) == 3 for seed in range(5))


def seeded_positions(game, count: int, seed: int, most_empty: int | None = None) -> list:
    """``count`` non-terminal positions of ``game`` reached by seeded random play (with at most
    ``most_empty`` empty squares, when given)."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(game.rows * game.columns)):
            if game.is_terminal(state):
                break
            state = game.result(state, rng.choice(list(game.actions(state))))
        empty = "".join(game.board(state)).count(".")
        if not game.is_terminal(state) and (most_empty is None or empty <= most_empty):
            found.append(state)
    return found


BOARDS = [("connect4", C4), ("mnk", {}), ("tictactoe", {}),
          ("connect4", {"rows": 4, "columns": 5, "connect": 3}),
          ("mnk", {"rows": 3, "columns": 4, "connect": 2})]


@pytest.mark.parametrize("name, params", BOARDS)
def test_the_baseline_s_gain_is_the_change_of_its_value_and_flags_a_line(name, params):
    from reference.evaluations import COMPLETES, baseline_gains

    game = builtin_game(name, None, params)
    readers, gains = baseline_gains(game.rows, game.columns, game.connect)
    lines = 0
    for state in seeded_positions(game, 40, 7):
        cells = "".join(game.board(state))
        mark = "x" if game.to_move(state) == MAX else "o"
        for action in game.actions(state):
            child = game.result(state, action)
            cell = next(i for i, c in enumerate("".join(game.board(child))) if c != cells[i])
            gain = sum(map(gains[mark].__getitem__,
                           zip(*[iter(readers[cell](cells))] * (game.connect - 1))))
            won = game.is_terminal(child) and game.utility(child) != 0
            lines += won
            flag = (COMPLETES if mark == "x" else -COMPLETES) if won else 0
            flags = round((gain - (play.baseline_evaluation(game, child)
                                   - play.baseline_evaluation(game, state))) / COMPLETES)
            assert (gain - flags * COMPLETES == play.baseline_evaluation(game, child)
                    - play.baseline_evaluation(game, state))  # the change of the value
            assert (flags != 0) == won and (not won or flags * flag > 0)  # and a line, flagged
    assert lines  # some positions had a move that wins


@pytest.mark.parametrize("name, params", BOARDS)
def test_the_baseline_s_changes_are_its_children_s_values_minus_the_position_s(name, params):
    from reference.grid_opponents import baseline_changes

    game = builtin_game(name, None, params)
    for state in seeded_positions(game, 40, 5):
        children = {action: game.result(state, action) for action in game.actions(state)}
        assert baseline_changes(game, state) == {
            action: play.baseline_evaluation(game, child) - play.baseline_evaluation(game, state)
            for action, child in children.items() if not game.is_terminal(child)}
    assert baseline_changes(builtin_game("nim", None, {}), None) is None  # not a grid game


@pytest.mark.parametrize("name, params", BOARDS)
def test_the_referee_s_values_from_the_position_s_are_its_evaluations_of_the_cutoff(name, params):
    from reference.grid_opponents import reference_values

    game = builtin_game(name, None, params)
    for depth in (1, 2, 3):
        for state in seeded_positions(game, 15, depth, 14 if depth == 3 else None):
            known = reference_values(game, state, depth)
            cutoff = play.cutoff_positions(game, state, depth)
            assert len(known) == len(cutoff)  # the same positions, none more
            for position in cutoff:  # the same floats (==, and the same sign of a zero)
                value = known["".join(game.board(position))]
                assert repr(value) == repr(play.reference_evaluation(game, position))
    assert reference_values(game, state, 0) is None  # depth 0: the position itself
    assert reference_values(builtin_game("nim", None, {}), None, 2) is None  # not a grid game


@pytest.mark.parametrize("name, params", BOARDS)
def test_the_baseline_opponent_moves_as_the_search_with_the_baseline_evaluation(name, params):
    from reference.grid_opponents import baseline_move

    game = builtin_game(name, None, params)
    for depth in (1, 2, 3):
        most_empty = 14 if depth == 3 else None
        for state in seeded_positions(game, 25, depth, most_empty):
            assert baseline_move(game, state, depth) == play_search.search_move(
                game, state, depth, play.baseline_evaluation), (game.state_id(state), depth)


@pytest.mark.parametrize("name, params", BOARDS)
def test_the_greedy_opponent_on_the_cells_moves_and_draws_as_the_plain_one(name, params):
    from grader.games.players import wins_at_once
    from reference.grid_opponents import greedy_move

    game = builtin_game(name, None, params)
    kinds = set()
    for index, state in enumerate(seeded_positions(game, 60, 11)):
        mine, theirs = random.Random(index), random.Random(index)
        move = greedy_move(game, state, mine)
        assert move == play.greedy_move(game, state, theirs), game.state_id(state)
        assert mine.getstate() == theirs.getstate()  # the same draws: the match goes on alike
        actions = game.actions(state)
        unsafe = [a for a in actions if not game.is_terminal(game.result(state, a)) and any(
            wins_at_once(game, game.result(state, a), r)
            for r in game.actions(game.result(state, a)))]
        kinds.add("win" if any(wins_at_once(game, state, a) for a in actions) else
                  "block" if 0 < len(unsafe) < len(actions) else "any")
    # each rule met (two in a row: every move but a win leaves the opponent one, no block)
    assert kinds == ({"win", "block", "any"} if game.connect > 2 else {"win", "any"}), kinds


def test_the_baseline_opponent_leaves_other_games_to_the_search():
    from grader.games.connect4 import ConnectFour
    from reference.grid_opponents import baseline_move

    class Mirrored(ConnectFour):  # its own rules, unknown to the board search: the columns
        def actions(self, state):  # offered right to left
            return tuple(reversed(super().actions(state)))

    game, plain = Mirrored(rows=6, columns=7, connect=4), builtin_game("connect4", None, C4)
    differ = 0
    for state in seeded_positions(game, 20, 3):
        move = baseline_move(game, state, 2)
        assert move == play_search.search_move(game, state, 2, play.baseline_evaluation)
        differ += move != baseline_move(plain, plain.state_from_id(game.state_id(state)), 2)
    assert differ  # ties went to this game's first action, not Connect Four's
    won = plain.state_from_id(".......|.......|x......|x.....o|x.....o|x.....o")
    assert baseline_move(plain, won, 2) is None  # a terminal position: no move


# --- the worker's evaluate request ---------------------------------------------------------


GOOD = """
import random
def evaluate(game, state):
    board = game.board(state)
    return sum(row.count("x") - row.count("o") for row in board) + random.random() / 1000
"""


def test_the_worker_evaluates_a_batch_in_order_and_the_same_position_alike(tmp_path):
    game = builtin_game("connect4", None, C4)
    ids = [game.state_id(p) for p in play.cutoff_positions(game, game.state_from_id(MID), 2)]
    path = write(tmp_path, GOOD)
    with Worker(path, limits=FAST, calibration=machine_calibration()) as worker:
        reply = worker.evaluate("connect4", C4, ids, calls=10, seed=0)
        again = worker.evaluate("connect4", C4, ids[::-1], calls=10, seed=0)
    assert reply.status == "ok" and len(reply.value) == len(ids) == 49
    assert reply.value == again.value[::-1]
    assert all(isinstance(v, float) for v in reply.value)


@pytest.mark.parametrize("body", [
    GOOD,
    "def evaluate(game, state):\n    while True:\n        for a in game.actions(state):\n"
    "            game.result(state, a)",
], ids=["values", "budget"])
def test_the_portable_worker_evaluates_as_the_sandboxed_one(tmp_path, body):
    """A Windows or macOS student's check (the portable worker) gets the same values, and the
    same failure, as the sandbox."""
    from grader.sandbox.portable import PortableWorker

    game = builtin_game("connect4", None, C4)
    ids = [game.state_id(p) for p in play.cutoff_positions(game, game.state_from_id(MID), 1)]
    source = write(tmp_path, body)
    calibration = machine_calibration()
    with Worker(source, limits=FAST, calibration=calibration) as sandboxed, \
            PortableWorker(source, limits=FAST, calibration=calibration) as portable:
        expected = sandboxed.evaluate("connect4", C4, ids, calls=10, seed=0)
        got = portable.evaluate("connect4", C4, ids, calls=10, seed=0)
    assert got.status == expected.status and got.value == expected.value
    assert got.message == expected.message


@pytest.mark.parametrize("body, status, message", [
    ("def evaluate(game, state):\n    raise KeyError('oops')", "error",
     r"KeyError: 'oops' \(at position '"),
    ("def evaluate(game, state):\n    return float('nan')", "error", r"returned nan at position"),
    ("def evaluate(game, state):\n    while True:\n        for a in game.actions(state):\n"
     "            game.result(state, a)", "budget", r"more than 10 `result`/`utility` calls"),
    ("def evaluate(game, state):\n    while True:\n        pass", "timeout", r"evaluating position"),
    ("def max_value(game, state):\n    return 0", "missing_function", r"no function 'evaluate'"),
])
def test_a_failing_evaluation_says_how_and_where(tmp_path, body, status, message):
    with Worker(write(tmp_path, body), limits=FAST, calibration=machine_calibration()) as worker:
        reply = worker.evaluate("connect4", C4, [MID], calls=10, seed=0)
    assert reply.status == status
    assert pytest.importorskip("re").search(message, reply.message), reply.message


@pytest.mark.parametrize("name", list(attacks.EVALUATE_FORGERIES))
def test_a_forged_evaluate_reply_is_a_crash_never_values(tmp_path, name):
    body = attacks.forged_evaluate_source(name)
    with Worker(write(tmp_path, body), limits=FAST, calibration=machine_calibration()) as worker:
        reply = worker.evaluate("connect4", C4, [MID, MID, MID], calls=10, seed=0)
        assert reply.status == "crashed" and reply.value is None, (reply.status, reply.value)
        assert "malformed" in reply.message or "grader reads" in reply.message, reply.message
    # (A forged reply of the right shape gains nothing: evaluate could return those numbers.)


# --- a test graded by play -------------------------------------------------------------------


def in_process_score(name: str, data: dict, rubric) -> tuple[float, list[str]]:
    """The score of submission ``name`` on a play case, played in this process (the second
    path: no worker, no batches, no cache)."""
    namespace: dict = {}
    exec(compile(variants.source(name), name, "exec"), namespace)  # noqa: S102
    case = case_from_dict(data)
    game = case.build_game()

    def evaluate(ids):
        values = evaluate_positions(namespace["evaluate"], game, ids, rubric.play.calls,
                                    scoring_play.EVALUATION_SEED, random.seed)
        return dict(zip(ids, values))

    records = scoring_play.play_case(case, rubric, evaluate)
    score = scoring_play.play_score(records, rubric, case.play.opponent,
                                    case.play.matches or rubric.play.matches)
    return score.points, [r.outcome for r in records]


SUBMITTED = ["correct", *variants.PLAY_VARIANTS]
PLAY_CASES = [case_of("connect4", "greedy", 2), case_of("mnk", "baseline", 6, matches=2),
              case_of("connect4", "random", 5, matches=2)]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("play")
    paths = [case_file(folder, data) for data in PLAY_CASES]
    return {name: grade(variants.materialize(name, folder / name), paths, rubric=SMALL)
            for name in SUBMITTED}


@pytest.mark.parametrize("name", SUBMITTED)
def test_each_submission_scores_what_playing_in_process_gives(graded, name):
    tests = {test.case_name: test for test in graded[name].tests}
    for data in PLAY_CASES:
        earned, outcomes = in_process_score(name, data, SMALL)
        test = tests[data["name"]]
        assert test.score == earned, (name, data["name"], test.summary)
        assert [m["outcome"] for m in test.extra_data["play"]] == outcomes
    if name != "correct":
        assert graded[name].score < graded[name].max_score


def test_the_variants_lose_points_and_get_their_hint(graded):
    hints = {"evaluate_constant": "same value for every position",
             "evaluate_ignores_opponent": "never go below 0",
             "evaluate_mover_view": "right sign when x is to move"}
    assert set(hints) == set(variants.PLAY_VARIANTS)
    for name, hint in hints.items():
        lost = [test for test in graded[name].tests if test.score < test.max_score]
        assert lost and any(hint in test.output for test in lost), name  # where evidence is clear
        for other, other_hint in hints.items():  # and no other mistake gets this one's hint
            assert other == name or all(other_hint not in test.output
                                        for test in graded[name].tests), (name, other)
    assert all("Likely mistake" not in test.output for test in graded["correct"].tests)


def test_a_lost_match_is_written_out_with_the_board_and_the_losing_choice(graded):
    test = next(t for t in graded["evaluate_mover_view"].tests if "Match" in t.output)
    assert "| you play | wins | draws | losses |" in test.output  # Markdown: Gradescope's page
    assert "Final board:" in test.output and "Where your choice lost" in test.output
    assert "| move | your search's value | with the staff's evaluation |" in test.output
    plain = plain_text(test.output)  # PrairieLearn's <pre>, a log: the same tables aligned
    assert "| --- |" not in plain and "**" not in plain
    assert re.search(r"^move +your search's value +with the staff's evaluation$", plain, re.M)


def test_a_losing_choice_shows_exact_values_for_the_moves_the_search_pruned(graded):
    """The report asks the worker for the rest of the losing position's cutoff: every move's
    value is the student's evaluation backed up in full, as plain minimax gives it."""
    shown = pruned_there = 0
    for name in variants.PLAY_VARIANTS:
        namespace: dict = {}
        exec(compile(variants.source(name), name, "exec"), namespace)  # noqa: S102
        tests = {test.case_name: test for test in graded[name].tests}
        for data in PLAY_CASES:
            test, game = tests[data["name"]], case_from_dict(data).build_game()

            def evaluation(g, s, game=game, evaluate=namespace["evaluate"]):
                return evaluate_positions(evaluate, game, [g.state_id(s)], SMALL.play.calls,
                                          scoring_play.EVALUATION_SEED, random.seed)[0]

            matches = {m["index"]: m for m in test.extra_data["play"]}
            for index, before, table in re.findall(
                    r"\*\*Match (\d+) .*?before move (\d+),.*?\| --- \| --- \| --- \|\n(.*?)\n\n",
                    test.output, re.S):
                state = game.state_from_id(
                    replay_match(matches[int(index) - 1]).position(int(before) - 1))
                _, values = plain_minimax(game, state, SMALL.play.depth, evaluation)
                rows = [row.split(" | ")[:2] for row in table.strip("| ").split(" |\n| ")]
                assert [(move.split()[0], mine) for move, mine in rows] == [
                    (str(a), play_feedback.value_text(v)) for a, v in values.items()]
                pruned_there += bool(searched(game, state, SMALL.play.depth, evaluation)[0].pruned)
                assert "(pruned)" not in test.output
                shown += 1
    assert pruned_there, (shown, pruned_there)  # (the search had pruned some of those)


FAILS_LATE = """
def evaluate(game, state):
    marks = sum(cell != "." for row in game.board(state) for cell in row)
    if marks >= 9:  # met in the middle of some matches: a failure after shared requests
        raise ValueError("too many marks")
    return marks % 3
"""


@pytest.mark.parametrize("name", ["evaluate_constant", "fails_late"])
def test_cases_of_a_game_played_together_give_what_each_alone_gives(name, tmp_path,
                                                                     monkeypatch):
    """A worker's play cases of one game share each round's request (play.play_ahead): the
    results are those of the cases played one after the other, in fewer requests; an
    evaluation failing in a shared request fails the case it fails in, as alone."""
    paths = [case_file(tmp_path, data) for data in (PLAY_CASES[0], PLAY_CASES[2])]
    if name == "fails_late":
        submission = tmp_path / name / "search.py"
        submission.parent.mkdir()
        source = variants.source("evaluate_constant")
        head, _, tail = source.partition("\ndef evaluate(game, state):")
        rest = tail.split("\ndef ", 1)
        submission.write_text(head + FAILS_LATE + ("\ndef " + rest[1] if len(rest) > 1 else ""))
    else:
        submission = variants.materialize(name, tmp_path / name)
    requests = []
    real = scoring_play.evaluate_ids

    def counted(worker, case, ids, rubric):
        requests[-1] += 1
        return real(worker, case, ids, rubric)

    monkeypatch.setattr(scoring_play, "evaluate_ids", counted)
    graded = []
    for together in (True, False):
        requests.append(0)
        if not together:
            monkeypatch.setattr(grading, "play_ahead", lambda *args: None)
        results = grade(submission, paths, rubric=SMALL)
        graded.append([(t.name, t.score, t.outcome, t.output, t.extra_data)
                       for t in results.tests])
    assert graded[0] == graded[1]
    if name == "fails_late":
        assert [outcome for _, _, outcome, _, _ in graded[0]].count("error") >= 1, graded[0]
    else:
        assert requests[0] < requests[1], requests


def test_play_cases_are_played_together_only_with_cases_of_their_visibility(tmp_path,
                                                                            monkeypatch):
    """A play case's matches are played ahead only with the later cases of its visibility,
    when the first of them comes up: a test of an earlier visibility never runs after the
    worker was asked for a later one's positions (it could print them)."""
    cases = [dict(case_of("connect4", "greedy", 2), name="t-due", visibility="after_due_date"),
             dict(case_of("connect4", "random", 5, matches=2), name="t-hidden",
                  visibility="hidden"),
             dict(case_of("connect4", "random", 7, matches=2), name="t-due-too",
                  visibility="after_due_date")]
    paths = [case_file(tmp_path, data) for data in cases]
    calls = []
    real = grading.play_ahead

    def recorded(worker, played, rubric):
        calls.append([case.name for case in played])
        real(worker, played, rubric)

    monkeypatch.setattr(grading, "play_ahead", recorded)
    results = grade(variants.materialize("evaluate_constant", tmp_path / "s"), paths,
                    rubric=SMALL)
    assert [sorted(names) for names in calls] == [["t-due", "t-due-too"], ["t-hidden"]]
    assert [t.case_name for t in results.tests][-1] == "t-hidden"  # its visibility's turn


def fail_after_the_matches(monkeypatch, reply: WorkerReply) -> list[int]:
    """Every ``evaluate`` request made after a case's matches are played fails with ``reply``;
    the list returned counts those requests, an entry a case."""
    played, follow_ups = [], []  # this case's matches are over; the requests since
    real_play_case, real_evaluate_ids = scoring_play.play_case, scoring_play.evaluate_ids
    real_ahead, real_taken = scoring_play.play_ahead, scoring_play._played_records

    def play_case(*args):
        played.clear()
        follow_ups.append(0)
        records = real_play_case(*args)
        played.append(True)
        return records

    def play_ahead(*args):  # several cases' matches played together, before any is graded
        played.clear()
        real_ahead(*args)

    def played_records(*args):  # a case graded on the matches play_ahead played
        records = real_taken(*args)
        if records is not None:
            follow_ups.append(0)
            played[:] = [True]
        return records

    def evaluate_ids(worker, case, ids, rubric):
        if played:
            follow_ups[-1] += 1
            raise scoring_play.EvaluationFailed(reply)
        return real_evaluate_ids(worker, case, ids, rubric)

    monkeypatch.setattr(scoring_play, "play_case", play_case)
    monkeypatch.setattr(scoring_play, "evaluate_ids", evaluate_ids)
    monkeypatch.setattr(grading, "play_ahead", play_ahead)
    monkeypatch.setattr(scoring_play, "_played_records", played_records)
    return follow_ups


def test_a_failure_filling_in_the_pruned_values_leaves_the_bounds_and_the_score(
        graded, tmp_path, monkeypatch):
    """Once the matches are played, an evaluation failing on a pruned move's positions costs
    nothing: the report shows those moves' bounds."""
    name = "evaluate_constant"  # whose losing decisions shown had moves pruned
    fail_after_the_matches(monkeypatch, WorkerReply("error", message="ValueError"))
    paths = [case_file(tmp_path, data) for data in PLAY_CASES]
    results = grade(variants.materialize(name, tmp_path / name), paths, rubric=SMALL)
    assert [t.score for t in results.tests] == [t.score for t in graded[name].tests]

    def matches(results):  # the matches but the losing choices' values
        return [[{k: v for k, v in m.items() if k != "choice"} for m in t.extra_data["play"]]
                for t in results.tests]

    def bounds(results):
        return [row for t in results.tests for m in t.extra_data["play"]
                for row in (m.get("choice") or {}).get("values", []) if "bound" in row]

    assert matches(results) == matches(graded[name])
    assert any(" (pruned) |" in t.output for t in results.tests)
    assert all("(pruned)" not in t.output for t in graded[name].tests)
    assert bounds(results) and all(row["yours"] is None for row in bounds(results))
    assert bounds(graded[name]) == []  # the records carry what the text says


def test_after_a_failing_follow_up_request_no_more_is_made(tmp_path, monkeypatch):
    """Once the matches are scored, the pruned moves' values and the hint's cannot change the
    score: an ``evaluate`` that times out on each of those requests (an attack on the grader's
    time, each a worker restart, for free) gets one, then none; the score stands."""
    name = "evaluate_constant"  # lost matches whose decisions shown had moves pruned, a hint
    follow_ups = fail_after_the_matches(monkeypatch, WorkerReply("timeout", message="stalled"))
    paths = [case_file(tmp_path, data) for data in PLAY_CASES]
    results = grade(variants.materialize(name, tmp_path / name), paths, rubric=SMALL)
    assert any(t.score < t.max_score for t in results.tests)
    assert follow_ups and max(follow_ups) == 1, follow_ups
    assert all("hint" not in t.extra_data for t in results.tests)


def test_a_pruned_move_shows_its_bound_when_its_values_could_not_be_had():
    game = builtin_game("connect4", None, C4)
    decision, _ = searched(game, game.state_from_id(MID), 2, play.reference_evaluation)
    staff = play.search_values(game, game.state_from_id(MID), 2,
                               {game.state_id(p): play.reference_evaluation(game, p)
                                for p in play.cutoff_positions(game, game.state_from_id(MID), 2)})
    record = play.MatchRecord(0, 0, "x", "greedy", MID, positions=[MID], final=MID,
                              outcome="loss", decisions=[decision])
    score = scoring_play.play_score([record], rubric_from_dict({"play": {"thresholds": [1]}}),
                                    "greedy")
    _, output = play_feedback.report(game, "greedy", [record], score, 0.5,
                                     {0: (decision, {**staff, 0: (0, 99.0)})})
    assert "| 0 | at most -52.5 (pruned) | 99 |" in output
    assert "| 3 (yours) | -7 | -7 |" in output and "a pruned move is one" in output


@settings(max_examples=150, deadline=None, database=None)
@given(outcomes=st.lists(st.sampled_from(["win", "draw", "loss"]), min_size=2, max_size=20),
       by_wins=st.booleans(), draw_weight=st.sampled_from([0.0, 0.5, 1.0]),
       steps=st.lists(st.integers(1, 10), min_size=1, max_size=4), order=st.randoms())
def test_stopping_once_decided_gives_every_match_s_points(outcomes, by_wins, draw_weight, steps,
                                                          order):
    """Matches started as next_matches says, ended in any order, score what all of them do."""
    from types import SimpleNamespace

    matches = len(outcomes)
    steps = sorted(set(steps))
    key = ({"thresholds": sorted({min(step, matches) for step in steps})} if by_wins
           else {"rates": [step / 10 for step in steps]})
    rubric = rubric_from_dict({"play": {**key, "draw_weight": draw_weight}})
    every = [SimpleNamespace(index=i, side="xo"[i % 2], outcome=o) for i, o in enumerate(outcomes)]
    records: list = [None] * matches
    running: set[int] = set()
    while True:
        running |= set(scoring_play.next_matches(records, running, rubric, "greedy"))
        if not running:
            break
        ended = order.choice(sorted(running))
        running.discard(ended)
        records[ended] = every[ended]
    played = [r for r in records if r is not None]
    stopped = scoring_play.play_score(played, rubric, "greedy", matches)
    assert stopped.points == scoring_play.play_score(every, rubric, "greedy").points
    assert stopped.planned == matches


def test_a_case_stops_once_its_points_are_decided_and_plays_the_same_matches_until_then(
        monkeypatch):
    """The correct evaluation against greedy (ten matches, steps up to 0.8 a side), no spare
    match: four wins a side decide, so the first four of each are played, as they would have
    been, and score the same; with stop_when_decided = false, or a leaderboard, every match
    is played."""
    from bench import evaluations

    monkeypatch.setattr(scoring_play, "spare_matches", lambda side_matches: 0)
    case = case_from_dict(case_of("connect4", "greedy", 2, matches=10))
    game = case.build_game()
    function = evaluations.function("weighted")

    def evaluate(ids):
        return dict(zip(ids, evaluate_positions(function, game, ids, 1000,
                                                scoring_play.EVALUATION_SEED, random.seed)))

    stopping = load_rubric()
    every = rubric_from_dict({"play": {"stop_when_decided": False}})
    played = scoring_play.play_case(case, stopping, evaluate)
    whole = scoring_play.play_case(case, every, evaluate)
    assert len(whole) == 10 and [r.index for r in played] == list(range(8))
    assert [(r.moves, r.outcome) for r in played] == [(r.moves, r.outcome) for r in whole[:8]]
    assert stopping.play.stop_when_decided and not every.play.stop_when_decided
    score = scoring_play.play_score(played, stopping, "greedy", 10)
    assert score.points == scoring_play.play_score(whole, stopping, "greedy").points == 4
    summary, _ = play_feedback.report(game, "greedy", played, score, 0.5, {})
    assert "in 8 matches against greedy (of 10: the other 2 could not change the points" in summary
    board = rubric_from_dict({"play": {"leaderboard": True}})
    assert len(scoring_play.play_case(case, board, evaluate)) == 10


def test_the_same_submission_plays_the_same_matches(tmp_path):
    path = case_file(tmp_path, case_of("connect4", "random", 3, matches=2))
    submission = variants.materialize("evaluate_mover_view", tmp_path / "s")
    first, second = (grade(submission, [path], rubric=SMALL).tests[0] for _ in range(2))
    assert first.extra_data["play"] == second.extra_data["play"]
    assert (first.score, first.output) == (second.score, second.output)


def test_a_position_is_sent_to_the_worker_once_per_submission(tmp_path, monkeypatch):
    sent: list[str] = []
    original = Worker.evaluate

    def counting(self, game, params, ids, **kwargs):
        sent.extend(ids)
        return original(self, game, params, ids, **kwargs)

    monkeypatch.setattr(Worker, "evaluate", counting)
    paths = [case_file(tmp_path, case_of("connect4", "random", 3, matches=2)),
             case_file(tmp_path, case_of("connect4", "greedy", 3, matches=2))]
    grade(variants.materialize("correct", tmp_path / "s"), paths, rubric=SMALL)
    assert sent and len(sent) == len(set(sent))


def test_the_handout_without_the_search_only_checks_sample_positions(tmp_path, monkeypatch):
    path = case_file(tmp_path, case_of("mnk", "greedy", 3))
    real = importlib.util.find_spec
    monkeypatch.setattr(scoring_play.importlib.util, "find_spec",
                        lambda name, *a: None if name == "reference" else real(name, *a))
    test = grade(variants.materialize("correct", tmp_path / "s"), [path], rubric=SMALL).tests[0]
    assert (test.score, test.max_score, test.outcome) == (0.0, 0.0, "passed")
    assert "played by the autograder" in test.summary and "| to move | evaluate |" in test.output
    stub = grade(ROOT / "student" / "search.py", [path], rubric=SMALL).tests[0]
    assert (stub.max_score, stub.outcome) == (0.0, "not_implemented")


# --- cases and rubric ---------------------------------------------------------------------


@pytest.mark.parametrize("change, message", [
    ({"game": "tictactoe", "params": {}}, "set game to one of connect4, mnk"),
    ({"algorithms": ["evaluate", "alpha_beta"]}, "give it a case of its own"),
    ({"depth_limit": 2}, "remove depth_limit"),
    ({"play": {"opponent": "genius"}}, "opponent"),
])
def test_a_bad_evaluate_case_is_refused_with_the_fix(change, message):
    with pytest.raises(CaseError, match=message):
        case_from_dict({**case_of("connect4", "random"), **change})
    no_play = {key: value for key, value in case_of("connect4", "random").items() if key != "play"}
    with pytest.raises(CaseError, match="needs 'play' settings"):
        case_from_dict(no_play)


def test_the_shipped_play_cases_load_and_the_rubric_sets_their_points():
    rubric = load_rubric()
    cases = [load_case(p) for p in sorted((ROOT / "trees").glob("*/evaluate-*.json"))]
    assert len(cases) >= 5 and {c.play.opponent for c in cases} == set(play.OPPONENTS)
    assert {c.game for c in cases} == {"connect4", "mnk"}
    points = {c.play.opponent: rubric.settings_for(c, "evaluate").points for c in cases}
    assert points == {"random": 0,  # the cases set it: a wrong sign wins there too
                      **{opponent: len(rubric.play.thresholds_for(opponent))
                         for opponent in ("greedy", "baseline")}}
    with pytest.raises(RubricError, match="ascending"):
        rubric_from_dict({"play": {"thresholds": [5, 1]}})
    with pytest.raises(RubricError, match="expected opponents as keys"):
        rubric_from_dict({"play": {"thresholds": {"smart": [1]}}})
    assert replace(rubric.play, threshold_points=2).threshold_points == 2


def test_the_html_report_draws_every_match_and_rings_both_moves_of_each_losing_choice(graded):
    """Every match on a board; a lost one opens at its losing choice, the student's move and
    the staff evaluation's ringed where they land, and both values of each beside the board,
    as the text says them."""
    from grader.report.html.report import report_html

    results = graded["evaluate_mover_view"]
    page = ET.fromstring(report_html(results).encode())
    sections = {s.get("id"): s for s in page.iter("section")}
    choices = 0
    for test in results.tests:
        section = sections["test-" + test.number.replace(".", "-")]
        matches = [d for d in section.iter("details") if "play-details" in (d.get("class") or "")]
        assert len(matches) == len(test.extra_data["play"])
        for record, shown in zip(test.extra_data["play"], matches):
            assert (shown.get("open") == "open") == (record["outcome"] == "loss")
            choice = record.get("choice")
            if not choice:
                continue
            match = replay_match(record)
            step = choice["move"] - 1
            assert match.moves[step][1] == choice["yours"] != choice["staff"]
            rings = {g.get("class"): int(g.get("data-cell")) for g in shown.iterfind(".//{*}g")
                     if "cand" in (g.get("class") or "")}
            assert rings == {"cand yours on": match.cell_of(step, choice["yours"]),
                             "cand staff on": match.cell_of(step, choice["staff"])}
            rows = {r.get("class"): [" ".join("".join(c.itertext()).split()) for c in r]
                    for r in shown.iter("tr") if r.get("class") in ("yours", "staff")}
            values = {row["action"]: row for row in choice["values"]}
            for who in ("yours", "staff"):
                row = values[choice[who]]
                assert rows[who][1:] == [play_feedback.value_text(row["yours"]),
                                         play_feedback.value_text(row["staff"])]
            lost = [m for m in test.extra_data["play"] if m["outcome"] == "loss"]
            if lost.index(record) < play_feedback.MAX_LOST_SHOWN:  # written out in the text too
                assert (f"before move {choice['move']}, your search played {choice['yours']}; "
                        "the same search with the staff's evaluation would have played "
                        f"{choice['staff']}") in test.output
            choices += 1
    assert choices


def test_the_hint_weighs_the_positions_the_matches_went_through(monkeypatch, tmp_path):
    """The hint's evidence is the student's values of the positions its matches passed
    through, not of those the search happened not to prune: a change of pruning never
    changes a hint."""
    seen = []
    real = scoring_play.likely_mistake

    def spy(game, values):
        seen.append(values)
        return real(game, values)

    monkeypatch.setattr(scoring_play, "likely_mistake", spy)
    paths = [case_file(tmp_path, data) for data in PLAY_CASES]
    results = grade(variants.materialize("evaluate_mover_view", tmp_path / "s"), paths,
                    rubric=SMALL)
    lost = [test for test in results.tests if test.score < test.max_score]
    assert lost and len(seen) == len(lost)
    for test, values in zip(lost, seen):
        went_through = [replay_match(match).position(step) for match in test.extra_data["play"]
                        for step in range(len(match["moves"]))]
        assert list(values) == list(dict.fromkeys(went_through))[:scoring_play.HINT_POSITIONS]


def test_an_evaluate_returning_the_built_in_heuristic_is_refused_and_not_named_to_staff(
        tmp_path, graded):
    # the view's methods are bound to a sealed game: the grader's heuristic, reached through
    # them (game.board.__self__), is refused (issue 40); no staff note names submissions that
    # write the same textbook heuristic by hand (issue 28)
    data = PLAY_CASES[2]
    submission = write(tmp_path, attacks.CORRECT.read_text() + "\n\n" + attacks.BUILT_IN_HEURISTIC)
    test = grade(submission, [case_file(tmp_path, data)], rubric=SMALL).tests[0]
    assert test.score == 0 and "SealedGameError" in test.output, test.output[:2000]
    assert "game._heuristic is the grader's" in test.output
    assert test.staff_output == ""
    for results in graded.values():
        assert all(other.staff_output == "" for other in results.tests)


def test_the_raw_game_search_is_potent_on_the_graders_unsealed_game():
    """The attack below is no straw man: handed the grader's own game (as the view's bound
    methods did before issue 40), its one-ply-deeper search returns the heuristic's minimax."""
    namespace: dict = {}
    exec(attacks.raw_game_evaluate_source("bound_self"), namespace)  # noqa: S102
    game = builtin_game("connect4", None, C4)
    state = game.state_from_id(MID)
    children = [game.result(state, action) for action in game.actions(state)]
    best = max(game._heuristic(child) for child in children)  # x (MAX) to move at MID
    assert namespace["evaluate"](type("View", (), {"board": game.board}), state) == best


@pytest.mark.parametrize("route", list(attacks.RAW_GAME_ROUTES))
def test_evaluate_reaching_for_the_graders_own_game_earns_at_most_half(tmp_path, route):
    """Issue 40: ``game.board.__self__`` was the grader's game, its heuristic and calls
    uncounted (13.5 of 14 evaluate points). Every route from inside evaluate (the bound
    methods' self, their functions' globals, closures, gc, frames) finds the sealed game only:
    its heuristic refused, its calls counted."""
    data = PLAY_CASES[0]
    source = attacks.CORRECT.read_text() + "\n\n" + attacks.raw_game_evaluate_source(route)
    test = grade(write(tmp_path, source), [case_file(tmp_path, data)], rubric=SMALL).tests[0]
    assert test.max_score > 0 and test.score <= test.max_score / 2, (test.score, test.output[:2000])


# --- issue 28: the hints, the handout's check, grader play, validate, the leaderboard --------


def _match_positions(game_name: str, count: int = 300, seed: int = 7) -> list[str]:
    """Positions of seeded random play (none terminal), as a match goes through them."""
    game = builtin_game(game_name, params=C4 if game_name == "connect4" else None)
    rng, found = random.Random(seed), {}
    while len(found) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(2, 20)):
            if game.is_terminal(state):
                break
            state = game.result(state, rng.choice(list(game.actions(state))))
        if not game.is_terminal(state):
            found[game.state_id(state)] = None
    return list(found)


def test_values_unrelated_to_the_position_get_the_noise_hint_and_sound_ones_do_not():
    game = builtin_game("connect4", params=C4)
    ids = _match_positions("connect4")
    noise = {i: random.Random(i).random() - 0.5 for i in ids}
    assert "unrelated to the position" in scoring_play.likely_mistake(game, noise)
    staff = {i: play.reference_evaluation(game, game.state_from_id(i)) for i in ids}
    assert scoring_play.likely_mistake(game, staff) == ""
    # the mover's view: right as x, wrong as o; the hint names the player-to-move convention
    mover = {i: v if i.count("x") == i.count("o") else -v for i, v in staff.items()}
    hint = scoring_play.likely_mistake(game, mover)
    assert "the value for the player to move" in hint and "wants the value for MAX" in hint


def test_the_handout_check_shows_the_values_and_flags_what_is_surely_wrong(tmp_path, monkeypatch):
    path = case_file(tmp_path, case_of("connect4", "greedy", 3))
    real = importlib.util.find_spec
    monkeypatch.setattr(scoring_play.importlib.util, "find_spec",
                        lambda name, *a: None if name == "reference" else real(name, *a))
    from grader.report.terminal import failure_details

    graded = {name: grade(variants.materialize(name, tmp_path / name), [path],
                          rubric=SMALL) for name in ("correct", "evaluate_mover_view",
                                                     "evaluate_constant")}
    correct = graded["correct"].tests[0]
    assert correct.outcome == "passed" and "| to move | evaluate |" in correct.output
    brief = failure_details(graded["correct"])  # passed: a line after the total, no table
    assert "shown with --verbose" in brief and "to move" not in brief
    shown = failure_details(graded["correct"], verbose=True)  # shown, passed or not: aligned
    assert re.search(r"^position \(rows top to bottom\) +to move +evaluate$", shown, re.M)
    assert "| --- |" not in shown and not re.search(r"^`|\| `", shown, re.M)  # cells plain
    mover = graded["evaluate_mover_view"].tests[0]
    assert mover.outcome == "wrong_value" and "Surely wrong: o cannot stop x" in mover.output
    assert "same value for every position" in graded["evaluate_constant"].tests[0].summary
    assert all(t.tests[0].max_score == 0 for t in graded.values())


def test_grader_play_plays_the_student_s_own_search_and_a_sign_flip_visibly_loses(tmp_path):
    from grader.commands.play import play_main

    path = case_file(tmp_path, case_of("connect4", "greedy", 2))
    flipped = tmp_path / "flipped"
    flipped.mkdir()
    text = variants.source("correct").replace("    return score\n", "    return -score\n")
    (flipped / "search.py").write_text(text)
    shown = {}
    for name, submission in (("correct", variants.materialize("correct", tmp_path / "c")),
                             ("flipped", flipped / "search.py")):
        out = __import__("io").StringIO()
        html = tmp_path / f"{name}.html"
        assert play_main(submission, [path], matches=4, html=html, out=out) == 0
        shown[name] = out.getvalue()
        # terminal text: the table aligned in columns, no Markdown syntax
        rows = [line for line in shown[name].splitlines() if "(first)" in line
                or "(second)" in line or line.startswith("you play")]
        assert re.fullmatch(r"you play +wins +draws +losses", rows[0])
        assert re.fullmatch(r"x \(first\) +\d+ +\d+ +\d+", rows[1])
        assert len({len(row) for row in rows}) == 1  # aligned: the numbers right-aligned
        assert "## " not in shown[name] and "| --- |" not in shown[name]
        assert "**" not in shown[name] and "```" not in shown[name]
        assert "t-connect4-greedy" in html.read_text()  # its row in the score table
    assert "4 wins, 0 draws, 0 losses in 4 matches" in shown["correct"]
    assert "losses in 4 matches" in shown["flipped"] and "Final board:" in shown["flipped"]
    assert re.search(r"Match \d \(you: [xo]\), lost\.", shown["flipped"])
    page = (tmp_path / "flipped.html").read_text()
    assert 'class="play-match"' in page
    # no staff search in grader play: each of the first lost matches is analysed for the move
    # of the student's that let the opponent win (or said to have none), never left out
    assert "was not analysed" not in page
    lost = shown["flipped"].count("), lost.")
    found = re.findall(r"Your losing move: move (\d+), column (\d+), let them (win at once|"
                       r"force a win)|No single move of yours", shown["flipped"])
    assert lost and len(found) == lost
    assert page.count("which let them") + page.count("No single move of yours") == lost
    stub = __import__("io").StringIO()
    assert play_main(ROOT / "student" / "search.py", [path], matches=2, out=stub) == 1
    assert "not implemented" in stub.getvalue()


def test_the_move_that_let_them_win_is_the_last_one_another_move_would_have_saved():
    from grader.games.players import MatchRecord

    game = builtin_game("connect4", params={"rows": 6, "columns": 7, "connect": 4})
    # o lines up 1, 2, 3 on the bottom row (x holds 0): x (the student) must take 4, plays 6
    record = MatchRecord(index=0, seed=0, side="x", opponent="greedy", start="")
    state = game.initial_state()
    for mark, action in (("x", 0), ("o", 1), ("x", 6), ("o", 2), ("x", 6), ("o", 3),
                         ("x", 6), ("o", 4)):
        record.positions.append(game.state_id(state))
        record.moves.append((mark, action))
        state = game.result(state, action)
    assert game.is_terminal(state) and game.utility(state) < 0
    found = match_records.move_that_let_them_win(game, record)
    assert found == {"kind": "lets_win", "move": 7, "yours": 6, "plies": 1, "safe": [4]}
    assert match_records.move_that_let_them_win_text(found, "column") == (
        "Your losing move: move 7, column 6, let them win at once; column 4 would not have.")


def test_grader_play_says_a_case_of_no_points_is_worth_none_and_counts_in_the_singular(
        tmp_path):
    from grader.commands.play import play_main

    path = case_file(tmp_path, {**case_of("connect4", "random", 1), "points": 0})
    out = __import__("io").StringIO()
    submission = variants.materialize("correct", tmp_path / "c")
    assert play_main(submission, [path], matches=2, out=out) == 0
    text = out.getvalue()
    assert "This case is worth no points" in text
    assert "1 of 1 step." in text and "1 of 1 steps" not in text
    record = [type("R", (), {"side": s, "outcome": o})() for s, o in (("x", "win"), ("o", "draw"))]
    summary, _ = play_feedback.report(None, "random", record,
                                      scoring_play.play_score(record, SMALL, "random"), 0.5,
                                      points=0)
    assert summary == "1 win, 1 draw, 0 losses in 2 matches against random"


def test_validate_refuses_win_thresholds_the_matches_cannot_reach(tmp_path):
    from grader.answers.validate import validate_paths

    with pytest.raises(RubricError, match=r"threshold 10 .* cannot be reached in 4 matches"):
        rubric_from_dict({"play": {"matches": 4, "thresholds": [1, 5, 10]}})
    with pytest.raises(RubricError, match="either rates"):
        rubric_from_dict({"play": {"rates": [0.5], "thresholds": [1]}})
    with pytest.raises(RubricError, match=r"expected a number > 0 and <= 1"):
        rubric_from_dict({"play": {"rates": [0.5, 2]}})
    folder = tmp_path / "trees"
    folder.mkdir()
    (folder / "rubric.toml").write_text("[play]\nmatches = 4\nthresholds = [1, 2, 8]\n")
    errors = [str(e) for e in validate_paths([folder])]
    assert any("rubric.toml:3" in e and "play.thresholds" in e and "8" in e for e in errors), errors
    (folder / "rubric.toml").write_text("[play]\nthresholds = [1, 2, 8]\n")
    (folder / "c.json").write_text(json.dumps(case_of("connect4", "random", matches=6)))
    errors = [str(e) for e in validate_paths([folder])]
    assert any("c.json" in e and "play.matches" in e and "6 matches" in e for e in errors), errors


def test_the_leaderboard_is_opt_in_and_reports_the_baseline_score_rate_and_margin():
    from grader.report.gradescope import results_dict
    from grader.scoring.results import GradingResults, TestResult

    def test(name, wins, losses, matches):
        return TestResult(name=name, number="1", algorithm="evaluate", case_name=name,
                          max_score=1, score=1, outcome="passed", visibility="visible",
                          extra_data={"score": {"rate": (wins + (matches - wins - losses) / 2)
                                                / matches, "matches": matches, "wins": wins,
                                                "losses": losses}})

    tests = [test("e-mnk-baseline", 6, 2, 10), test("e-c4-baseline", 4, 4, 10),
             test("e-c4-random", 10, 0, 10)]
    board = scoring_play.leaderboard(tests)
    assert board == [{"name": "evaluate: score rate vs baseline", "value": 0.6},
                     {"name": "evaluate: wins - losses vs baseline", "value": 4}]
    results = GradingResults(tests=tests, leaderboard=board)
    assert results_dict(results)["leaderboard"] == board
    assert "leaderboard" not in results_dict(GradingResults(tests=tests))
    assert load_rubric().play.leaderboard is False


# --- the bundled rubric ranks evaluations by strength (issue 28) -----------------------------

# bench/strength.py's round robin (its own board and search, depth 2, both sides): Elo over both
# games, each pair 60+ Elo apart in each game (docs/staff.md has the whole set of ten)
BY_STRENGTH = ("wrong_sign", "constant", "one_sided", "weighted")


@pytest.fixture(scope="module")
def bundled():
    """Each of BY_STRENGTH graded in this process on the shipped evaluate cases that carry
    points at the bundled rubric: {name: (share of the points, {case: PlayScore})}."""
    from bench import evaluations

    rubric = load_rubric()
    cases = [load_case(p) for p in sorted((ROOT / "trees").glob("*/evaluate-*.json"))]
    cases = [c for c in cases if rubric.settings_for(c, "evaluate").points]  # not the random ones
    assert len(cases) == 4
    graded = {}
    for name in BY_STRENGTH:
        function = evaluations.function(name)
        scores = {}
        for case in cases:
            game = case.build_game()

            def evaluate(ids, game=game, function=function):
                values = evaluate_positions(function, game, ids, rubric.play.calls,
                                            scoring_play.EVALUATION_SEED, random.seed)
                return dict(zip(ids, values))

            records = scoring_play.play_case(case, rubric, evaluate)
            scores[case.name] = scoring_play.play_score(records, rubric, case.play.opponent,
                                                        case.play.matches)
        share = sum(s.points for s in scores.values()) / sum(s.full for s in scores.values())
        graded[name] = (share, scores)
    return graded


def test_the_bundled_rubric_ranks_evaluations_by_their_measured_strength(bundled):
    shares = [bundled[name][0] for name in BY_STRENGTH]
    assert shares == sorted(shares) and len(set(shares)) == len(shares), shares
    assert bundled["wrong_sign"][0] == 0
    assert bundled["constant"][0] <= 0.2
    assert bundled["weighted"][0] >= 0.9


def test_a_search_right_on_one_side_only_never_scores_full_marks_against_the_baseline(bundled):
    one_sided = bundled["one_sided"][1]
    baseline = [s for name, s in one_sided.items() if "baseline" in name]
    assert baseline and all(s.points <= s.full / 2 for s in baseline)
    assert all(s.rates["o"] < s.rates["x"] for s in one_sided.values())


def test_grader_play_with_a_correct_alpha_beta_plays_the_autograder_s_matches():
    from grader.scoring.local_play import load_search, play_local_match

    data = case_of("connect4", "greedy", 2, matches=2)
    case = case_from_dict(data)
    namespace: dict = {}
    exec(compile(variants.source("correct"), "correct", "exec"), namespace)  # noqa: S102
    game = case.build_game()

    def evaluate(ids):
        values = evaluate_positions(namespace["evaluate"], game, ids, SMALL.play.calls,
                                    scoring_play.EVALUATION_SEED, random.seed)
        return dict(zip(ids, values))

    graded = scoring_play.play_case(case, SMALL, evaluate)
    module = load_search(SUBMISSIONS / "correct")
    local = [play_local_match(module, game, i, 2, "greedy", 2, 2, 1000) for i in range(2)]
    assert [(r.moves, r.final, r.outcome) for r in local] == \
        [(r.moves, r.final, r.outcome) for r in graded]
    assert match_records.records_data(local) == match_records.records_data(graded)
