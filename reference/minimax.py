"""Minimax (AIMA Fig. 5.3, H-minimax with a depth cutoff): the reference for ``minimax`` cases.

Convention (the student stubs ``max_value`` / ``min_value`` spell out the same):

* Values are from MAX's point of view: ``game.utility`` / ``game.evaluate`` give MAX's payoff.
* Depth is the number of edges from the search root (root = 0; each ``result`` adds 1).
* At a cutoff (``game.is_cutoff(state, depth)``: terminal, or at the depth limit) the value is
  ``game.evaluate(state)``: the utility at a terminal, the heuristic value at the depth limit.
  Nothing else is ever evaluated.
* Children are searched in ``game.actions(state)`` order; each child is generated (one
  ``game.result`` call) right before it is searched, exactly once.
* Each child's value comes from the function for the player to move *there* (``max_value``
  where MAX moves, ``min_value`` where MIN moves): players need not alternate.
* Ties keep the first child: a later child replaces the best only when strictly better. This
  matters only for the decision (:func:`minimax_decision`), not for the value.
* Minimax is for two players (``MAX`` / ``MIN``); a chance node or a third player raises
  ``ValueError`` (use :mod:`reference.expectimax` or :mod:`reference.maxn`).
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import MAX, MIN


def _value(game: Any, state: Any, depth: int) -> float:
    """The minimax value of ``state``, dispatching on the player to move there."""
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    player = game.to_move(state)
    if player == MAX:
        return _max_value(game, state, depth)
    if player == MIN:
        return _min_value(game, state, depth)
    raise ValueError(
        f"minimax needs MAX ({MAX}) or MIN ({MIN}) to move, got player {player!r} at state "
        f"{state}; use expectimax for chance nodes and maxn for more players"
    )


def _max_value(game: Any, state: Any, depth: int) -> float:
    v = -math.inf
    for action in game.actions(state):
        child_value = _value(game, game.result(state, action), depth + 1)
        v = max(v, child_value)
    return v


def _min_value(game: Any, state: Any, depth: int) -> float:
    v = math.inf
    for action in game.actions(state):
        child_value = _value(game, game.result(state, action), depth + 1)
        v = min(v, child_value)
    return v


def _check_entry(game: Any, state: Any, depth: int, expected: int, name: str) -> None:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"{name}: expected depth to be a non-negative int, got: {depth!r}")
    if not game.is_cutoff(state, depth) and game.to_move(state) != expected:
        raise ValueError(
            f"{name} called at state {state}, where player {game.to_move(state)!r} moves, "
            f"not {'MAX' if expected == MAX else 'MIN'}"
        )


def max_value(game: Any, state: Any, depth: int = 0) -> float:
    """The minimax value of ``state``, where MAX moves (or which is a cutoff)."""
    _check_entry(game, state, depth, MAX, "max_value")
    return _value(game, state, depth)


def min_value(game: Any, state: Any, depth: int = 0) -> float:
    """The minimax value of ``state``, where MIN moves (or which is a cutoff)."""
    _check_entry(game, state, depth, MIN, "min_value")
    return _value(game, state, depth)


def minimax_decision(game: Any, state: Any) -> Any:
    """The action at ``state`` with the best minimax value for its mover; first on ties.

    MAX takes the largest child value, MIN the smallest. ``None`` at a cutoff (no move).
    """
    if game.is_cutoff(state, 0):
        return None
    player = game.to_move(state)
    if player not in (MAX, MIN):
        _value(game, state, 0)  # raises the ValueError that names the player
    sign = 1 if player == MAX else -1
    best_action, best = None, -math.inf
    for action in game.actions(state):
        child_value = sign * _value(game, game.result(state, action), 1)
        if best_action is None or child_value > best:
            best_action, best = action, child_value
    return best_action


__all__ = ["max_value", "min_value", "minimax_decision"]
