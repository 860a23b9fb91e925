"""Tic-tac-toe from any position (and :class:`GridGame`, the board code Connect Four shares).

Rules: ``x`` (MAX) moves first, then ``o`` (MIN), alternately, one mark on an empty square; three
in a row, column or diagonal wins; a full board without a line is a draw. Who moves is derived
from the marks: ``x`` when both have as many, ``o`` when ``x`` has one more.

* State (case file): rows top to bottom joined by ``|``, ``x`` / ``o`` / ``.``, e.g.
  ``"x.o|...|..x"`` (a list of row strings is accepted too); None = the empty board. Impossible
  positions (mark counts off, both players with a line, a line for the player who did not move
  last) raise ``ValueError`` naming the position.
* Actions: square indexes 0..8 in row-major order (``0 1 2 / 3 4 5 / 6 7 8``), the empty squares,
  ascending; none at a terminal position.
* Utility: +1 when ``x`` has a line, -1 when ``o`` has, 0 for a draw.
* Evaluation (depth cutoffs): (lines still open for ``x`` - lines still open for ``o``) / 10, where
  a line is open for a player when the opponent has no mark on it: a multiple of 0.1 in
  [-0.8, 0.8], strictly inside the utilities.
* State ids: the board string, ``"x.o|...|..x"``; ``TicTacToe(state=id)`` rebuilds the position.
  The transposition key (``game.key``) is the id.
* Noisy actions (quiescence): a move that completes the mover's line (wins) or takes the last
  empty cell of a line the opponent would complete (blocks); quiet: none such.
"""

from __future__ import annotations

import re
from functools import lru_cache
from operator import attrgetter, itemgetter
from typing import Any, Callable, NamedTuple

from grader.games.base import MAX, MIN, Game

MEMO_LIMIT = 200_000  # children slots remembered by result() before the memo starts over
POSITION_MEMO = 50_000  # boards whose mover, actions or id a memo keeps before it starts over
UTILITIES = {"x": 1, "o": -1, "": 0}  # a terminal board's utility, by its winner
_cells = attrgetter("cells")
_board = tuple.__new__  # Board(cells, ply, winner) without NamedTuple's Python-level __new__


class Board(NamedTuple):
    """A position: ``cells`` row-major (``x``/``o``/``.``), plies from the case's root, winner."""

    cells: str
    ply: int
    winner: str  # "x", "o" or "" (no line yet)

    def __repr__(self) -> str:
        return f"<board {self.cells}>"


DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # (rows, columns) a step: across, down, diagonals


@lru_cache(maxsize=64)  # a handful of board shapes, asked for at every staff evaluation in play
def grid_lines(rows: int, columns: int, connect: int) -> tuple[tuple[int, ...], ...]:
    """Every run of ``connect`` cells in a row, column or diagonal, as cell indexes."""
    lines = []
    for r in range(rows):
        for c in range(columns):
            for dr, dc in DIRECTIONS:
                last_r, last_c = r + dr * (connect - 1), c + dc * (connect - 1)
                if 0 <= last_r < rows and 0 <= last_c < columns:
                    lines.append(tuple((r + dr * i) * columns + c + dc * i for i in range(connect)))
    return tuple(lines)


@lru_cache(maxsize=64)  # made once a shape: the worker builds a game for every request
def line_segments(rows: int, columns: int, connect: int) -> tuple[tuple[slice, ...], ...]:
    """Per cell: for each direction (along a row, a column, either diagonal) in which a line of
    ``connect`` cells can pass through it, the slice of the cells (row-major) within
    ``connect - 1`` steps of it that way, on both sides: from the first cell to the last of
    the :func:`grid_lines` through it that way. A mark filling the cell makes a line exactly
    when ``connect`` of its marks lie in a row in one of them: any ``connect`` in a row of
    those at most ``2 * connect - 1`` cells include the middle one, the cell itself."""
    spans: list[dict[tuple[int, int], list[int]]] = [{} for _ in range(rows * columns)]
    for line in grid_lines(rows, columns, connect):
        (r0, c0), (r1, c1) = divmod(line[0], columns), divmod(line[1], columns)
        for cell in line:  # a line's cells ascend: the span grows at either end
            span = spans[cell].setdefault((r1 - r0, c1 - c0), [line[0], line[-1]])
            span[0], span[1] = min(span[0], line[0]), max(span[1], line[-1])
    return tuple(tuple(slice(found[direction][0], found[direction][1] + 1,
                             direction[0] * columns + direction[1])
                       for direction in DIRECTIONS if direction in found) for found in spans)


