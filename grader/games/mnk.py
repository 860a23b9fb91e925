"""The m,n,k-game: tic-tac-toe on a larger board, ``connect`` in a row to win (gomoku's family).

Rules: ``x`` (MAX) moves first, then ``o`` (MIN), alternately, one mark on any empty square;
``connect`` marks in a row, column or diagonal win; a full board without a line is a draw.
Tic-tac-toe is the 3,3,3-game.

* Params: ``rows``, ``columns`` (default 5 each) and ``connect`` (default 4). The 5,5,4-game is
  a draw under perfect play, and a search a few plies deep cannot see its end: the game the
  ``evaluate`` assignment plays besides Connect Four.
* State (case file): rows top to bottom joined by ``|`` (``x`` / ``o`` / ``.``), as tic-tac-toe;
  None = the empty board. Impossible positions raise ``ValueError`` naming the position.
* Actions: square indexes in row-major order, the empty squares, ascending; none at a terminal.
* Utility: +1 when ``x`` has a line, -1 when ``o`` has, 0 for a draw.
* Evaluation (depth cutoffs): as Connect Four's, over every window of ``connect`` cells: the
  ``x`` marks of windows without an ``o`` minus the ``o`` marks of windows without an ``x``,
  divided by the power of ten above the largest possible total, strictly inside (-1, 1).
* State ids: the board string; ``MNKGame(state=id)`` rebuilds it.
"""

from __future__ import annotations

from typing import Any

from grader.games.tictactoe import GridGame, parse_grid


class MNKGame(GridGame):
    """See the module docstring."""

    NAME = "mnk"

    def __init__(self, state: Any = None, *, rows: int | None = None, columns: int | None = None,
                 connect: int = 4, **options: Any) -> None:
        """``options``: ``depth_limit``, ``value_bounds``, ``max_sum`` (see :class:`Game`)."""
        if state is not None:
            _, shape_rows, shape_columns = parse_grid(state, self.NAME)
            if rows not in (None, shape_rows) or columns not in (None, shape_columns):
                raise ValueError(
                    f"{self.NAME} position {state!r} has {shape_rows} rows of {shape_columns}, "
                    f"but params ask for rows={rows!r}, columns={columns!r}")
            rows, columns = shape_rows, shape_columns
        rows = 5 if rows is None else rows
        columns = 5 if columns is None else columns
        for name, value in (("rows", rows), ("columns", columns), ("connect", connect)):
            if type(value) is not int or value < 1:
                raise ValueError(f"{self.NAME}: {name} must be a positive integer, got {value!r}")
        if not 2 <= connect <= max(rows, columns):
            raise ValueError(f"{self.NAME}: connect must be between 2 and max(rows, columns) = "
                             f"{max(rows, columns)}, got {connect!r}")
        super().__init__(state, rows, columns, connect, **options)

    def _window_weight(self, marks: int) -> int:
        return marks
