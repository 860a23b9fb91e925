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
  The transposition key (``game.key``) is the id.
* Noisy actions (quiescence): a move whose mark completes the mover's line (wins) or lands on
  the last empty cell of a line the opponent would complete (blocks), as in tic-tac-toe.
"""

from __future__ import annotations

from typing import Any

from grader.games.tictactoe import GridGame


class MNKGame(GridGame):
    """See the module docstring."""

    NAME = "mnk"

    def __init__(self, state: Any = None, *, rows: int | None = None, columns: int | None = None,
                 connect: int = 4, **options: Any) -> None:
        """``options``: ``depth_limit``, ``value_bounds``, ``max_sum`` (see :class:`Game`)."""
        rows, columns = self.grid_shape(state, rows, columns, connect, default=5)
        super().__init__(state, rows, columns, connect, **options)

    def _window_weight(self, marks: int) -> int:
        return marks