def parse_grid(state: Any, game: str) -> tuple[str, int, int]:
    """``"x.o|...|..x"`` (or a list of rows) -> (cells, rows, columns); ValueError if malformed."""
    rows = state.split("|") if isinstance(state, str) else state
    if (
        not isinstance(rows, (list, tuple))
        or not rows
        or not all(isinstance(row, str) for row in rows)
    ):
        raise ValueError(
            f"{game} position {state!r}: expected rows of equal length joined by '|', "
            "e.g. 'x.o|...|..x'"
        )
    for number, row in enumerate(rows[1:], 2):  # rows counted from 1, top to bottom
        if len(row) != len(rows[0]) or not row:
            raise ValueError(
                f"{game} position {state!r}: row {number} ({row!r}) has {len(row)} cells but "
                f"row 1 ({rows[0]!r}) has {len(rows[0])}; every row needs the same length"
            )
    if not rows[0]:
        raise ValueError(f"{game} position {state!r}: row 1 is empty; give each row its cells")
    cells = "".join(rows)
    unknown = sorted(set(cells) - set("xo."))
    if unknown:
        raise ValueError(f"{game} position {state!r}: unexpected {unknown}; use 'x', 'o' and '.'")
    return cells, len(rows), len(rows[0])


@lru_cache(maxsize=64)
def line_patterns(columns: int, connect: int) -> dict[str, re.Pattern[str]]:
    """Per mark, a pattern found in an id (rows of ``columns`` cells joined by ``|``, so
    ``columns + 1`` characters a row) where that mark has ``connect`` in a line: across,
    down-left, down or down-right, each a step of 1, ``columns``, ``columns + 1`` or
    ``columns + 2`` characters. The ``|`` column stops a row, or a diagonal, from running on
    into the next row. (One search in C: the worker rebuilds each position it evaluates from
    its id, thousands a submission.)"""
    return {mark: re.compile("|".join(mark + ("." * (step - 1) + mark) * (connect - 1)
                                      for step in (1, columns, columns + 1, columns + 2)),
                             re.DOTALL)
            for mark in "xo"}


