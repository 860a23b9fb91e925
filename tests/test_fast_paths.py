"""The grid games' fast paths (issue 19) against the checked interface they stand in for.

Tic-tac-toe's traced ``result`` is fused with the trace's recording, and the player to move, the
actions, the children and the ids are remembered per board. These tests hold the fast paths to
what the formulas and :class:`~grader.games.base.Game`'s checked methods give, including on
misuse, and check that a wrapper overriding ``result`` is never bypassed by the fusion.
"""

from __future__ import annotations

import math
import random
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from grader.games import MAX, MIN, builtin_game
from grader.games.base import Game
from grader.games.tictactoe import TicTacToe, grid_lines
from grader.run.tracing import Budget, BudgetExceeded, traced
from grader.sandbox.client import Worker
from grader.sandbox.limits import Limits

REPO = Path(__file__).resolve().parent.parent


class Forwarding:
    """A game seen through ``__getattr__``, with its own ``result`` (as the feedback's budgeted
    variants and the MCTS drawing use): the tracing wrapper must call that ``result``."""

    def __init__(self, game: Any) -> None:
        self._game, self.calls = game, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def result(self, state: Any, action: Any) -> Any:
        self.calls += 1
        return self._game.result(state, action)


def minimax(game: Any, state: Any, depth: int = 0) -> float:
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    values = [minimax(game, game.result(state, a), depth + 1) for a in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


@pytest.mark.parametrize("name, state, params", [
    ("tictactoe", "x.o|...|..x", {}),
    ("tictactoe", "xo.|.x.|o..", {"depth_limit": 2}),
    ("connect4", None, {"rows": 4, "columns": 4, "connect": 3, "depth_limit": 4}),
])
def test_the_fused_trace_equals_the_generic_one(name, state, params):
    fused_game = builtin_game(name, state=state, **params)
    fused, fused_trace = traced(fused_game)
    generic_game = Forwarding(builtin_game(name, state=state, **params))
    generic, generic_trace = traced(generic_game)
    assert minimax(fused, fused_game.initial_state()) == minimax(
        generic, generic_game.initial_state())
    assert generic_game.calls == len(generic_trace.generated) > 20
    assert fused_trace.generated_ids() == generic_trace.generated_ids()
    assert fused_trace.evaluated_ids() == generic_trace.evaluated_ids()
    # the bulk ids are the one-at-a-time ids
    assert fused_trace.generated_ids() == [fused_game.state_id(s) for s in fused_trace.generated]


def test_a_budget_stops_the_fused_result_at_the_same_call():
    game = TicTacToe()
    wrapper, trace = traced(game, Budget(result=100, evaluated=10**6))
    with pytest.raises(BudgetExceeded):
        minimax(wrapper, game.initial_state())
    assert len(trace.generated) == 100 and trace.budget_stop == "result"
    with pytest.raises(BudgetExceeded):  # and every later call
        wrapper.result(game.initial_state(), 0)
    assert len(trace.generated) == 100


def test_remembered_movers_actions_and_ids_follow_the_rules_on_every_board():
    game = TicTacToe()
    seen: dict[str, Any] = {}

    def walk(state: Any) -> None:
        seen[state.cells] = state
        for action in game.actions(state):
            walk(game.result(state, action))

    walk(game.initial_state())
    assert len(seen) == 5478
    for _ in range(2):  # computed, then remembered
        for cells, state in seen.items():
            marks = 9 - cells.count(".")
            assert game.to_move(state) == (MAX if marks % 2 == 0 else MIN)
            empty = tuple(i for i, mark in enumerate(cells) if mark == ".")
            assert game.actions(state) == (() if state.winner else empty)
            assert game.state_id(state) == "|".join([cells[0:3], cells[3:6], cells[6:9]])
            assert game.is_cutoff(state, 0) == game.is_terminal(state)


def _rebuilt_slowly(game: Any, rows: list[str]) -> tuple[str, int, str] | str:
    """What ``state_from_id`` must give for ``rows``, found the plain way: (cells, ply,
    winner) by reading every line's cells one by one, or "impossible"."""
    cells = "".join(rows)
    x, o = cells.count("x"), cells.count("o")
    columns = len(rows[0])
    won = {cells[line[0]] for line in grid_lines(game.rows, game.columns, game.connect)
           if cells[line[0]] != "." and all(cells[i] == cells[line[0]] for i in line)}
    floating = game.NAME == "connect-four" and any(
        cells[i] == "." and cells[i - columns] != "." for i in range(columns, len(cells)))
    if floating or x not in (o, o + 1) or len(won) == 2 or won - {"x" if x > o else "o"}:
        return "impossible"
    return cells, x + o, won.pop() if won else ""


@pytest.mark.parametrize("name, params", [
    ("connect4", {"rows": 6, "columns": 7, "connect": 4}), ("mnk", {}),
    ("mnk", {"rows": 4, "columns": 6, "connect": 3}), ("mnk", {"rows": 1, "columns": 5,
                                                               "connect": 2}),
    ("connect4", {"rows": 5, "columns": 3, "connect": 3}), ("tictactoe", {})])
def test_rebuilding_a_position_from_its_id_checks_it_as_the_rules_say(name, params):
    # state_from_id's quick path (an id of the game's shape) and its bit-mask lines stand in
    # for the full parse and a line-by-line read: the same boards, the same refusals
    game = builtin_game(name, None, params)
    rng = random.Random(7)
    rows, columns = game.rows, game.columns
    outcomes = set()
    for _ in range(1500):
        marks = rng.randrange(rows * columns + 1)
        cells = [rng.choice("xo") if i < marks else "." for i in range(rows * columns)]
        rng.shuffle(cells)
        if game.NAME == "connect-four" and rng.random() < 0.8:  # mostly with gravity
            by_column = [sorted((cells[r * columns + c] for r in range(rows)),
                                key=lambda mark: mark != ".") for c in range(columns)]
            cells = [by_column[c][r] for r in range(rows) for c in range(columns)]
        board_rows = ["".join(cells[r * columns:(r + 1) * columns]) for r in range(rows)]
        expected = _rebuilt_slowly(game, board_rows)
        state_id = "|".join(board_rows)
        for given in (state_id, board_rows):  # the quick path, and the full parse
            try:
                board = game.state_from_id(given)
                got: Any = (board.cells, board.ply, board.winner)
            except ValueError as error:
                assert str(error).startswith(f"{game.NAME} position {given!r} is impossible")
                got = "impossible"
            assert got == expected, state_id
        outcomes.add(expected if expected == "impossible" else bool(expected[2]))
        if expected != "impossible":
            assert game.state_id(board) == state_id
    assert outcomes == {"impossible", True, False}  # every kind met
    for bad in (state_id + "|", state_id[:-1], "|" + state_id.replace("|", "", 1),
                state_id.replace(".", ",", 1) if "." in state_id else "," + state_id[1:], "",
                state_id.replace("|", "\n")):
        with pytest.raises(ValueError, match=f"{game.NAME} position"):
            game.state_from_id(bad)


@pytest.mark.parametrize("action", [1.0, True, -1, 9, "4", None, 0])
def test_misuse_of_the_fused_result_fails_as_the_checked_result(action):
    """``0`` is taken on the board below; every other action is malformed; ``True`` is the one
    the checked interface lets through (``True in (1, ...)``)."""
    game = TicTacToe(state="x..|...|...")
    wrapper, trace = traced(game)
    state = game.initial_state()

    def outcome(call: Any) -> Any:
        try:
            return "child", game.state_id(call(state, action))
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return type(error).__name__, str(error)

    assert outcome(wrapper.result) == outcome(lambda s, a: Game.result(game, s, a))
    won = TicTacToe(state="xxx|oo.|...")
    wrapper, _ = traced(won)
    with pytest.raises(Exception) as fused:
        wrapper.result(won.initial_state(), 5)
    with pytest.raises(Exception) as checked:
        Game.result(won, won.initial_state(), 5)
    assert (type(fused.value), str(fused.value)) == (type(checked.value), str(checked.value))


@pytest.mark.parametrize("name, board", [
    ("utility", "xxx|oo.|..."), ("utility", "xo.|.x.|o.."), ("utility", "xox|xoo|oxx"),
    ("evaluate", "xo.|.x.|o.."), ("evaluate", "xxx|oo.|...")])
def test_the_fused_scores_give_the_checked_values_and_errors(name, board):
    """Issue 33: utility and evaluate are fused with the recording, as result is: the same
    value or error as the checked method, the state recorded only when it was scored, and a
    budget stop at the same call."""
    for limit in (None, 0):
        game = TicTacToe(state=board, depth_limit=limit)
        state = game.initial_state()
        wrapper, trace = traced(game, Budget(result=10, evaluated=2))

        def outcome(call: Any) -> Any:
            try:
                return "value", call(state)
            except Exception as error:  # noqa: BLE001 - the error is what is compared
                return type(error).__name__, str(error)

        got, want = outcome(getattr(wrapper, name)), outcome(getattr(Game, name).__get__(game))
        assert got == want
        assert trace.evaluated == ([state] if got[0] == "value" else [])
    if got[0] == "value":
        getattr(wrapper, name)(state)  # the second of a budget of two
        with pytest.raises(BudgetExceeded):
            getattr(wrapper, name)(state)
        assert len(trace.evaluated) == 2 and trace.budget_stop == "evaluated"


def test_a_subclass_with_its_own_result_is_traced_through_it():
    calls = []

    class Logged(TicTacToe):
        def result(self, state: Any, action: Any) -> Any:
            calls.append(action)
            return super().result(state, action)

        def evaluate(self, state: Any) -> Any:
            scored.append(state)
            return super().evaluate(state)

    scored: list[Any] = []
    game = Logged(state="xo.|.x.|o..")
    wrapper, trace = traced(game)
    minimax(wrapper, game.initial_state())
    assert len(calls) == len(trace.generated) > 0
    assert scored == trace.evaluated and scored  # its own evaluate, not the fused one


SLOW = """
import math, time
def max_value(game, state, depth=0):
    start = time.process_time()
    while time.process_time() - start < 0.6:
        pass
    return 3
"""

TREE = {"$schema": "../../grader/schema/case.schema.json", "name": "t",
        "description": "a root and two leaves", "algorithms": ["minimax"],
        "tree": {"id": "A", "player": "max", "children": [{"id": "B", "value": 3},
                                                           {"id": "C", "value": 1}]}}


def test_the_worker_takes_the_graders_calibration(tmp_path):
    """Given one, the worker does not time the workload again and the call's CPU window is
    that calibration's multiple: 0.6 CPU s passes in a window of 0.2 s x 5, which the
    default floor of 0.1 s alone would stop."""
    path = tmp_path / "search.py"
    path.write_text(textwrap.dedent(SLOW))
    limits = Limits(time=0.1, kill_margin=1.0, import_time=2.0)
    with Worker(path, limits=limits, calibration=0.2) as worker:
        reply = worker.run(TREE, "minimax", time_limit=0.1, time_multiple=5.0)
        assert worker.calibration == 0.2
        assert reply.status == "ok", reply
        assert math.isclose(reply.time_limit, 1.0)
    with Worker(path, limits=limits) as worker:  # timed by the worker: well under 0.2 s,
        # so a window of 2.5 times it is under 0.5 s on any machine that passes that assert
        # (5 times it passed 0.6 s on one 3.3 times slower than this one's loaded bursts)
        reply = worker.run(TREE, "minimax", time_limit=0.1, time_multiple=2.5)
        assert worker.calibration < 0.2 and reply.status == "timeout", reply


CLOCK_UNDER_A_CPU_LIMIT = """
import inspect, resource, sys, time
from grader.run.calibration import calibration_seconds
clock = inspect.signature(calibration_seconds).parameters["clock"].default
_, hard = resource.getrlimit(resource.RLIMIT_CPU)
soft = 3600 if hard == resource.RLIM_INFINITY else min(3600, hard)
resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))  # as the worker has when it times it
still = 0
for _ in range(40):  # a fixed bit of work, under a tick of CPU time
    before = clock()
    sum(range(20_000))
    still += clock() == before
print(still)
"""


def test_the_calibration_clock_reads_finer_than_a_tick_under_a_cpu_limit():
    """The worker times the calibration workload with its CPU limit armed, when Linux reads the
    process's CPU clock from a sample taken each scheduler tick (``time.process_time`` stood
    still in most of these 40 bits of work here, moving in 4 ms steps); the clock
    :func:`~grader.run.calibration.calibration_seconds` uses moves with each of them."""
    done = subprocess.run([sys.executable, "-c", CLOCK_UNDER_A_CPU_LIMIT], capture_output=True,
                          text=True, check=True, cwd=REPO)
    assert int(done.stdout) <= 2, done.stdout
