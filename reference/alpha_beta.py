"""Alpha-beta pruning (AIMA Fig. 5.7): the reference for ``alpha_beta`` cases.

Convention (the student stub ``alpha_beta`` spells out the same):

* One function for either player: it dispatches on ``game.to_move(state)``.
* Values are MAX's payoff; depth counts edges from the search root (root = 0).
* At a cutoff (``game.is_cutoff(state, depth)``) the value is ``game.evaluate(state)``.
* Children in ``game.actions(state)`` order; a child is generated (``game.result``) only when
  it is about to be searched, so pruned children are never generated.
* MAX node: ``v = max(v, child)``; prune when ``v >= beta`` (strict rule: ``v > beta``) and
  return ``v``; otherwise ``alpha = max(alpha, v)``. MIN node mirrored: ``v = min(v, child)``;
  prune when ``v <= alpha`` (strict: ``v < alpha``); otherwise ``beta = min(beta, v)``.
* The inclusive rule (prune on equality) is the default: the lectures, AIMA and OpenSpiel all
  cut there. ``strict=True`` is CS188's rule; it prunes a subset of what the inclusive rule
  prunes, so its trace is a supersequence of the inclusive one.
* The returned value is fail-soft: exact when it lies strictly inside ``(alpha, beta)``, else
  a bound (``<= alpha`` means "at most this", ``>= beta`` "at least this"). From the default
  window ``(-inf, inf)`` it is the exact minimax value.
* The decision keeps the first child on ties (a later child must be strictly better).
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import MAX, MIN


def _alpha_beta(
    game: Any, state: Any, alpha: float, beta: float, depth: int, strict: bool
) -> float:
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    player = game.to_move(state)
    if player == MAX:
        v = -math.inf
        for action in game.actions(state):
            v = max(
                v, _alpha_beta(game, game.result(state, action), alpha, beta, depth + 1, strict)
            )
            if (v > beta) if strict else (v >= beta):
                return v
            alpha = max(alpha, v)
        return v
    if player == MIN:
        v = math.inf
        for action in game.actions(state):
            v = min(
                v, _alpha_beta(game, game.result(state, action), alpha, beta, depth + 1, strict)
            )
            if (v < alpha) if strict else (v <= alpha):
                return v
            beta = min(beta, v)
        return v
    raise ValueError(
        f"alpha_beta needs MAX ({MAX}) or MIN ({MIN}) to move, got player {player!r} at state "
        f"{state}; use expectimax for chance nodes and maxn for more players"
    )


def alpha_beta(
    game: Any,
    state: Any,
    alpha: float = -math.inf,
    beta: float = math.inf,
    depth: int = 0,
    *,
    strict: bool = False,
) -> float:
    """The alpha-beta value of ``state`` in the window ``(alpha, beta)``, either player to move."""
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"alpha_beta: expected depth to be a non-negative int, got: {depth!r}")
    return _alpha_beta(game, state, alpha, beta, depth, bool(strict))


def alpha_beta_decision(game: Any, state: Any, *, strict: bool = False) -> Any:
    """The root action with the best alpha-beta value for its mover; first on ties.

    The root searches its children with the window it has so far (alpha rises at a MAX root,
    beta falls at a MIN root), so a later child is taken only when strictly better: a child
    whose true value ties the best returns a bound that is not better. ``None`` at a cutoff.
    """
    if game.is_cutoff(state, 0):
        return None
    player = game.to_move(state)
    if player not in (MAX, MIN):
        _alpha_beta(game, state, -math.inf, math.inf, 0, strict)  # raises, naming the player
    alpha, beta = -math.inf, math.inf
    best_action = None
    for action in game.actions(state):
        v = _alpha_beta(game, game.result(state, action), alpha, beta, 1, strict)
        if player == MAX and (best_action is None or v > alpha):
            best_action, alpha = action, v
        elif player == MIN and (best_action is None or v < beta):
            best_action, beta = action, v
    return best_action


__all__ = ["alpha_beta", "alpha_beta_decision"]
