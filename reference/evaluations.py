"""The staff's evaluations for the ``evaluate`` assignment: the baseline (the ``baseline``
opponent's, and the order the search of :mod:`reference.play_search` tries moves in) and the
model answer (the referee that finds where a lost match's choice went wrong).

Both are numbers for MAX (``x``) over the windows of ``connect`` cells of a grid game's
``board(state)``; neither is ever shipped in the handout. The baseline's change when one mark
fills one cell (:func:`baseline_gains`) lets the baseline opponent's search
(:mod:`reference.grid_opponents`) value a child from its parent without a whole evaluation.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product
from operator import itemgetter
from typing import Any

from grader.games.tictactoe import grid_lines

# (shape, cells) -> value: a pure memo, read and written a key at a time and never iterated,
# so two grading threads (connect4's and mnk's play cases, grade --jobs 2) may share it, and
# one's clear() (forget_positions, the memo's cap) only costs the other a value computed again
_BASELINE: dict[tuple[int, int, int, str], float] = {}
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
        found = _BASELINE[key] = float(_windows_worth(game, cells, "baseline"))
    return found


def forget_positions() -> None:
    """Empty the memo of :func:`baseline_evaluation` (a one-off grade: nothing will reuse it)."""
    _BASELINE.clear()


def reference_evaluation(game: Any, state: Any) -> float:
    """The staff's good evaluation (the model answer): windows of ``connect`` cells held by one
    player only, weighted steeply by their marks (1, 4, 16, ...: a window one mark short of a
    line is worth far more than two with fewer), plus a mark in the middle column(s)."""
    cells = "".join(game.board(state))
    score = _windows_worth(game, cells, "reference")
    columns = game.columns
    for c in {columns // 2, (columns - 1) // 2}:  # a half for each x there, minus one for o
        middle = cells[c::columns]
        score += 0.5 * middle.count("x") - 0.5 * middle.count("o")  # (halves: exact sums)
    return score


def _windows_worth(game: Any, cells: str, weights: str) -> float:
    """The sum over the board's windows of each one's worth by its marks, in ``weights``."""
    read, worth = _tables(game.rows, game.columns, game.connect, weights)
    marks = iter(read(cells))  # every window's marks, one window after another
    return sum(map(worth.__getitem__, zip(*[marks] * game.connect)))  # window by window


# Added to a gain (:func:`baseline_gains`) when the mark completes a window: far above any
# baseline value (a board's windows times ``connect``), so a gain this large means a line.
COMPLETES = 1 << 30


@lru_cache(maxsize=32)
def baseline_gains(rows: int, columns: int, connect: int
                   ) -> tuple[tuple[Any, ...], dict[str, dict[tuple[str, ...], int]]]:
    """How :func:`baseline_evaluation` changes when a mark fills an empty cell: per cell, a
    reader of the other ``connect - 1`` cells of every window through it (window by window,
    one flat tuple); per mark, the change one window makes by those other cells' marks, plus
    ``COMPLETES`` (x; minus it for o) when they are all the mark's (a line: the game is won).
    A window's baseline worth depends only on how many marks of each kind it holds, so where
    the empty cell lies in it does not matter. The change of a board's value is then::

        sum(map(gains[mark].__getitem__, zip(*[iter(readers[cell](cells))] * (connect - 1))))
    """
    _, worth = _tables(rows, columns, connect, "baseline")
    gains: dict[str, dict[tuple[str, ...], int]] = {}
    for mark, sign in (("x", 1), ("o", -1)):
        gains[mark] = {others: int(worth[(*others, mark)] - worth[(*others, ".")])
                       + (sign * COMPLETES if others.count(mark) == connect - 1 else 0)
                       for others in product("xo.", repeat=connect - 1)}
    lines = grid_lines(rows, columns, connect)
    readers = []
    for cell in range(rows * columns):
        others = [i for line in lines if cell in line for i in line if i != cell]
        # itemgetter of one index returns the mark itself: a one-character string iterates
        # as the one-mark tuple would (connect 2, one window through the cell)
        readers.append(itemgetter(*others) if others else (lambda cells: ()))
    return tuple(readers), gains


@lru_cache(maxsize=32)
def reference_gains(rows: int, columns: int, connect: int
                    ) -> tuple[dict[str, dict[tuple[str, ...], float]], tuple[float, ...]]:
    """How :func:`reference_evaluation` changes when a mark fills an empty cell, read as
    :func:`baseline_gains` says (its readers): per mark, the change one window makes by its
    other cells' marks (no line flagged: the baseline's gain says that); per cell, what a mark
    there adds for the middle column(s): 0.5 (x; minus it for o), else 0.0. Every worth is a
    power of four or a half, far inside a float's precision: the sums are exact, in any order,
    so a value found this way is the very float :func:`reference_evaluation` returns."""
    _, worth = _tables(rows, columns, connect, "reference")
    gains = {mark: {others: worth[(*others, mark)] - worth[(*others, ".")]
                    for others in product("xo.", repeat=connect - 1)} for mark in "xo"}
    middle = {columns // 2, (columns - 1) // 2}
    halves = tuple(0.5 if cell % columns in middle else 0.0 for cell in range(rows * columns))
    return gains, halves


@lru_cache(maxsize=32)
def _tables(rows: int, columns: int, connect: int, weights: str
            ) -> tuple[itemgetter, dict[tuple[str, ...], float]]:
    """The windows' reader (an itemgetter of every window's cells, one window after another)
    and each window's worth by its marks: ``baseline`` (x marks of a window without an o, minus
    o marks of a window without an x) or ``reference`` (4 ** (marks - 1) for a window one player
    holds alone, for x; minus that for o). Tables, as the search orders moves by the baseline:
    it is worth being quick."""
    reader = itemgetter(*[cell for window in grid_lines(rows, columns, connect)
                           for cell in window])
    worth: dict[tuple[str, ...], float] = {}
    for marks in product("xo.", repeat=connect):
        x, o = marks.count("x"), marks.count("o")
        if weights == "baseline":
            worth[marks] = (not o) * x - (not x) * o
        else:
            worth[marks] = 4.0 ** (x - 1) if x and not o else -4.0 ** (o - 1) if o and not x else 0.0
    return reader, worth
