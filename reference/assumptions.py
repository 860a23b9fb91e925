"""The staff's side of the modeling-assumptions matches (``assumptions`` cases, the game
``chase``): the reference agents' action values and the adversarial ghost's move.

Convention (``grader/scoring/assumptions.py`` grades the student's agent by it):

* An agent's decision at a position: for each of the agent's actions, in ``actions`` order,
  the value of the child position searched as a root with ``depth_limit = depth - 1`` (so the
  decision looks ``depth`` plies ahead, its own move included), the ghost's node typed by the
  agent's assumption: ``minimax`` (``MIN``, searched by alpha-beta) or ``expectimax``
  (``CHANCE``, uniform, searched by expectimax). The move is the first action of largest value
  (:func:`choose`: values within ``TIE`` of the best so far are ties, kept by the first, so a
  float rounding in the last bits of an average never decides a move).
* The adversarial ghost: the same, from the ghost's side, at ``ghost_depth`` plies, its node
  typed ``MIN``: the first action of smallest value.

Values are memoised by position: the grading of every submission asks for the same positions.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from grader.algorithms.assumptions import AGENTS, GHOST_TYPES
from grader.games.base import MIN
from grader.games.chase import Chase
from grader.games.chase_matches import (
    TIE,
    ChaseMatch,
    children,
    choose,
    match_stats,
    play_chase,
)
from reference.alpha_beta import alpha_beta
from reference.expectimax import expectimax



def child_value(child: str, ghost: str, turns: int, depth: int) -> float:
    """The reference's value of ``child`` searched as a root to ``depth`` plies, the ghost
    typed ``ghost`` (``min``: alpha-beta; ``chance``: expectimax)."""
    return child_search(child, ghost, turns, depth)[0]


@lru_cache(maxsize=200_000)
def child_search(child: str, ghost: str, turns: int, depth: int) -> tuple[float, int, int]:
    """:func:`child_value`, with the search's ``result`` calls and ``utility``/``evaluate``
    calls (the student's work budget is a multiple of them)."""
    game = _Counted(child, ghost=ghost, turns=turns, depth_limit=depth)
    search = alpha_beta if ghost == "min" else expectimax
    value = float(search(game, game.initial_state()))
    return value, game.generated, game.evaluated


class _Counted(Chase):
    """Chase counting its ``result`` calls and its ``utility``/``evaluate`` calls."""

    generated = evaluated = 0

    def result(self, state: Any, action: Any) -> Any:
        self.generated += 1
        return Chase.result(self, state, action)

    def evaluate(self, state: Any) -> Any:
        self.evaluated += 1
        return Chase.evaluate(self, state)

    def utility(self, state: Any) -> Any:
        self.evaluated += 1
        return Chase.utility(self, state)


def reference_table(board: str, turns: int, seed: int, matches: int, depth: int,
                    ghost_depth: int, opponents: list[str]) -> dict[str, dict[str, Any]]:
    """The reference agents' 2 x 2 table: ``{agent: {ghost: {won, matches, average}}}``."""
    table: dict[str, dict[str, Any]] = {}
    for agent in AGENTS:
        table[agent] = {}
        for ghost in opponents:
            played = reference_matches(board, turns, seed, matches, depth, ghost_depth, agent,
                                       ghost)
            table[agent][ghost] = match_stats(list(played))
        if not table[agent]:
            del table[agent]
    return table


@lru_cache(maxsize=256)
def reference_matches(board: str, turns: int, seed: int, matches: int, depth: int,
                      ghost_depth: int, agent: str, ghost: str) -> tuple[ChaseMatch, ...]:
    """The reference ``agent``'s matches against ``ghost`` (memoised: the table's, and the
    positions a correct agent meets, which the grader asks the student's values of ahead)."""
    game = Chase(board, turns=turns)
    return tuple(play_chase(game, index, seed, agent, ghost,
                            lambda p: action_values(p, agent, turns, depth),
                            lambda p: ghost_move(p, turns, ghost_depth))
                 for index in range(matches))


def action_values(position: str, agent: str, turns: int, depth: int,
                  value_of: Callable[[str, str, int, int], float] | None = None
                  ) -> list[tuple[str, float]]:
    """The reference agent's value of each action at ``position`` (module docstring);
    ``value_of(child, ghost, turns, depth)`` is :func:`child_value` unless given (the grader
    passes the children's searches it kept in the answer key)."""
    value_of = child_value if value_of is None else value_of
    if agent not in AGENTS:
        raise ValueError(f"expected an agent, one of {AGENTS}, got: {agent!r}")
    if depth < 2:
        raise ValueError(f"expected a decision depth of at least 2, got: {depth!r}")
    ghost = GHOST_TYPES[agent]
    return [(action, value_of(child, ghost, turns, depth - 1))
            for action, child in children(position, turns)]


@lru_cache(maxsize=50_000)
def ghost_move(position: str, turns: int, depth: int) -> str:
    """The adversarial ghost's move at ``position`` (the ghost to move), ``depth`` plies."""
    game = Chase(position, turns=turns)
    if game.to_move(game.initial_state()) != MIN:
        raise ValueError(f"the ghost is not to move at chase position {position!r}")
    if depth < 2:
        raise ValueError(f"expected a ghost depth of at least 2, got: {depth!r}")
    values = [(action, child_value(child, "min", turns, depth - 1))
              for action, child in children(position, turns)]
    return choose(values, smallest=True)


__all__ = ["AGENTS", "GHOST_TYPES", "TIE", "action_values", "child_search", "child_value",
           "choose", "ghost_move", "reference_matches", "reference_table"]
