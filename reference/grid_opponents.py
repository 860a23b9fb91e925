"""The ``baseline`` and ``greedy`` opponents' moves, computed on the board's cells
(:mod:`reference.play`); the baseline's changes from a position to its children, by which
the search picks its favourite (:func:`baseline_changes`, :mod:`reference.play_search`); and
the referee's values of a position's cutoff (:func:`reference_values`).

Convention: each move is the one the plain definition makes, so the matches are the same; only
the work differs. The ``baseline`` move is :func:`reference.play_search.search_move`'s with
:func:`reference.evaluations.baseline_evaluation` (minimax's at ``depth`` plies: outcomes
outrank every evaluation, a sooner win is better, a later loss; the first action in
``game.actions`` order among those of the best value); the ``greedy`` move is
:func:`grader.games.players.greedy_move`'s, with the same draw from the match's ``random``.
Here:

* A position is its cells (row-major ``x`` / ``o`` / ``.``, as ``"".join(game.board(state))``)
  and the baseline's value of it. A child's value is its parent's plus the change of the
  windows through the cell filled (:func:`reference.evaluations.baseline_gains`), which also
  says whether the mark completed a line: no board object, no whole evaluation a child.
* The rules are the built-in grid games' (:class:`~grader.games.tictactoe.TicTacToe`,
  :class:`~grader.games.mnk.MNKGame`: any empty cell, ascending; :class:`~grader.games.connect4.
  ConnectFour`: the columns with space, ascending, a mark falling to the lowest empty cell of
  its column). Any other game, a subclass included, gets the plain definitions themselves.
* Values are numbers for MAX, ordered as ``search_move``'s pairs are: a win for MAX at depth
  ``d`` is ``WIN - d``, a loss ``d - WIN``, a draw 0 and an evaluated position its value
  (far inside ``WIN``: at most a board's windows times ``connect``).
* Alpha-beta, fail-soft, with the reply that last cut a search at each depth tried first: the
  value of each child of the root is exact wherever it can beat the best so far, whatever the
  order inside, so the move is minimax's. tests/test_play.py checks both opponents against
  the plain definitions on seeded positions of five boards (the baseline at depths 1 to 3).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from grader.games.base import MAX
from grader.games.connect4 import ConnectFour
from grader.games.mnk import MNKGame
from grader.games.players import greedy_move as plain_greedy_move
from grader.games.tictactoe import TicTacToe
from reference.evaluations import (
    COMPLETES,
    baseline_evaluation,
    baseline_gains,
    reference_evaluation,
    reference_gains,
)

WIN = 1_000_000  # a win for MAX at the root; ``WIN - d`` at depth ``d`` (module docstring)
_LINE = COMPLETES // 2  # a gain at least this far from 0: the mark completed a line
_DROPS = {TicTacToe: False, MNKGame: False, ConnectFour: True}  # the games searched here


def baseline_move(game: Any, state: Any, depth: int) -> Any:
    """The ``baseline`` opponent's move at ``state`` (``depth`` plies: the module docstring);
    None at a terminal position, as ``search_move``'s."""
    drops = _DROPS.get(type(game))
    if drops is None or depth < 1 or game.is_terminal(state):
        # imported here: play_search imports this module (baseline_changes)
        from reference.play_search import search_move

        return search_move(game, state, depth, baseline_evaluation)
    search = _search(game.rows, game.columns, game.connect, drops)
    return search.move(game, state, depth)


def greedy_move(game: Any, state: Any, rng: random.Random) -> Any:
    """The ``greedy`` opponent's move at the non-terminal ``state``: a move that wins at once
    (the first in actions order); else, when some moves let the opponent win at once and
    others do not, ``rng``'s choice of those that do not; else its choice of all."""
    drops = _DROPS.get(type(game))
    if drops is None:
        return plain_greedy_move(game, state, rng)
    search = _search(game.rows, game.columns, game.connect, drops)
    return search.greedy("".join(game.board(state)),
                         "x" if game.to_move(state) == MAX else "o", rng)


def baseline_changes(game: Any, state: Any) -> dict[Any, int] | None:
    """How much each move from the non-terminal ``state`` changes :func:`baseline_evaluation`
    (the child's value minus ``state``'s), for each child that does not end the game, by action:
    the gains, no evaluation at all (the search's favourite, :mod:`reference.play_search`).
    None for a game not searched here."""
    drops = _DROPS.get(type(game))
    if drops is None:
        return None
    search = _search(game.rows, game.columns, game.connect, drops)
    return search.changes("".join(game.board(state)), "x" if game.to_move(state) == MAX else "o")


