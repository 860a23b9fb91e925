"""Chase: a small Pacman on a grid, the game of the lectures' "modeling assumptions".

Rules: an agent (``P``, MAX) and a ghost (``G``) move in turn on a grid of open squares and
walls, the agent first; food (``o``) lies on some squares. Each move goes one square north,
south, east or west onto an open square (the ghost may not stay; the agent neither). The score
is the lectures' Pacman score:

* every agent move costs ``TIME_COST`` (1) point;
* eating food (the agent moving onto it) earns ``FOOD_POINTS`` (10);
* eating the last food earns ``WIN_POINTS`` (500) and ends the game: the agent has won;
* the agent and the ghost on one square (either moving onto the other) costs
  ``CAUGHT_POINTS`` (500) and ends the game: the agent has lost;
* after ``turns`` agent moves (param, default 20), once the ghost has replied, the game ends
  with neither (so the game is bounded).

Who the ghost is, is the *searching agent's assumption*: the param ``ghost`` types the ghost's
node ``"min"`` (``MIN``: an adversary, the minimax agent's model, the default) or ``"chance"``
(``CHANCE``: each legal move with the same probability, the expectimax agent's model). The
positions, moves and scores are the same under both; only ``to_move`` (and so the value a
search backs up) differs.

* Actions: the agent's and the ghost's legal moves among ``("N", "S", "E", "W")``, in that
  order (a CHANCE ghost's outcomes in the same order, each ``1 / count``).
* Utility (for MAX): the score at the end. Evaluation at a depth cutoff: the score, minus
  the maze distance from the agent to the nearest food (so nearer food is better).
* State (case file): the board, rows top to bottom joined by ``|``: ``#`` wall, ``.`` open,
  ``o`` food, ``P`` the agent, ``G`` the ghost (``g``: the ghost on food), e.g.
  ``"o.P.o|.#.#.|o.G.o"`` (the agent to move, score 0, no move made). A state id adds
  ``|<mover>,<score>,t<agent moves made>``: ``"o.P.o|.#.#.|o.G.o|ghost,-1,t1"``; at the end
  the square of a caught agent is ``X``. ``Chase(state=id)`` rebuilds the position.
* Depth cutoffs: plies from the case's root (every move, the ghost's included, is one).
"""

from __future__ import annotations

import re
from collections import deque
from functools import lru_cache
from typing import Any, NamedTuple

from grader.games.base import CHANCE, MAX, MIN, Game

TIME_COST = 1
FOOD_POINTS = 10
WIN_POINTS = 500
CAUGHT_POINTS = 500
MOVES = (("N", -1, 0), ("S", 1, 0), ("E", 0, 1), ("W", 0, -1))  # (action, row step, col step)
GHOST_KINDS = ("min", "chance")
MOVER_NAMES = {MAX: "pac", MIN: "ghost"}
STATUS = re.compile(r"(pac|ghost),(-?\d+),t(\d+)")
BOARD_CHARS = set("#.oPGgX")


class Position(NamedTuple):
    """A position: the squares (indexes row by row) of the agent, the ghost and the food."""

    pac: int
    ghost: int
    food: frozenset[int]
    mover: int  # MAX (the agent) or MIN (the ghost, whatever its node is typed)
    score: int
    turn: int  # agent moves made
    ply: int  # plies from the case's root

    def __repr__(self) -> str:
        return f"<chase pac {self.pac} ghost {self.ghost} food {sorted(self.food)} {self.score}>"


def _layout(rows: int, columns: int, walls: frozenset[int]
            ) -> tuple[tuple[tuple[tuple[str, int], ...], ...], tuple[tuple[int, ...], ...]]:
    """The moves from each square (``(action, square)`` in ``MOVES`` order) and the maze
    distance between every two squares (a large number between unconnected ones). Made once
    a board: its one caller, :func:`_shared_layout`, is cached."""
    squares = rows * columns
    moves = []
    for square in range(squares):
        row, column = divmod(square, columns)
        here = []
        for action, step_row, step_column in MOVES:
            r, c = row + step_row, column + step_column
            if 0 <= r < rows and 0 <= c < columns and r * columns + c not in walls:
                here.append((action, r * columns + c))
        moves.append(tuple(here))
    far = squares + 1
    distances = []
    for start in range(squares):
        seen = [far] * squares
        if start not in walls:
            seen[start] = 0
            queue = deque([start])
            while queue:
                square = queue.popleft()
                for _, nxt in moves[square]:
                    if seen[nxt] == far:
                        seen[nxt] = seen[square] + 1
                        queue.append(nxt)
        distances.append(tuple(seen))
    return tuple(moves), tuple(distances)


