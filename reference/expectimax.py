"""Expectimax / expectiminimax, with Ballard's Star1 pruning: the reference for ``expectimax``.

Convention (the student stub ``expectimax`` spells out the same):

* Values are MAX's payoff; depth counts edges from the search root (root = 0), chance edges
  included. At a cutoff (``game.is_cutoff(state, depth)``) the value is ``game.evaluate(state)``.
* MAX / MIN nodes as in minimax: children in ``game.actions(state)`` order, each generated
  right before it is searched; a player may follow itself (players need not alternate).
* CHANCE node: ``v = 0``, then for each ``(action, p)`` of ``game.chance_outcomes(state)``, in
  that order, ``v += p * value(game.result(state, action))``. Its value is the expectation.

Star1 (only when ``game.value_bounds`` is ``(L, U)``, every leaf value in ``[L, U]``): an
alpha-beta search (default window ``(-inf, inf)``).

* MAX / MIN nodes prune as inclusive alpha-beta: MAX returns ``v`` once ``v >= beta`` and
  otherwise raises ``alpha``; MIN returns ``v`` once ``v <= alpha`` and otherwise lowers ``beta``.
  They pass their window to every child, chance children included.
* A CHANCE node keeps ``S``, the weighted sum of the children seen, and ``R``, the probability
  of the children not yet seen (``R = 1`` at the start, ``R -= p`` after each child). After
  each child but the last (never before the first: a chance node always searches at least one
  child; after the last its value is ``S``) it cuts:
  - when ``S + U*R <= alpha`` and returns ``S + U*R`` (the node's upper bound reached);
  - when ``S + L*R >= beta`` and returns ``S + L*R`` (the node's lower bound reached).
  Both at once is impossible while ``alpha < beta``. The returned bound is fail-soft, like
  alpha-beta's ``v``: the parent prunes or ignores it exactly as it would a child value.
* The children of a chance node are searched with the full window ``(-inf, inf)`` (the
  simplest Star1: no window narrowing below chance nodes, so their values are exact).
* With a full window at the root nothing is ever cut there, so the root value is exact and
  equals plain expectimax; Star1 never generates a child that plain expectimax does not.
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import CHANCE, MAX, MIN


def _expectimax(game: Any, state: Any, depth: int) -> float:
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    player = game.to_move(state)
    if player == CHANCE:
        v = 0
        for action, p in game.chance_outcomes(state):
            v += p * _expectimax(game, game.result(state, action), depth + 1)
        return v
    if player == MAX:
        v = -math.inf
        for action in game.actions(state):
            v = max(v, _expectimax(game, game.result(state, action), depth + 1))
        return v
    if player == MIN:
        v = math.inf
        for action in game.actions(state):
            v = min(v, _expectimax(game, game.result(state, action), depth + 1))
        return v
    raise ValueError(
        f"expectimax needs MAX, MIN or CHANCE to move, got {player!r} at state {state}"
    )


def _star1(game: Any, state: Any, alpha: float, beta: float, depth: int, bounds: tuple) -> float:
    if game.is_cutoff(state, depth):
        value = game.evaluate(state)
        if not bounds[0] <= value <= bounds[1]:
            raise ValueError(
                f"Star1 needs every leaf value in value_bounds {list(bounds)!r}, got {value!r} "
                f"at state {state}"
            )
        return value
    player = game.to_move(state)
    if player == CHANCE:
        low, high = bounds
        outcomes = game.chance_outcomes(state)
        s, r = 0, 1
        for i, (action, p) in enumerate(outcomes):
            s += p * _star1(
                game, game.result(state, action), -math.inf, math.inf, depth + 1, bounds
            )
            r -= p
            if i == len(outcomes) - 1:
                break  # all seen: the value is s (no rounding residue of r)
            if s + high * r <= alpha:
                return s + high * r
            if s + low * r >= beta:
                return s + low * r
        return s
    if player == MAX:
        v = -math.inf
        for action in game.actions(state):
            v = max(v, _star1(game, game.result(state, action), alpha, beta, depth + 1, bounds))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v
    if player == MIN:
        v = math.inf
        for action in game.actions(state):
            v = min(v, _star1(game, game.result(state, action), alpha, beta, depth + 1, bounds))
            if v <= alpha:
                return v
            beta = min(beta, v)
        return v
    raise ValueError(
        f"expectimax needs MAX, MIN or CHANCE to move, got {player!r} at state {state}"
    )


def _search(game: Any, state: Any, depth: int) -> float:
    bounds = game.value_bounds
    if bounds is None:
        return _expectimax(game, state, depth)
    return _star1(game, state, -math.inf, math.inf, depth, tuple(bounds))


def expectimax(game: Any, state: Any, depth: int = 0, *, star1: bool = True) -> float:
    """The expectimax value of ``state``; Star1 prunes when ``game.value_bounds`` is set, unless
    ``star1=False`` (the known mistake that ignores the bounds)."""
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"expectimax: expected depth to be a non-negative int, got: {depth!r}")
    if not star1:
        return _expectimax(game, state, depth)
    bounds = game.value_bounds
    if bounds is not None and not (len(bounds) == 2 and bounds[0] <= bounds[1]):
        raise ValueError(f"expectimax: expected value_bounds (L, U) with L <= U, got: {bounds!r}")
    return _search(game, state, depth)


def expectimax_decision(game: Any, state: Any) -> Any:
    """The action with the best value for the mover (MAX: largest, MIN: smallest); first on ties.

    Each child is searched on its own with the full window, so the values compared are exact.
    ``None`` at a cutoff or a chance root (there is no decision to make).
    """
    if game.is_cutoff(state, 0) or game.to_move(state) == CHANCE:
        return None
    if game.to_move(state) not in (MAX, MIN):
        _search(game, state, 0)  # raises the ValueError that names the player
    sign = 1 if game.to_move(state) == MAX else -1
    best_action, best = None, -math.inf
    for action in game.actions(state):
        v = sign * _search(game, game.result(state, action), 1)
        if best_action is None or v > best:
            best_action, best = action, v
    return best_action


__all__ = ["expectimax", "expectimax_decision"]
