"""The simple opponents of the ``evaluate`` matches, shipped in the handout (``grader play``).

* ``random``: uniform over ``actions``, from the match's seeded ``random.Random``.
* ``greedy``: a move that wins at once, the first in actions order; else, when some moves let
  the opponent win at once and others do not, a random one of those that do not (which blocks a
  single threat); else a random move.

The third opponent, ``baseline`` (the staff's search with the staff's plain evaluation), is in
``reference/``, never in the handout.
"""

from __future__ import annotations

import random
from typing import Any

from grader.games.base import MAX

SIMPLE_OPPONENTS = ("random", "greedy")


def wins_at_once(game: Any, state: Any, action: Any) -> bool:
    """Whether ``action`` ends the game with a win for the player to move."""
    child = game.result(state, action)
    if not game.is_terminal(child):
        return False
    payoff = game.utility(child)
    return payoff > 0 if game.to_move(state) == MAX else payoff < 0


def greedy_move(game: Any, state: Any, rng: random.Random) -> Any:
    """Win at once if possible; else avoid the moves that let the opponent win at once."""
    actions = list(game.actions(state))
    for action in actions:
        if wins_at_once(game, state, action):
            return action
    safe = []
    for action in actions:
        child = game.result(state, action)
        if game.is_terminal(child) or not any(
                wins_at_once(game, child, reply) for reply in game.actions(child)):
            safe.append(action)
    return rng.choice(safe if safe and len(safe) < len(actions) else actions)


def match_seed(case_seed: int, index: int) -> int:
    """The seed of match ``index`` of a case (its opening, its opponent's random choices)."""
    return case_seed * 1000 + index


def simple_move(kind: str, game: Any, state: Any, rng: random.Random) -> Any:
    """The move of opponent ``kind`` (``random`` or ``greedy``)."""
    if kind == "random":
        return rng.choice(list(game.actions(state)))
    if kind == "greedy":
        return greedy_move(game, state, rng)
    raise ValueError(f"expected an opponent, one of {SIMPLE_OPPONENTS}, got: {kind!r}")


__all__ = ["SIMPLE_OPPONENTS", "greedy_move", "match_seed", "simple_move", "wins_at_once"]
