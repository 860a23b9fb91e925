"""Dice race: a two-player race with a loaded die, for expectimax (chance nodes, unequal odds).

Rules: MAX and MIN each have a counter, starting at 0; they take turns, MAX first. On a turn the
mover chooses ``"roll"`` or ``"step"``:

* ``"step"``: the mover's counter advances by 1; the turn passes (no chance node);
* ``"roll"``: a chance node rolls a loaded die whose outcomes, in this order, are
  ``"+0"`` (probability 0.2), ``"+1"`` (0.3) and ``"+2"`` (0.5): the roller's counter advances by
  that much (more on average than a step, but it may not move at all); then the turn passes.

The first counter to reach ``target`` (param, default 4) wins; counters stop at ``target``. The
game also ends after ``turns`` turns in all (param, default 6; a turn is one player's step, or
roll and outcome), so it is bounded. The default full tree has 4,680 non-root nodes.

* Actions: ``("roll", "step")`` at a player's node; ``("+0", "+1", "+2")`` at a chance node,
  in the order of :meth:`DiceRace.chance_outcomes`; none at a terminal position.
* Utility (for MAX): +1 if MAX reached ``target``, -1 if MIN did; at the turn cap,
  ``(MAX's counter - MIN's counter) / target``, strictly between -1 and 1. All values lie in
  ``VALUE_RANGE = (-1, 1)``: a case may give ``value_bounds: [-1, 1]`` for Star1 pruning.
* Evaluation (depth cutoffs, which may fall on a chance node): ``(MAX's counter - MIN's counter)
  / target``, also strictly inside (-1, 1).
* State (case file) and state ids: ``"<MAX's counter>-<MIN's counter>|<mover>|t<turns played>"``,
  the mover ``max`` or ``min`` at a player's node and ``max rolls`` / ``min rolls`` at a chance
  node: ``"0-0|max|t0"`` (the default start), ``"2-1|min rolls|t3"``. ``DiceRace(state=id)``
  rebuilds the position.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from grader.games.base import CHANCE, MAX, MIN, Game

ROLL = (("+0", 0.2), ("+1", 0.3), ("+2", 0.5))  # the loaded die: (outcome, probability)
ADVANCE = {"step": 1, "+0": 0, "+1": 1, "+2": 2}
PLAYER_NAMES = {MAX: "max", MIN: "min"}
STATE_FORMAT = re.compile(r"(\d+)-(\d+)\|(max|min)( rolls)?\|t(\d+)")


class Race(NamedTuple):
    """A position: both counters, the player whose turn it is, whether the die is rolling."""

    counters: tuple[int, int]  # (MAX's, MIN's)
    mover: int
    rolling: bool  # True at a chance node: ``mover`` rolled and the outcome is pending
    turn: int  # turns played
    ply: int  # plies from the case's root (chance edges count)

    def text(self) -> str:
        """The state id: ``"2-1|min rolls|t3"``."""
        rolls = " rolls" if self.rolling else ""
        ours, theirs = self.counters
        return f"{ours}-{theirs}|{PLAYER_NAMES[self.mover]}{rolls}|t{self.turn}"

    def __repr__(self) -> str:
        return f"<race {self.text()}>"


class DiceRace(Game):
    """See the module docstring."""

    VALUE_RANGE = (-1.0, 1.0)

    def __init__(
        self,
        state: Any = None,
        *,
        target: int = 4,
        turns: int = 6,
        depth_limit: int | None = None,
        value_bounds: tuple[float, float] | None = None,
        max_sum: float | None = None,
    ) -> None:
        for name, value in (("target", target), ("turns", turns)):
            if type(value) is not int or value < 1:
                raise ValueError(f"dice: {name} must be a positive integer, got {value!r}")
        if value_bounds is not None and not (
            value_bounds[0] <= self.VALUE_RANGE[0] and self.VALUE_RANGE[1] <= value_bounds[1]
        ):
            raise ValueError(
                f"dice: value_bounds {list(value_bounds)!r} must contain the game's values, "
                f"{list(self.VALUE_RANGE)!r}"
            )
        self.target, self.turns = target, turns
        self.depth_limit, self.value_bounds, self.max_sum = depth_limit, value_bounds, max_sum
        self._root = self._parse("0-0|max|t0" if state is None else state)

    def _parse(self, state: Any) -> Race:
        match = STATE_FORMAT.fullmatch(state) if isinstance(state, str) else None
        if not match:
            raise ValueError(
                f"dice position {state!r}: expected '<max counter>-<min counter>|<mover>|t<turns>',"
                " the mover 'max', 'min', 'max rolls' or 'min rolls', e.g. '0-0|max|t0'"
            )
        ours, theirs, mover, rolling, turn = match.groups()
        counters = (int(ours), int(theirs))
        race = Race(counters, MAX if mover == "max" else MIN, bool(rolling), int(turn), 0)
        problem = None
        if max(counters) > self.target:
            problem = "a counter is above the target"
        elif min(counters) == self.target:
            problem = "both counters reached the target"
        elif race.turn > self.turns:
            problem = "more turns were played than the cap"
        elif rolling and self.is_terminal(race._replace(rolling=False)):
            problem = "the die is rolling after the game ended"
        if problem:
            raise ValueError(
                f"dice position {state!r} is impossible with target={self.target}, "
                f"turns={self.turns}: {problem}"
            )
        return race

    def initial_state(self) -> Race:
        return self._root

    def to_move(self, state: Race) -> int | str:
        return CHANCE if state.rolling else state.mover

    def actions(self, state: Race) -> tuple[str, ...]:
        if state.rolling:
            return tuple(outcome for outcome, _ in ROLL)
        return () if self.is_terminal(state) else ("roll", "step")

    def _result(self, state: Race, action: str) -> Race:
        if action == "roll":
            return state._replace(rolling=True, ply=state.ply + 1)
        counters = list(state.counters)
        counters[state.mover] = min(self.target, counters[state.mover] + ADVANCE[action])
        return Race(tuple(counters), 1 - state.mover, False, state.turn + 1, state.ply + 1)

    def is_terminal(self, state: Race) -> bool:
        if state.rolling:
            return False
        return self.target in state.counters or state.turn >= self.turns

    def _utility(self, state: Race) -> float:
        ours, theirs = state.counters
        if self.target in state.counters:
            return 1 if ours == self.target else -1
        return (ours - theirs) / self.target

    def _heuristic(self, state: Race) -> float:
        ours, theirs = state.counters
        return (ours - theirs) / self.target

    def _chance_outcomes(self, state: Race) -> list[tuple[str, float]]:
        return list(ROLL)

    def state_id(self, state: Race) -> str:
        return state.text()

    def depth_of(self, state: Race) -> int:
        return state.ply

    def describe(self, state: Race) -> str:
        return f"dice position {self.state_id(state)!r}"
