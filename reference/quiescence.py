"""Depth-limited alpha-beta with a quiescence search at the cutoff: the reference for
``quiescence`` cases.

The lectures: "cutoff should only be applied to positions that are quiescent, i.e. states that
are unlikely to exhibit wild swings in value in the near future" (the horizon effect). They
give the idea, not pseudo-code; the convention here is the standard one (stand pat, noisy
moves only), and the student stub ``quiescence`` spells out the same:

* Above the depth limit: ``alpha_beta`` exactly (inclusive rule: cut at ``v >= beta`` /
  ``v <= alpha``, whatever the course's rule), every child in ``game.actions`` order, each
  child's value from the same function at ``depth + 1``.
* Where ``game.is_cutoff(state, depth)`` (terminal, or ``depth >= game.depth_limit``), the
  quiescence search takes over instead of ``game.evaluate``:

  1. ``stand = game.evaluate(state)``, always first (the utility at a terminal).
  2. Return ``stand`` when the state is terminal, quiet (``game.is_quiet(state)``), or at the
     quiescence horizon ``depth >= game.depth_limit + game.quiescence_limit``.
  3. Stand pat: the player to move may decline every noisy move, so ``stand`` bounds the value
     from their side: MAX starts ``v = stand``, returns it if ``v >= beta``, else ``alpha =
     max(alpha, v)``; MIN starts ``v = stand``, returns it if ``v <= alpha``, else ``beta =
     min(beta, v)``.
  4. Then alpha-beta's loop over ``game.noisy_actions(state)`` only (in that order), each child
     searched by this same quiescence search at ``depth + 1``. Return ``v``.
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import MAX, MIN


def _loop(game: Any, state: Any, actions: Any, v: float, alpha: float, beta: float,
          depth: int, search: Any) -> float:
    """Alpha-beta's loop from ``v`` over ``actions`` (inclusive rule)."""
    player = game.to_move(state)
    if player == MAX:
        for action in actions:
            v = max(v, search(game, game.result(state, action), alpha, beta, depth + 1))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v
    if player == MIN:
        for action in actions:
            v = min(v, search(game, game.result(state, action), alpha, beta, depth + 1))
            if v <= alpha:
                return v
            beta = min(beta, v)
        return v
    raise ValueError(
        f"quiescence needs MAX ({MAX}) or MIN ({MIN}) to move, got player {player!r} at state "
        f"{state}; use expectimax for chance nodes and maxn for more players")


def quiesce(game: Any, state: Any, alpha: float, beta: float, depth: int) -> float:
    """The quiescence search at or below the cutoff (steps 1-4)."""
    stand = game.evaluate(state)
    if (game.is_terminal(state) or game.is_quiet(state)
            or depth >= game.depth_limit + game.quiescence_limit):
        return stand
    player = game.to_move(state)
    if player == MAX:
        if stand >= beta:
            return stand
        alpha = max(alpha, stand)
    elif player == MIN:
        if stand <= alpha:
            return stand
        beta = min(beta, stand)
    return _loop(game, state, game.noisy_actions(state), stand, alpha, beta, depth, quiesce)


def _search(game: Any, state: Any, alpha: float, beta: float, depth: int) -> float:
    if game.is_cutoff(state, depth):
        return quiesce(game, state, alpha, beta, depth)
    start = -math.inf if game.to_move(state) == MAX else math.inf
    return _loop(game, state, game.actions(state), start, alpha, beta, depth, _search)


def quiescence(game: Any, state: Any, alpha: float = -math.inf, beta: float = math.inf,
               depth: int = 0) -> float:
    """Depth-limited alpha-beta with quiescence search (the module docstring is the
    convention); ``game.depth_limit`` must be set."""
    if game.depth_limit is None:
        raise ValueError("quiescence: the game has no depth limit; a quiescence search starts "
                         "at the depth cutoff")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"quiescence: expected depth to be a non-negative int, got: {depth!r}")
    return _search(game, state, alpha, beta, depth)


def quiescence_decision(game: Any, state: Any) -> Any:
    """The root action with the best quiescent value for its mover, first on ties (the root
    loop of :func:`reference.alpha_beta.alpha_beta_decision`); None at a cutoff."""
    if game.is_cutoff(state, 0):
        return None
    player = game.to_move(state)
    alpha, beta = -math.inf, math.inf
    best_action = None
    for action in game.actions(state):
        v = _search(game, game.result(state, action), alpha, beta, 1)
        if player == MAX and (best_action is None or v > alpha):
            best_action, alpha = action, v
        elif player == MIN and (best_action is None or v < beta):
            best_action, beta = action, v
    return best_action


__all__ = ["quiesce", "quiescence", "quiescence_decision"]