class Layout(NamedTuple):
    """What a board's size and walls decide, shared by every position on it."""

    moves: tuple[tuple[tuple[str, int], ...], ...]  # per square: (action, square), MOVES order
    distances: tuple[tuple[int, ...], ...]  # maze distances (_layout)
    actions: tuple[tuple[str, ...], ...]  # per square: its actions (what actions looks up)
    targets: tuple[dict[str, int], ...]  # per square: action -> square (what result looks up)
    blank: tuple[str, ...]  # the squares without pieces or food: ``#`` or ``.``


@lru_cache(maxsize=64)
def _shared_layout(rows: int, columns: int, walls: frozenset[int]) -> Layout:
    """The :class:`Layout` of these walls: one cache lookup a game (a game is built for every
    position the grader sends the worker, on each side)."""
    moves, distances = _layout(rows, columns, walls)
    return Layout(moves, distances, tuple(tuple(action for action, _ in here) for here in moves),
                 tuple(dict(here) for here in moves),
                 tuple("#" if i in walls else "." for i in range(rows * columns)))


# A board's pieces and food found by the C scanners of ``re``, and its squares with them taken
# off by ``str.translate``, not by Python loops over every square (a game is built for every
# position a batch searches: see _shared_layout).
AGENT_SQUARES, GHOST_SQUARES = re.compile("[PX]"), re.compile("[GgX]")
FOOD_SQUARES = re.compile("[og]")
PIECES_OFF = str.maketrans("oPGgX", ".....")


@lru_cache(maxsize=64)
def _walls(squares: str) -> tuple[frozenset[int], tuple[str, ...]]:
    """The walls of a board's ``squares`` (its pieces off: :data:`PIECES_OFF`) and the
    characters in it that are no square's, sorted. Cached: every position of a board gives
    the same frozenset, whose hash is then kept (_shared_layout's key)."""
    return (frozenset(i for i, ch in enumerate(squares) if ch == "#"),
            tuple(sorted(set(squares) - BOARD_CHARS)))


def parse_board(text: str) -> tuple[int, int, frozenset[int], dict[str, Any]]:
    """``rows|...|rows[|mover,score,tN]`` -> (rows, columns, walls, position fields); a
    ValueError that names the state and what is wrong."""
    if not isinstance(text, str):
        raise ValueError(f"chase board {text!r}: expected a string of rows joined by '|'")
    parts = text.split("|")
    status = STATUS.fullmatch(parts[-1]) if parts else None
    if status:
        parts = parts[:-1]
    if not parts or any(not row for row in parts) or len({len(row) for row in parts}) != 1:
        raise ValueError(f"chase board {text!r}: expected rows of equal length joined by '|'")
    rows, columns = len(parts), len(parts[0])
    cells = "".join(parts)
    walls, bad = _walls(cells.translate(PIECES_OFF))
    if bad:
        raise ValueError(f"chase board {text!r}: unknown square {bad[0]!r}; squares are "
                         "# (wall) . (open) o (food) P (agent) G (ghost) g (ghost on food)")
    agents = [found.start() for found in AGENT_SQUARES.finditer(cells)]
    ghosts = [found.start() for found in GHOST_SQUARES.finditer(cells)]
    if len(agents) != 1 or len(ghosts) != 1:
        raise ValueError(f"chase board {text!r}: expected one agent (P) and one ghost (G or g), "
                         f"got {len(agents)} and {len(ghosts)}")
    food = frozenset(found.start() for found in FOOD_SQUARES.finditer(cells))
    mover, score, turn = (MAX, 0, 0) if not status else (
        MAX if status.group(1) == "pac" else MIN, int(status.group(2)), int(status.group(3)))
    return rows, columns, walls, {"pac": agents[0], "ghost": ghosts[0], "food": food,
                                  "mover": mover, "score": score, "turn": turn}


def _parse(text: Any) -> tuple[int, int, frozenset[int], Position]:
    """:func:`parse_board`'s answer with the position as a root's (ply 0)."""
    rows, columns, walls, fields = parse_board(text)
    return rows, columns, walls, Position(ply=0, **fields)


# Each position parsed once a process, its answer immutable (a failure is not kept): a game is
# built for every position the grader sends the worker, in each, and the two agents' tests of a
# board search the same positions (the expectimax agent's ghost typed CHANCE, the minimax
# agent's MIN: the ids are the same). Each game still gets a root of its own (Chase).
_parsed = lru_cache(maxsize=4096)(_parse)


