"""A match of a grid game replayed and drawn as a board: the one drawing piece of play reports.

:func:`replay_match` rebuilds a match from its record (``grader.feedback.records.records_data``:
``initial`` + ``moves``, or the first version's ``positions``), with no game model, answer key
or reference: Connect Four's marks fall to the lowest empty cell of the column played, the
m,n,k-game's and tic-tac-toe's go on the square played. :func:`board_svg` draws the position
after any number of moves: Connect Four as columns of discs, the other games as a grid of
crosses and rings; the last move is dotted, the line that ended the match is struck through,
and at the student's losing choice the two candidate moves are ringed (the student's dashed
orange, "you"; the staff evaluation's solid blue, "staff": the trace report's colours). Every
cell carries ``data-cell`` and its mark as a class, so ``report.js`` steps the same picture
through the match.

A record is data read from a results file: anything malformed raises :class:`MatchError`,
whose message names the match and the fault, and the caller draws the rest of the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape
from itertools import pairwise
from typing import Any

DROP_GAMES = {"connect4"}  # an action is a column; the others' actions are squares
PLACE_GAMES = {"mnk", "tictactoe"}
MAX_CELLS = 400  # a board larger than this is not drawn
MAX_MOVES = 1_000
CELL = 40  # px
TOP, LEFT = 20, 26  # px: the column numbers above, the row starts beside (squares only)
_GRID = re.compile(r"^[xo.]+(\|[xo.]+)*$")


class MatchError(ValueError):
    """A match record the report cannot replay; the message says which and why."""


@dataclass
class Match:
    """A replayed match: the board's shape, the cells (row-major ``x``/``o``/``.``) before the
    first move, each move as ``(mark, action, cell)``, and the line that ended it."""

    rows: int
    columns: int
    drop: bool
    initial: str
    moves: list[tuple[str, Any, int]] = field(default_factory=list)
    win: list[int] = field(default_factory=list)

    def cells_at(self, step: int) -> str:
        """The board after ``step`` moves."""
        cells = list(self.initial)
        for mark, _, cell in self.moves[:step]:
            cells[cell] = mark
        return "".join(cells)

    def position(self, step: int) -> str:
        """The board after ``step`` moves as a state id (rows joined by ``|``)."""
        cells, n = self.cells_at(step), self.columns
        return "|".join(cells[i:i + n] for i in range(0, len(cells), n))

    def cell_of(self, step: int, action: Any) -> int | None:
        """The cell ``action`` fills on the board after ``step`` moves (None: not legal)."""
        return _cell(self.cells_at(step), self.columns, self.drop, action)

    @property
    def unit(self) -> str:
        return "column" if self.drop else "square"


def _cell(cells: str, columns: int, drop: bool, action: Any) -> int | None:
    if type(action) is not int:
        return None
    if drop:
        if not 0 <= action < columns or cells[action] != ".":
            return None
        cell = action
        while cell + columns < len(cells) and cells[cell + columns] == ".":
            cell += columns
        return cell
    return action if 0 <= action < len(cells) and cells[action] == "." else None


def _grid(text: Any, where: str) -> tuple[str, int, int]:
    if not isinstance(text, str) or not _GRID.match(text):
        raise MatchError(f"{where}: expected a board of rows of x, o and . joined by '|', got "
                         f"{str(text)[:60]!r}")
    rows = text.split("|")
    if len({len(row) for row in rows}) != 1 or len(rows) * len(rows[0]) > MAX_CELLS:
        raise MatchError(f"{where}: expected rows of one length, at most {MAX_CELLS} cells")
    return "".join(rows), len(rows), len(rows[0])


def replay_match(record: Any) -> Match:
    """The match of ``record`` replayed (module docstring); :class:`MatchError` if it cannot."""
    if not isinstance(record, dict):
        raise MatchError(f"a match record must be an object, got {type(record).__name__}")
    where = f"match {_number(record)}"
    moves = record.get("moves")
    if not isinstance(moves, list) or len(moves) > MAX_MOVES or not all(
            isinstance(m, list) and len(m) == 2 and m[0] in ("x", "o") for m in moves):
        raise MatchError(f"{where}: expected 'moves' as a list of [mark, action]")
    if "initial" in record:
        game = record.get("game")
        if game not in DROP_GAMES | PLACE_GAMES:
            raise MatchError(f"{where}: cannot draw the game {str(game)[:40]!r}")
        cells, rows, columns = _grid(record["initial"], where)
        match = Match(rows, columns, game in DROP_GAMES, cells)
        for number, (mark, action) in enumerate(moves, 1):
            cell = _cell(match.cells_at(number - 1), columns, match.drop, action)
            if cell is None:
                raise MatchError(f"{where}: move {number} ({mark} plays {action!r}) is not "
                                 "legal on the board before it")
            match.moves.append((mark, action, cell))
    else:  # the first version: the position before each move, then the last
        positions = record.get("positions")
        if not isinstance(positions, list) or len(positions) != len(moves) + 1:
            raise MatchError(f"{where}: expected 'initial', or one position more than moves")
        boards = [_grid(p, f"{where}, position {i + 1}") for i, p in enumerate(positions)]
        cells, rows, columns = boards[0]
        changed = []
        for number, ((before, *_), (after, *shape)) in enumerate(pairwise(boards), 1):
            diff = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
            if shape != [rows, columns] or len(diff) != 1 or before[diff[0]] != ".":
                raise MatchError(f"{where}: position {number + 1} is not one mark more than "
                                 f"position {number}")
            changed.append(diff[0])
        drop = any(action != cell for (_, action), cell in zip(moves, changed))
        match = Match(rows, columns, drop, cells,
                      [(mark, action, cell) for (mark, action), cell in zip(moves, changed)])
    connect = record.get("connect")
    if record.get("outcome") in ("win", "loss") and match.moves:
        match.win = winning_line(match, connect if type(connect) is int else None)
    return match


def _number(record: dict) -> str:
    index = record.get("index")
    return str(index + 1) if type(index) is int else "?"


def winning_line(match: Match, connect: int | None) -> list[int]:
    """The cells of the line through the last move that ended the match (its longest one;
    at least ``connect`` long, or 3 when that is not known), in order; [] when there is none."""
    cells = match.cells_at(len(match.moves))
    mark, _, last = match.moves[-1]
    row, column = divmod(last, match.columns)
    best: list[int] = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        line = [last]
        for sign in (1, -1):
            r, c = row + sign * dr, column + sign * dc
            while 0 <= r < match.rows and 0 <= c < match.columns and \
                    cells[r * match.columns + c] == mark:
                line.append(r * match.columns + c)
                r, c = r + sign * dr, c + sign * dc
        if len(line) > len(best):
            best = line
    return sorted(best) if len(best) >= (connect or 3) else []


def _centre(match: Match, cell: int) -> tuple[int, int]:
    row, column = divmod(cell, match.columns)
    left = 6 if match.drop else LEFT
    return left + column * CELL + CELL // 2, TOP + row * CELL + CELL // 2


def board_svg(match: Match, step: int, choice: tuple[int, dict[str, int]] | None = None,
              label: str = "") -> str:
    """The board after ``step`` moves as inline SVG (module docstring). ``choice``: the step
    of the losing choice and the cells of the two moves compared there, ``{"yours": c,
    "staff": c}``, ringed (class ``on``) when the picture is at that step; the winning line is
    drawn (``on``) at the end. ``report.js`` moves both marks as it steps."""
    cells = match.cells_at(step)
    left = 6 if match.drop else LEFT
    width, height = left + match.columns * CELL + 6, TOP + match.rows * CELL + 6
    lit = ""
    kind = "drop" if match.drop else "place"
    parts = [f'<svg class="board {kind}" xmlns="http://www.w3.org/2000/svg" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{escape(label, quote=True)}">']
    if match.drop:
        parts.append(f'<rect class="frame" x="2" y="{TOP - 4}" width="{width - 4}" '
                     f'height="{match.rows * CELL + 8}" rx="8"/>')
    for column in range(match.columns):  # the actions' names: columns, or squares by row
        x = left + column * CELL + CELL // 2
        parts.append(f'<text class="coord" x="{x}" y="{TOP - 7}">{column}</text>')
    if not match.drop:
        for row in range(match.rows):
            y = TOP + row * CELL + CELL // 2 + 4
            parts.append(f'<text class="coord" x="{LEFT - 5}" y="{y}" text-anchor="end">'
                         f"{row * match.columns}</text>")
    if not match.drop:  # the squares: one white board ruled into cells
        grid = "".join(f"M{LEFT},{TOP + r * CELL}h{match.columns * CELL}"
                       for r in range(match.rows + 1))
        grid += "".join(f"M{LEFT + c * CELL},{TOP}v{match.rows * CELL}"
                        for c in range(match.columns + 1))
        parts.append(f'<rect class="squares" x="{LEFT}" y="{TOP}" width="{match.columns * CELL}" '
                     f'height="{match.rows * CELL}"/><path class="rules" d="{grid}"/>')
    if match.moves:  # under the marks: a square lit, or a dot on the disc (drawn after)
        x, y = _centre(match, match.moves[max(step, 1) - 1][2])
        shape = '<circle r="4.5"/>' if match.drop else \
            '<rect x="-19" y="-19" width="38" height="38"/>'
        off = "" if step else " off"
        lit = f'<g class="lastmark{off}" transform="translate({x},{y})">{shape}</g>'
        parts.append("" if match.drop else lit)
    glyph = ('<circle r="15"/>' if match.drop else
             '<path d="M-11-11l22 22m0-22l-22 22"/><circle r="11"/>')
    for cell, mark in enumerate(cells):
        x, y = _centre(match, cell)
        css = "cell" + ("" if mark == "." else f" {mark}")
        won = ""
        if cell in match.win:
            won = ' data-won="1"'
            css += " won" if step == len(match.moves) else ""
        parts.append(f'<g class="{css}" data-cell="{cell}"{won} transform="translate({x},{y})">'
                     f"{glyph}</g>")
    if match.win:
        (x1, y1), (x2, y2) = _centre(match, match.win[0]), _centre(match, match.win[-1])
        on = " on" if step == len(match.moves) else ""
        parts.append(f'<g class="winline{on}"><line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" '
                     f'class="under"/><line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/></g>')
    if match.drop:  # the last disc's dot over the line through it
        parts.append(lit)
    at, candidates = choice or (None, {})
    for who, cell in candidates.items():
        x, y = _centre(match, cell)
        word = "you" if who == "yours" else "staff"
        on = " on" if step == at else ""
        parts.append(f'<g class="cand {who}{on}" data-cell="{cell}" transform="translate({x},{y})">'
                     f'<circle class="halo" r="18"/><circle class="ring" r="18"/>'
                     f'<text y="4">{word}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