class GridGame(Game):
    """Two players placing ``x``/``o`` on a grid; ``connect`` in a line wins. Subclasses set where
    a mark may go (:meth:`actions`, :meth:`_square`) and how windows are weighted."""

    NAME = "grid"
    VALUE_RANGE = (-1.0, 1.0)
    trace_key = _cells  # a board's id is its cells' rows joined (state_id)

    def __init__(
        self,
        state: Any,
        rows: int,
        columns: int,
        connect: int,
        *,
        depth_limit: int | None = None,
        value_bounds: tuple[float, float] | None = None,
        max_sum: float | None = None,
    ) -> None:
        self.depth_limit, self.value_bounds, self.max_sum = depth_limit, value_bounds, max_sum
        self.rows, self.columns, self.connect = rows, columns, connect
        self._width = rows * columns  # actions are 0 .. _width - 1
        self._lines = grid_lines(rows, columns, connect)
        self._segments = line_segments(rows, columns, connect)
        self._runs = {mark: mark * connect for mark in "xo"}
        self._id_length = rows * (columns + 1) - 1  # an id's length: rows, "|" between them
        self._bars = "|" * (rows - 1)  # an id's characters between its rows
        # cells -> its rows, in one call (board and ids: asked for at every evaluation in play)
        self._cut_rows = itemgetter(*[slice(i, i + columns)
                                      for i in range(0, rows * columns, columns)])
        self._line_patterns = line_patterns(columns, connect)
        # board -> its children made so far, by action (None: not yet): one lookup a child
        self._memo: dict[Board, list[Board | None]] = {}
        self._empty: dict[str, tuple[int, ...]] = {}  # cells -> the empty squares, ascending
        self._movers: dict[str, int] = {}  # cells -> the player to move (counting marks: slow)
        self._ids: dict[str, str] = {}  # cells -> the board's id (joining rows: slow)
        bound = len(self._lines) * self._window_weight(connect - 1)
        self._scale = 10 ** len(str(bound))  # the power of ten above any |score|
        cells = "." * (rows * columns) if state is None else parse_grid(state, self.NAME)[0]
        self._root = Board(cells, 0, self._check_position(cells, state))

    @classmethod
    def grid_shape(cls, state: Any, rows: int | None, columns: int | None, connect: int,
                   default: int) -> tuple[int, int]:
        """(rows, columns) of a game built from ``state`` (a position, or None) and the params:
        the position's shape, which given params must match; else the params, ``default`` for
        each one missing. ValueError names what is wrong (a shape, a size, ``connect``)."""
        if state is not None:
            _, shape_rows, shape_columns = parse_grid(state, cls.NAME)
            if rows not in (None, shape_rows) or columns not in (None, shape_columns):
                raise ValueError(
                    f"{cls.NAME} position {state!r} has {shape_rows} rows of {shape_columns}, "
                    f"but params ask for rows={rows!r}, columns={columns!r}")
            rows, columns = shape_rows, shape_columns
        rows = default if rows is None else rows
        columns = default if columns is None else columns
        for name, value in (("rows", rows), ("columns", columns), ("connect", connect)):
            if type(value) is not int or value < 1:
                raise ValueError(f"{cls.NAME}: {name} must be a positive integer, got {value!r}")
        if not 2 <= connect <= max(rows, columns):
            raise ValueError(f"{cls.NAME}: connect must be between 2 and max(rows, columns) = "
                             f"{max(rows, columns)}, got {connect!r}")
        return rows, columns

    def _check_position(self, cells: str, state: Any, joined: str | None = None,
                        counts: tuple[int, int] | None = None) -> str:
        """The winner of a given position; ValueError if it cannot arise in play. ``joined``:
        its id, and ``counts``: its x and o marks, when the caller has them (else they are
        made from ``cells``)."""
        x, o = (cells.count("x"), cells.count("o")) if counts is None else counts
        if x not in (o, o + 1):
            raise ValueError(
                f"{self._impossible(state)}: x moves first, so x has as many marks as o or one "
                f"more (x has {x}, o has {o})"
            )
        # the lines found by a pattern of the id (line_patterns: the evaluate assignment
        # rebuilds each position it is asked about from its id, thousands a submission)
        if x < self.connect:  # no line without `connect` marks (and o has at most x's)
            return ""
        joined = self._joined(cells) if joined is None else joined
        lines = self._line_patterns
        x_won = lines["x"].search(joined) is not None
        o_won = o >= self.connect and lines["o"].search(joined) is not None
        if x_won and o_won:
            raise ValueError(f"{self._impossible(state)}: both x and o have a line")
        last = "x" if x > o else "o"
        won = "x" if x_won else "o" if o_won else ""
        if won and won != last:
            raise ValueError(f"{self._impossible(state)}: {won} has a line, but {last} moved "
                             "last")
        return won

    def _impossible(self, state: Any) -> str:
        return f"{self.NAME} position {state!r} is impossible"

    def _window_weight(self, marks: int) -> int:
        return 1  # tic-tac-toe counts open lines

    def _square(self, cells: str, action: int) -> int:
        return action  # the cell a legal action fills

    # --- the interface ------------------------------------------------------------------
    def initial_state(self) -> Board:
        return self._root

    def to_move(self, state: Board) -> int:
        cells = state.cells
        if type(cells) is str:  # a board's: remembered (the search asks at every node)
            mover = self._movers.get(cells)
            if mover is None:
                if len(self._movers) >= POSITION_MEMO:
                    self._movers.clear()
                mover = self._movers[cells] = MAX if cells.count(".") % 2 == len(cells) % 2 else MIN
            return mover
        return MAX if (len(cells) - cells.count(".")) % 2 == 0 else MIN

    def actions(self, state: Board) -> tuple[int, ...]:
        if state.winner:
            return ()
        cells = state.cells
        try:  # boards repeat (see result), so each board's empty squares are found once
            found = self._empty.get(cells)
        except TypeError:  # not a board's string of cells: found the slow way, as before
            found = None
        if found is None:
            found = tuple([i for i, mark in enumerate(cells) if mark == "."])  # a list: quicker
            if type(cells) is str:
                if len(self._empty) >= POSITION_MEMO:
                    self._empty.clear()
                self._empty[cells] = found
        return found

    def result(self, state: Board, action: int) -> Board:
        # Overrides Game.result for speed: an action is legal when nobody has won and it names an
        # empty cell (tic-tac-toe) or a column whose top cell is empty (Connect Four).
        legal = type(action) is int and 0 <= action < self._width and state.cells[action] == "."
        if not legal or state.winner:
            return super().result(state, action)  # the slow path: raises IllegalActionError
        # Boards repeat across move orders (5,478 tic-tac-toe positions in a 549,945-node tree),
        # so children are remembered; the memo is bounded for the larger Connect Four trees.
        children = self._memo.get(state)
        child = None if children is None else children[action]
        if child is None:
            child = self._remember(state, action)
        return child

    def _remember(self, state: Board, action: int) -> Board:
        """The child of a legal action, made and put in the memo."""
        children = self._memo.get(state)
        if children is None:
            if len(self._memo) * self._width >= MEMO_LIMIT:  # about MEMO_LIMIT slots in all
                self._memo.clear()
            children = self._memo[state] = [None] * self._width
        child = children[action] = self._result(state, action)
        return child

    def recording_result(
        self, generated: list[Any], most: float, stop: Callable[[], None]
    ) -> Callable[[Board, int], Board]:
        """:meth:`Game.recording_result` with :meth:`result`'s fast path inlined: one Python
        call a child instead of two (the tracing wrapper's hottest call). Same checks, same
        children, same errors. A subclass with its own ``result`` gets Game's."""
        if type(self).result is not GridGame.result:
            return super().recording_result(generated, most, stop)
        record, memo_get = generated.append, self._memo.get
        remember, checked = self._remember, self.result
        width = self._width

        def result(state: Board, action: int) -> Board:
            if len(generated) >= most:
                stop()
            if type(action) is int and 0 <= action < width and state.cells[action] == "." \
                    and not state.winner:
                children = memo_get(state)
                child = None if children is None else children[action]
                if child is None:
                    child = remember(state, action)
            else:
                child = checked(state, action)  # the slow path: raises IllegalActionError
            record(child)
            return child

        return result

    def recording_score(
        self, name: str, evaluated: list[Any], most: float, stop: Callable[[], None]
    ) -> Callable[[Board], Any]:
        """:meth:`Game.recording_score` with the terminal fast path of :meth:`utility` and
        :meth:`evaluate` inlined: one Python call a leaf instead of two. Same values, same
        errors (the other states go to the checked method). A subclass with its own
        ``utility`` or ``evaluate`` gets Game's."""
        checked = getattr(self, name)
        if getattr(type(self), name) is not getattr(GridGame, name):
            return super().recording_score(name, evaluated, most, stop)
        record = evaluated.append

        def score(state: Board) -> Any:
            if len(evaluated) >= most:
                stop()
            if state.winner or "." not in state.cells:
                value = UTILITIES[state.winner]
            else:
                value = checked(state)  # not terminal: NotTerminalError, or the heuristic
            record(state)
            return value

        return score

    def _noisy_actions(self, state: Board) -> tuple[int, ...]:
        """Quiescence: the moves that complete a line for the mover (a win) or fill the one
        empty cell of a line the opponent would complete next (a block)."""
        cells = state.cells
        mine = "x" if self.to_move(state) == MAX else "o"
        noisy = []
        for action in self.actions(state):
            square = self._square(cells, action)
            for line in self._lines:
                if square in line:
                    others = {cells[i] for i in line if i != square}
                    if others == {mine} or others == {"o" if mine == "x" else "x"}:
                        noisy.append(action)
                        break
        return tuple(noisy)

    def _result(self, state: Board, action: int) -> Board:
        cells = state.cells
        square = self._square(cells, action)
        mark = "x" if self.to_move(state) == MAX else "o"
        cells = cells[:square] + mark + cells[square + 1 :]
        run = self._runs[mark]
        for segment in self._segments[square]:  # a search in C a direction (line_segments)
            if run in cells[segment]:
                return _board(Board, (cells, state.ply + 1, mark))
        return _board(Board, (cells, state.ply + 1, ""))

    def is_terminal(self, state: Board) -> bool:
        return bool(state.winner) or "." not in state.cells

    # is_cutoff, utility and evaluate: Game's, with is_terminal inlined (they run at every node
    # a search visits); the non-terminal cases go to Game's for its checks and messages.
    def is_cutoff(self, state: Board, depth: int) -> bool:
        if state.winner or "." not in state.cells:
            return True
        return self.depth_limit is not None and depth >= self.depth_limit

    def utility(self, state: Board) -> int:
        if state.winner or "." not in state.cells:
            return UTILITIES[state.winner]
        return super().utility(state)  # raises NotTerminalError

    def evaluate(self, state: Board) -> float:
        if state.winner or "." not in state.cells:
            return UTILITIES[state.winner]
        return super().evaluate(state)

    def _utility(self, state: Board) -> int:
        return UTILITIES[state.winner]

    def _heuristic(self, state: Board) -> float:
        score = 0
        for line in self._lines:
            marks = [state.cells[i] for i in line]
            if "o" not in marks:
                score += self._window_weight(marks.count("x"))
            if "x" not in marks:
                score -= self._window_weight(marks.count("o"))
        return score / self._scale

    def state_id(self, state: Board) -> str:
        cells = state.cells
        if type(cells) is not str:
            return self._joined(cells)
        found = self._ids.get(cells)  # remembered: traces and play ask for ids over and over
        if found is None:
            if len(self._ids) >= POSITION_MEMO:
                self._ids.clear()
            found = self._ids[cells] = self._joined(cells)
        return found

    def _joined(self, cells: str) -> str:
        """The rows of ``cells``, top to bottom, joined by ``|``."""
        if len(cells) == self.rows * self.columns and self.rows > 1:  # else a str, not rows
            return "|".join(self._cut_rows(cells))
        n = self.columns
        return "|".join(cells[i : i + n] for i in range(0, len(cells), n))

    def state_ids(self, states: list[Board]) -> list[str]:
        """``[state_id(s) for s in states]``, each distinct board's id made once (a trace
        repeats boards: 5,478 positions in a 549,945-child tic-tac-toe search)."""
        try:
            ids = {cells: None for cells in map(_cells, states)}
        except (TypeError, AttributeError):  # not boards the game made: one at a time
            return [self.state_id(state) for state in states]
        known, joined = self._ids.get, self._joined
        for cells in ids:
            ids[cells] = known(cells) or joined(cells)
        return list(map(ids.__getitem__, map(_cells, states)))

    def depth_of(self, state: Board) -> int:
        return state.ply

    def board(self, state: Board) -> tuple[str, ...]:
        """The position's rows, top to bottom, each a string of ``x`` / ``o`` / ``.``."""
        cells = state.cells
        if len(cells) == self.rows * self.columns and self.rows > 1:
            return self._cut_rows(cells)
        n = self.columns
        return tuple(cells[i : i + n] for i in range(0, len(cells), n))

    def state_from_id(self, state_id: str) -> Board:
        """The position whose id is ``state_id`` (a board string of this game's shape), its ply
        counted from the empty board; ValueError when it is malformed or cannot arise in play."""
        columns = self.columns
        if type(state_id) is str and len(state_id) == self._id_length \
                and state_id[columns::columns + 1] == self._bars:
            # the ids the grader sends: this shape's rows, "|" between them, only there
            cells = state_id.replace("|", "")
            x, o = cells.count("x"), cells.count("o")
            if len(cells) == self.rows * columns and x + o + cells.count(".") == len(cells):
                self._check_shape(state_id, cells)
                return _board(Board, (cells, x + o,
                                      self._check_position(cells, state_id, state_id, (x, o))))
        # anything else: parsed in full (the same position, or the error naming the fault)
        cells, rows, columns = parse_grid(state_id, self.NAME)
        if (rows, columns) != (self.rows, self.columns):
            raise ValueError(f"{self.NAME} position {state_id!r}: expected {self.rows} rows of "
                             f"{self.columns}, got {rows} rows of {columns}")
        self._check_shape(state_id, cells)
        return Board(cells, len(cells) - cells.count("."), self._check_position(cells, state_id))

    def _check_shape(self, state: Any, cells: str) -> None:
        """Rules of a position beyond the marks' counts (Connect Four: gravity)."""

    def describe(self, state: Board) -> str:
        return f"{self.NAME} position {self.state_id(state)!r}"


class TicTacToe(GridGame):
    """3x3, three in a row; see the module docstring."""

    NAME = "tic-tac-toe"

    def __init__(self, state: Any = None, **options: Any) -> None:
        """``options``: ``depth_limit``, ``value_bounds``, ``max_sum`` (see :class:`Game`)."""
        if state is not None:
            _, rows, columns = parse_grid(state, self.NAME)
            if (rows, columns) != (3, 3):
                raise ValueError(
                    f"{self.NAME} position {state!r}: expected 3 rows of 3, "
                    f"got {rows} rows of {columns}"
                )
        super().__init__(state, 3, 3, 3, **options)