class Chase(Game):
    """See the module docstring."""

    def __init__(
        self,
        state: Any = None,
        *,
        ghost: str = "min",
        turns: int = 20,
        depth_limit: int | None = None,
        value_bounds: tuple[float, float] | None = None,
        max_sum: float | None = None,
    ) -> None:
        if ghost not in GHOST_KINDS:
            raise ValueError(f"chase: ghost must be one of {GHOST_KINDS}, got {ghost!r}")
        if type(turns) is not int or not 1 <= turns <= 200:
            raise ValueError(f"chase: turns must be an integer from 1 to 200, got {turns!r}")
        self.ghost, self.turns = ghost, turns
        self.depth_limit, self.value_bounds, self.max_sum = depth_limit, value_bounds, max_sum
        text = "P.o|...|o.G" if state is None else state
        self.rows, self.columns, self.walls, root = (
            _parsed(text) if type(text) is str else _parse(text))
        # per square: its moves, distances, actions and action -> square, and the blank board
        self._moves, self._distances, self._actions, self._targets, self._blank = _shared_layout(
            self.rows, self.columns, self.walls)
        for square, name in ((root.pac, "agent"), (root.ghost, "ghost")):
            if not self._moves[square]:
                raise ValueError(f"chase board {state!r}: the {name} is walled in (no open "
                                 "square next to it)")
        self._root = Position(*root)  # its own object: a state is never shared between games

    # --- the game ---------------------------------------------------------------------------
    def initial_state(self) -> Position:
        return self._root

    def to_move(self, state: Position) -> int | str:
        if state.mover == MIN and self.ghost == "chance":
            return CHANCE
        return state.mover

    def actions(self, state: Position) -> tuple[str, ...]:
        if self.is_terminal(state):
            return ()
        return self._actions[state.pac if state.mover == MAX else state.ghost]

    def _result(self, state: Position, action: str) -> Position:
        pac, ghost, food, mover, score, turn, ply = state
        if mover == MIN:
            target = self._targets[ghost][action]  # legal: result() checked it
            return Position(pac, target, food, MAX,
                            score - (CAUGHT_POINTS if target == pac else 0), turn, ply + 1)
        target = self._targets[pac][action]
        score -= TIME_COST
        if target == ghost:
            score -= CAUGHT_POINTS
        elif target in food:
            food = food - {target}
            score += FOOD_POINTS + (0 if food else WIN_POINTS)
        return Position(target, ghost, food, MIN, score, turn + 1, ply + 1)

    def is_terminal(self, state: Position) -> bool:
        return (state.pac == state.ghost or not state.food
                or (state.mover == MAX and state.turn >= self.turns))

    def _utility(self, state: Position) -> int:
        return state.score

    def _heuristic(self, state: Position) -> int:
        distances = self._distances[state.pac]
        return state.score - min(distances[square] for square in state.food)

    def _chance_outcomes(self, state: Position) -> list[tuple[str, float]]:
        actions = self.actions(state)
        return [(action, 1 / len(actions)) for action in actions]

    # --- ids and views ----------------------------------------------------------------------
    def outcome(self, state: Position) -> str:
        """``win`` (every food eaten), ``loss`` (caught) or ``draw`` (out of turns), at the end."""
        if state.pac == state.ghost:
            return "loss"
        return "win" if not state.food else "draw"

    def board(self, state: Position) -> list[str]:
        """The board's rows, as the state id writes them."""
        cells = list(self._blank)
        for square in state.food:
            cells[square] = "o"
        cells[state.ghost] = "g" if state.ghost in state.food else "G"
        cells[state.pac] = "X" if state.pac == state.ghost else "P"
        return ["".join(cells[r * self.columns:(r + 1) * self.columns]) for r in range(self.rows)]

    def state_id(self, state: Position) -> str:
        return (f"{'|'.join(self.board(state))}|{MOVER_NAMES[state.mover]},{state.score},"
                f"t{state.turn}")

    def state_from_id(self, state_id: str) -> Position:
        """The position ``state_id`` names, at ply 0 (the root of a search from it)."""
        rows, columns, walls, root = _parsed(state_id)
        if (rows, columns, walls) != (self.rows, self.columns, self.walls):
            raise ValueError(f"chase: {state_id!r} is not a position of this board")
        return Position(*root)  # its own object, as a game's root is

    def maze_distance(self, first: int, second: int) -> int:
        """Moves between two squares (indexes row by row) around the walls; a number larger
        than the board's squares when none leads there."""
        return self._distances[first][second]

    def open_squares(self) -> list[int]:
        """The squares that are not walls and have an open square next to them."""
        return [i for i in range(self.rows * self.columns)
                if i not in self.walls and self._moves[i]]

    def with_ghost(self, ghost: str) -> Chase:
        """This game with the ghost's node typed ``ghost`` (``min`` or ``chance``)."""
        return Chase(self.state_id(self._root), ghost=ghost, turns=self.turns,
                     depth_limit=self.depth_limit)

    def depth_of(self, state: Position) -> int:
        return state.ply

    def describe(self, state: Position) -> str:
        return f"chase position {self.state_id(state)!r}"


__all__ = ["CAUGHT_POINTS", "Chase", "FOOD_POINTS", "GHOST_KINDS", "Position", "TIME_COST",
           "WIN_POINTS", "parse_board"]