def reference_values(game: Any, state: Any, depth: int) -> dict[str, float] | None:
    """:func:`reference_evaluation` of each non-terminal position ``depth`` plies below the
    non-terminal ``state``, by its cells (``"".join(game.board(position))``): ``state``'s value
    plus each move's change on the way, no whole evaluation a position (the referee,
    :func:`reference.play.losing_choice`). None for a game not searched here, or depth 0."""
    drops = _DROPS.get(type(game))
    if drops is None or depth < 1:
        return None
    search = _search(game.rows, game.columns, game.connect, drops)
    found: dict[str, float] = {}
    search.reference_values("".join(game.board(state)), reference_evaluation(game, state),
                            "x" if game.to_move(state) == MAX else "o", depth, found)
    return found


@lru_cache(maxsize=16)
def _search(rows: int, columns: int, connect: int, drops: bool) -> _GridSearch:
    return _GridSearch(rows, columns, connect, drops)


class _GridSearch:
    """The search on one board shape and rule (module docstring)."""

    def __init__(self, rows: int, columns: int, connect: int, drops: bool) -> None:
        self.rows, self.columns, self.connect, self.drops = rows, columns, connect, drops
        self.readers, self.gains = baseline_gains(rows, columns, connect)
        self.reference, self.halves = reference_gains(rows, columns, connect)
        self.runs = {mark: (mark,) * (connect - 1) for mark in "xo"}  # a window's other cells

    def moves(self, cells: str) -> list[tuple[int, int]]:
        """``(action, cell filled)`` of each legal move, in actions order."""
        if not self.drops:
            return [(cell, cell) for cell, mark in enumerate(cells) if mark == "."]
        found, columns, last_row = [], self.columns, self.columns * (self.rows - 1)
        for column in range(columns):
            if cells[column] == ".":
                cell = column + last_row
                while cells[cell] != ".":
                    cell -= columns
                found.append((column, cell))
        return found

    def wins(self, cells: str, cell: int, mark: str) -> bool:
        """Whether ``mark`` filling ``cell`` completes a line."""
        return self.runs[mark] in zip(*[iter(self.readers[cell](cells))] * (self.connect - 1))

    def greedy(self, cells: str, mark: str, rng: random.Random) -> int:
        """:func:`greedy_move` on ``cells``, ``mark`` to move."""
        moves = self.moves(cells)
        for action, cell in moves:
            if self.wins(cells, cell, mark):
                return action
        other, last = "o" if mark == "x" else "x", cells.count(".") == 1
        # Whether ``other`` filling a cell wins is the same in every child as in ``cells``
        # but at the cell the move filled (the child's one change: a mark not ``other``'s,
        # where ``cells`` has none either), so each cell is asked once, not once a child.
        threats: dict[int, bool] = {}  # a reply's cell -> whether ``other`` wins there
        safe = []
        for action, cell in moves:
            child = cells[:cell] + mark + cells[cell + 1:]
            replies = [] if last else self.moves(child)  # last: the board full, a draw
            for _, reply in replies:
                if reply not in threats:
                    threats[reply] = self.wins(cells, reply, other)
                if threats[reply]:
                    break  # a reply of theirs wins
            else:
                safe.append(action)
        actions = [action for action, _ in moves]
        return rng.choice(safe if safe and len(safe) < len(actions) else actions)

    def gain(self, cells: str, cell: int, mark: str) -> int:
        """The baseline's change when ``mark`` fills ``cell`` (plus ``COMPLETES``, signed, for
        a line)."""
        return self._windows_sum(self.gains[mark], cells, cell)

    def _windows_sum(self, table: dict[tuple[str, ...], Any], cells: str, cell: int) -> Any:
        """The sum over the windows through ``cell`` of ``table``'s worth of each window's
        other cells (``readers``: the baseline's gains, or the reference's)."""
        return sum(map(table.__getitem__,
                       zip(*[iter(self.readers[cell](cells))] * (self.connect - 1))))

    def changes(self, cells: str, mark: str) -> dict[int, int]:
        """:func:`baseline_changes` on ``cells``, ``mark`` to move."""
        if cells.count(".") == 1:
            return {}  # the one move fills the board: a draw
        found = {}
        for action, cell in self.moves(cells):
            gain = self.gain(cells, cell, mark)
            if -_LINE < gain < _LINE:  # else the mark completed a line
                found[action] = gain
        return found

    def reference_values(self, cells: str, value: float, mark: str, depth: int,
                         found: dict[str, float]) -> None:
        """:func:`reference_values` below ``cells`` (worth ``value``, ``mark`` to move), added
        to ``found``."""
        table, sign = self.reference[mark], 1 if mark == "x" else -1
        for _, cell in self.moves(cells):
            child = cells[:cell] + mark + cells[cell + 1:]
            if self.wins(cells, cell, mark) or "." not in child:
                continue  # the game ends there: a line, or the board full
            worth = value + self._windows_sum(table, cells, cell) + sign * self.halves[cell]
            if depth == 1:
                found[child] = worth
            else:
                self.reference_values(child, worth, "o" if mark == "x" else "x", depth - 1,
                                      found)

    def move(self, game: Any, state: Any, depth: int) -> int:
        cells = "".join(game.board(state))
        value = int(baseline_evaluation(game, state))
        mark, for_max = ("x", True) if game.to_move(state) == MAX else ("o", False)
        empty = cells.count(".")
        killers: dict[int, int] = {}  # depth -> the square whose reply last cut there (this
        # search's own: the instance is shared by every match of the shape, in any thread)
        chosen, best = None, None
        for action, cell in self.moves(cells):
            # search_move's windows: a value no better than best's is not exact, and does
            # not matter
            alpha, beta = (-2 * WIN, 2 * WIN) if best is None else \
                (best, 2 * WIN) if for_max else (-2 * WIN, best)
            got = self.child(cells, value, mark, cell, 1, empty - 1, depth, alpha, beta,
                             killers)
            if best is None or (got > best if for_max else got < best):
                chosen, best = action, got
        return chosen

    def child(self, cells: str, value: int, mark: str, cell: int, level: int, empty: int,
              depth: int, alpha: int, beta: int, killers: dict[int, int]) -> int:
        """The value of the position ``mark`` makes by filling ``cell`` of ``cells`` (worth
        ``value``), at depth ``level``, ``empty`` cells left there; exact when strictly
        between ``alpha`` and ``beta``, else no better than the bound passed."""
        gain = self.gain(cells, cell, mark)
        if gain >= _LINE:
            return WIN - level
        if gain <= -_LINE:
            return level - WIN
        if not empty:
            return 0  # a draw
        if level == depth:
            return value + gain
        return self.node(cells[:cell] + mark + cells[cell + 1:], value + gain,
                         "o" if mark == "x" else "x", level, empty, depth, alpha, beta, killers)

    def node(self, cells: str, value: int, mark: str, level: int, empty: int, depth: int,
             alpha: int, beta: int, killers: dict[int, int]) -> int:
        """The value of the non-terminal ``cells`` (worth ``value``, ``mark`` to move, at
        depth ``level`` < ``depth``, ``empty`` cells empty), as :meth:`child` says."""
        moves = self.moves(cells)
        killer = killers.get(level)
        if killer is not None:
            for place, move in enumerate(moves):
                if move[1] == killer:
                    moves.insert(0, moves.pop(place))
                    break
        maximizing = mark == "x"
        last = level + 1 == depth  # the children are the leaves: valued here, in one loop
        table, readers, others = self.gains[mark].__getitem__, self.readers, self.connect - 1
        won = WIN - level - 1 if maximizing else level + 1 - WIN
        best = None
        for _, cell in moves:
            if last:
                gain = sum(map(table, zip(*[iter(readers[cell](cells))] * others)))
                got = won if gain >= _LINE or gain <= -_LINE else \
                    value + gain if empty > 1 else 0  # the last empty cell: a draw
            else:
                got = self.child(cells, value, mark, cell, level + 1, empty - 1, depth, alpha,
                                 beta, killers)
            if maximizing:
                if best is None or got > best:
                    best = got
                    alpha = max(alpha, got)
            elif best is None or got < best:
                best = got
                beta = min(beta, got)
            if alpha >= beta:
                killers[level] = cell
                break
        return best


__all__ = ["WIN", "baseline_changes", "baseline_move", "greedy_move", "reference_values"]
