"""The staff's evaluations for the ``evaluate`` assignment: the baseline (the ``baseline``
opponent's, and the order the search of :mod:`reference.play_search` tries moves in) and the
model answer (the referee that finds where a lost match's choice went wrong).

Both are numbers for MAX (``x``) over the windows of ``connect`` cells of a grid game's
``board(state)``; neither is ever shipped in the handout.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product
from operator import itemgetter
from typing import Any

from grader.games.tictactoe import grid_lines


def _windows(game: Any) -> tuple[tuple[int, ...], ...]:
    """Every run of ``connect`` cells in a line, as indexes into the joined board."""
    return grid_lines(game.rows, game.columns, game.connect)


_BASELINE: dict[tuple[int, int, int, str], float] = {}  # (shape, cells) -> value
BASELINE_MEMO = 50_000  # positions remembered before the memo starts over


def baseline_evaluation(game: Any, state: Any) -> float:
    """The staff's plain evaluation: over every window of ``connect`` cells, the ``x`` marks of
    windows without an ``o`` minus the ``o`` marks of windows without an ``x`` (the built-in
    games' own heuristic). Remembered by position: the baseline opponent and the referee ask
    for the same positions in every match and for every submission of a batch."""
    cells = "".join(game.board(state))
    key = (game.rows, game.columns, game.connect, cells)
    found = _BASELINE.get(key)
    if found is None:
        if len(_BASELINE) >= BASELINE_MEMO:
            _BASELINE.clear()
        found = _BASELINE[key] = _baseline(game, cells)
    return found


def _baseline(game: Any, cells: str) -> float:
    readers, worth = _baseline_tables(game.rows, game.columns, game.connect)
    return float(sum([worth[read(cells)] for read in readers]))


@lru_cache(maxsize=16)
def _baseline_tables(rows: int, columns: int, connect: int
                     ) -> tuple[tuple[itemgetter, ...], dict[tuple[str, ...], int]]:
    """The windows' readers (an itemgetter of each window's cells: a tuple, as ``connect`` >= 2)
    and each window's worth by its marks (the search orders moves by this: it is worth being
    quick)."""
    readers = tuple(itemgetter(*window) for window in grid_lines(rows, columns, connect))
    worth = {marks: ("o" not in marks) * marks.count("x") - ("x" not in marks) * marks.count("o")
             for marks in product("xo.", repeat=connect)}
    return readers, worth


def reference_evaluation(game: Any, state: Any) -> float:
    """The staff's good evaluation (the model answer): windows of ``connect`` cells held by one
    player only, weighted steeply by their marks (1, 4, 16, ...: a window one mark short of a
    line is worth far more than two with fewer), plus a mark in the middle column(s)."""
    board = game.board(state)
    cells = "".join(board)
    score = 0.0
    for window in _windows(game):
        marks = [cells[i] for i in window]
        x, o = marks.count("x"), marks.count("o")
        if x and not o:
            score += 4.0 ** (x - 1)
        elif o and not x:
            score -= 4.0 ** (o - 1)
    middle = {game.columns // 2, (game.columns - 1) // 2}
    for row in board:
        for c in middle:
            score += {"x": 0.5, "o": -0.5}.get(row[c], 0.0)
    return score
