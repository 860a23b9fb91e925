"""Connect Four on a small board, from any position.

Rules: ``x`` (MAX) moves first, then ``o`` (MIN), alternately; a move drops a mark into a column
that has space, and it falls to the lowest empty cell. ``connect`` marks in a row, column or
diagonal win; a full board without a line is a draw.

* Params: ``rows`` and ``columns`` (default: the given position's shape, else 4 x 4) and
  ``connect`` (default 3). The full tree of the empty default board has 6,761,216 nodes, so
  cases search it with a depth limit or from a position a few marks in (six marks: typically a
  few thousand nodes). ``rows: 6, columns: 7, connect: 4`` is the classic game.
* State (case file): rows top to bottom joined by ``|``, ``x`` / ``o`` / ``.``, e.g.
  ``"....|....|.o..|.xx."``; None = the empty board. Impossible positions (a mark above an empty
  cell, mark counts off, both players with a line, a line for the player who did not move last)
  raise ``ValueError`` naming the position.
* Actions: the indexes (0 = leftmost) of the columns with space, ascending; none at a terminal
  position.
* Utility: +1 when ``x`` has a line, -1 when ``o`` has, 0 for a draw.
* Evaluation (depth cutoffs): over every window of ``connect`` cells in a line, add the number of
  ``x`` marks in each window without an ``o``, subtract the number of ``o`` marks in each window
  without an ``x``, and divide by the power of ten above the largest possible total (100 on the
  default board: 24 windows of at most 2 marks), so the value lies strictly inside (-1, 1).
* State ids: the board string (``"....|....|.o..|.xx."``); ``ConnectFour(state=id)`` rebuilds it.
  The transposition key (``game.key``) is the id.
* Noisy actions (quiescence): a move whose mark completes the mover's line (wins) or lands on
  the last empty cell of a line the opponent would complete (blocks), as in tic-tac-toe.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from grader.games.tictactoe import GridGame, parse_grid


@lru_cache(maxsize=64)
def _floating(columns: int) -> re.Pattern[str]:
    """A mark with an empty cell right below it, in cells of rows of ``columns``."""
    return re.compile("[xo]" + "." * (columns - 1) + r"\.", re.DOTALL)


class ConnectFour(GridGame):
    """See the module docstring. Shares its board code with tic-tac-toe."""

    NAME = "connect-four"

    def __init__(
        self,
        state: Any = None,
        *,
        rows: int | None = None,
        columns: int | None = None,
        connect: int = 3,
        **options: Any,
    ) -> None:
        """``options``: ``depth_limit``, ``value_bounds``, ``max_sum`` (see :class:`Game`)."""
        rows, columns = self.grid_shape(state, rows, columns, connect, default=4)
        if state is not None:
            self._check_gravity(state, parse_grid(state, self.NAME)[0], columns)
        super().__init__(state, rows, columns, connect, **options)
        self._width = columns  # actions are columns; column c's top cell is cell c

    def _check_gravity(self, state: Any, cells: str, columns: int) -> None:
        # quick: one search in C for a mark with an empty cell a row (``columns`` cells)
        # further on (evaluate rebuilds thousands of positions from their ids); found, the
        # loop below names it
        if _floating(columns).search(cells) is None:
            return
        for below in range(columns, len(cells)):
            if cells[below] == "." and cells[below - columns] != ".":
                raise ValueError(
                    f"{self.NAME} position {state!r} is impossible: the mark in row "
                    f"{below // columns - 1}, column {below % columns} has an empty cell below it"
                )

    def _check_shape(self, state: Any, cells: str) -> None:
        self._check_gravity(state, cells, self.columns)

    def _window_weight(self, marks: int) -> int:
        return marks

    def _square(self, cells: str, action: int) -> int:
        # the lowest empty cell of column ``action`` (its top one is empty: a legal action)
        return action + self.columns * cells[action::self.columns].rindex(".")

    def actions(self, state: Any) -> tuple[int, ...]:
        if state.winner:
            return ()
        cells = state.cells
        return tuple([c for c in range(self.columns) if cells[c] == "."])  # a list: quicker
