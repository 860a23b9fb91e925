"""Three-player takeaway: a pile of counters, for max^n (vector payoffs, shallow pruning).

Rules: players 0, 1 and 2 take turns, in that order, removing 1 to ``max_take`` counters (param,
default 3) from one pile. The player who takes the last counter wins.

* State (case file): the pile size, player 0 to move (``6``, the default); or a state id,
  ``"<counters>|p<player to move>"`` (``"5|p2"``; without ``|p...``, player 0 moves).
  ``ThreePlayerTakeaway(state=id)`` rebuilds it.
* Actions: the number of counters to take, ascending: ``(1, 2, 3)``, fewer near the end; none at
  the end (an empty pile).
* Utility: a tuple, one entry a player: the winner gets 2, the player after the winner (who
  would move next) 1, the player before the winner (who left the winning pile) 0. So the
  components are non-negative and always sum to ``MAX_SUM = 3``: a case may give ``max_sum: 3``
  for shallow pruning.
* Evaluation (depth cutoffs), a tuple with the same bounds: if the mover can take the whole
  pile, the payoff of the mover winning; otherwise the payoff the game would end with if every
  player took one counter at a time, softened to (1.5, 1, 0.5) for (winner, next, previous).
* State ids: ``"<counters>|p<player to move>"``: ``"6|p0"``; ``"0|p1"`` (player 0 took the last).
  The full tree from the default ``"6|p0"`` has 51 non-root nodes.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from grader.games.base import Game

STATE_FORMAT = re.compile(r"(\d+)(?:\|p([012]))?")


class Pile(NamedTuple):
    """A position: counters left, the player to move, plies from the case's root."""

    counters: int
    mover: int
    ply: int

    def __repr__(self) -> str:
        return f"<pile {self.counters}|p{self.mover}>"


def ranked(winner: int, first: float, second: float, third: float) -> tuple[float, ...]:
    """A payoff: ``winner`` gets ``first``, the next player ``second``, the one before ``third``."""
    payoff = [first, second, third]
    payoff[winner], payoff[(winner + 1) % 3], payoff[(winner + 2) % 3] = first, second, third
    return tuple(payoff)


class ThreePlayerTakeaway(Game):
    """See the module docstring."""

    players = 3
    MAX_SUM = 3

    def __init__(
        self,
        state: Any = None,
        *,
        max_take: int = 3,
        depth_limit: int | None = None,
        value_bounds: tuple[float, float] | None = None,
        max_sum: float | None = None,
    ) -> None:
        if type(max_take) is not int or max_take < 1:
            raise ValueError(f"three_player: max_take must be a positive integer, got {max_take!r}")
        if max_sum is not None and max_sum < self.MAX_SUM:
            raise ValueError(
                f"three_player: max_sum {max_sum!r} is below the payoffs' sum, {self.MAX_SUM}: "
                "shallow pruning would be unsound"
            )
        self.max_take = max_take
        self.depth_limit, self.value_bounds, self.max_sum = depth_limit, value_bounds, max_sum
        self._root = self._parse(6 if state is None else state)

    def _parse(self, state: Any) -> Pile:
        if type(state) is int and state >= 0:
            return Pile(state, 0, 0)
        match = STATE_FORMAT.fullmatch(state) if isinstance(state, str) else None
        if not match:
            raise ValueError(
                f"three_player position {state!r}: expected a pile size (an integer >= 0, "
                "player 0 to move) or '<counters>|p<player to move>', e.g. '5|p2'"
            )
        return Pile(int(match[1]), int(match[2] or 0), 0)

    def initial_state(self) -> Pile:
        return self._root

    def to_move(self, state: Pile) -> int:
        return state.mover

    def actions(self, state: Pile) -> tuple[int, ...]:
        return tuple(range(1, min(self.max_take, state.counters) + 1))

    def _result(self, state: Pile, action: int) -> Pile:
        return Pile(state.counters - action, (state.mover + 1) % 3, state.ply + 1)

    def is_terminal(self, state: Pile) -> bool:
        return state.counters == 0

    def _utility(self, state: Pile) -> tuple[float, ...]:
        return ranked((state.mover - 1) % 3, 2, 1, 0)  # the previous mover took the last one

    def _heuristic(self, state: Pile) -> tuple[float, ...]:
        if state.counters <= self.max_take:
            return ranked(state.mover, 2, 1, 0)
        return ranked((state.mover + state.counters - 1) % 3, 1.5, 1, 0.5)

    def state_id(self, state: Pile) -> str:
        return f"{state.counters}|p{state.mover}"

    def depth_of(self, state: Pile) -> int:
        return state.ply

    def describe(self, state: Pile) -> str:
        return f"three_player position {self.state_id(state)!r}"
