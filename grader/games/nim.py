"""Nim from any position.

Rules: piles of objects; the player to move takes one or more objects from one pile. Normal play:
whoever takes the last object wins. With ``misere: true``: whoever takes the last object loses.
MAX and MIN alternate.

* State (case file): a list of pile sizes, MAX to move (``[1, 2, 3]``); or
  ``{"piles": [1, 2, 3], "to_move": "max" | "min"}``; or a state id (``"1-2-3|min"``; without
  ``|...``, MAX to move). Empty
  piles may appear and keep their index. None = ``[1, 2, 3]``, MAX to move.
* Params: ``misere`` (bool, default false).
* Actions: strings ``"p<pile>-<count>"``: ``"p0-2"`` takes 2 objects from pile 0. Ordered by pile,
  then count ascending: ``["p0-1", "p1-1", "p1-2", ...]`` for piles ``[1, 2]``; none at the end.
* Utility: +1 if MAX wins, -1 if MIN wins (terminal: every pile empty; in normal play the player
  to move there has lost, in misere play that player has won).
* Evaluation (depth cutoffs): +0.5 or -0.5 from the nim-sum (the XOR of the piles): a non-zero
  nim-sum is good for the player to move (in misere play, when no pile has more than one object,
  an even number of non-empty piles is), so +0.5 if that is MAX, -0.5 if it is MIN; and the
  opposite when the nim-sum says the mover is losing. Under perfect play the sign is exact.
* State ids: the pile sizes joined by ``-``, ``|``, the player to move: ``"1-2-3|max"``;
  ``Nim(state=id)`` rebuilds the position.
"""

from __future__ import annotations

from functools import reduce
from operator import xor
from typing import Any, NamedTuple

from grader.games.base import MAX, MIN, Game

PLAYER_NAMES = {MAX: "max", MIN: "min"}


class Piles(NamedTuple):
    """A position: the pile sizes, the player to move, plies from the case's root."""

    piles: tuple[int, ...]
    mover: int
    ply: int

    def __repr__(self) -> str:
        return f"<piles {'-'.join(map(str, self.piles))}|{PLAYER_NAMES[self.mover]}>"


def parse_nim(state: Any) -> tuple[tuple[int, ...], int]:
    """A case's ``state`` -> (piles, player to move); ValueError naming the state if malformed."""
    piles, mover = state, "max"
    if isinstance(state, str):
        text, bar, mover = state.partition("|")
        mover = mover if bar else "max"
        piles = [int(size) if size.isdigit() else size for size in text.split("-")]
    elif isinstance(state, dict) and set(state) <= {"piles", "to_move"} and "piles" in state:
        piles, mover = state["piles"], state.get("to_move", "max")
    if (
        not isinstance(piles, (list, tuple))
        or not piles
        or not all(type(size) is int and size >= 0 for size in piles)
    ):
        raise ValueError(
            f"nim position {state!r}: expected a list of pile sizes (integers >= 0), "
            '{"piles": [...], "to_move": "max" | "min"} or an id like "1-2-3|max"'
        )
    if mover not in ("max", "min"):
        raise ValueError(f"nim position {state!r}: to_move must be 'max' or 'min', got {mover!r}")
    return tuple(piles), MAX if mover == "max" else MIN


class Nim(Game):
    """See the module docstring."""

    VALUE_RANGE = (-1.0, 1.0)

    def __init__(
        self,
        state: Any = None,
        *,
        misere: bool = False,
        depth_limit: int | None = None,
        value_bounds: tuple[float, float] | None = None,
        max_sum: float | None = None,
    ) -> None:
        if misere is not True and misere is not False:
            raise ValueError(f"nim: misere must be true or false, got {misere!r}")
        self.misere = misere
        self.depth_limit, self.value_bounds, self.max_sum = depth_limit, value_bounds, max_sum
        piles, mover = parse_nim([1, 2, 3] if state is None else state)
        self._root = Piles(piles, mover, 0)

    def initial_state(self) -> Piles:
        return self._root

    def to_move(self, state: Piles) -> int:
        return state.mover

    def actions(self, state: Piles) -> tuple[str, ...]:
        piles = enumerate(state.piles)
        return tuple(f"p{i}-{count}" for i, size in piles for count in range(1, size + 1))

    def _result(self, state: Piles, action: str) -> Piles:
        pile, count = map(int, action[1:].split("-"))
        piles = list(state.piles)
        piles[pile] -= count
        return Piles(tuple(piles), 1 - state.mover, state.ply + 1)

    def is_terminal(self, state: Piles) -> bool:
        return not any(state.piles)

    def _utility(self, state: Piles) -> int:
        mover_wins = self.misere  # the player to move at the end did not take the last object
        return 1 if mover_wins == (state.mover == MAX) else -1

    def _heuristic(self, state: Piles) -> float:
        if self.misere and max(state.piles) <= 1:
            mover_wins = sum(state.piles) % 2 == 0
        else:
            mover_wins = reduce(xor, state.piles) != 0
        return 0.5 if mover_wins == (state.mover == MAX) else -0.5

    def state_id(self, state: Piles) -> str:
        return f"{'-'.join(map(str, state.piles))}|{PLAYER_NAMES[state.mover]}"

    def depth_of(self, state: Piles) -> int:
        return state.ply

    def describe(self, state: Piles) -> str:
        return f"nim position {self.state_id(state)!r}"
