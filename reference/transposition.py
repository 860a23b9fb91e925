"""Alpha-beta with a transposition table: the reference for ``alpha_beta_tt`` cases.

The lectures: "repeated states occur frequently because of transpositions ... it is worth
storing the evaluation of a state such that further occurrences of the state do not have to
be recomputed". Convention (the student stub ``alpha_beta_tt`` spells out the same):

* ``alpha_beta`` as in :mod:`reference.alpha_beta` (inclusive rule: cut at ``v >= beta`` /
  ``v <= alpha``, whatever the course's rule), plus a table: the dict the grader hands in,
  ``table[game.key(state)] = (value, bound, searched)``.
* ``needed`` at a state is the plies left to search there: ``game.depth_limit - depth``, or
  ``math.inf`` without a depth limit.
* 1. Look up first, before the cutoff test. An entry with ``searched >= needed`` is used:
  ``"exact"`` returns its value; ``"lower"`` raises alpha to it (``alpha = max(alpha,
  value)``); ``"upper"`` lowers beta (``beta = min(beta, value)``); then if ``alpha >= beta``
  its value is returned. A returned entry generates no child. A missing entry, or one searched
  shallower (``searched < needed``), is a miss: search as below.
* 2. At a cutoff return ``game.evaluate(state)``; leaves are never stored.
* 3. Search the children as ``alpha_beta`` does, in the window left by step 1; call it
  ``(a, b)`` as the loop starts.
* 4. Store, also after a cut: ``"upper"`` when ``v <= a`` (every child failed low: the true
  value is at most ``v``), ``"lower"`` when ``v >= b`` (a cut, or a value at least ``b``: at
  least ``v``), else ``"exact"``; ``searched = needed``. A later store of the same key
  replaces the entry. Return ``v``.
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import MAX, MIN

EXACT, LOWER, UPPER = "exact", "lower", "upper"
BOUNDS = (EXACT, LOWER, UPPER)


def needed(game: Any, depth: int) -> float:
    """Plies still to search at ``depth``: ``depth_limit - depth``, or inf without a limit."""
    return math.inf if game.depth_limit is None else game.depth_limit - depth


def probe(entry: Any, need: float, alpha: float, beta: float) -> tuple[Any, float, float]:
    """``(value to return or None, alpha, beta)`` after looking at ``entry`` (step 1)."""
    if entry is None:
        return None, alpha, beta
    value, bound, searched = entry
    if searched < need:
        return None, alpha, beta
    if bound == EXACT:
        return value, alpha, beta
    if bound == LOWER:
        alpha = max(alpha, value)
    else:
        beta = min(beta, value)
    return (value if alpha >= beta else None), alpha, beta


def classify(v: float, a: float, b: float) -> str:
    """The bound kind of a fail-soft value ``v`` searched in the window ``(a, b)``."""
    if v <= a:
        return UPPER
    if v >= b:
        return LOWER
    return EXACT


def children(game: Any, state: Any, alpha: float, beta: float, depth: int, search: Any) -> float:
    """Alpha-beta's loop over the children (inclusive rule); ``search`` values each child."""
    player = game.to_move(state)
    if player == MAX:
        v = -math.inf
        for action in game.actions(state):
            v = max(v, search(game.result(state, action), alpha, beta, depth + 1))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v
    if player == MIN:
        v = math.inf
        for action in game.actions(state):
            v = min(v, search(game.result(state, action), alpha, beta, depth + 1))
            if v <= alpha:
                return v
            beta = min(beta, v)
        return v
    raise ValueError(
        f"alpha_beta_tt needs MAX ({MAX}) or MIN ({MIN}) to move, got player {player!r} at "
        f"state {state}; use expectimax for chance nodes and maxn for more players")


def _alpha_beta_tt(game: Any, state: Any, table: dict, alpha: float, beta: float,
                   depth: int) -> float:
    key = game.key(state)
    need = needed(game, depth)
    found, alpha, beta = probe(table.get(key), need, alpha, beta)
    if found is not None:
        return found
    if game.is_cutoff(state, depth):
        return game.evaluate(state)

    def search(child: Any, a: float, b: float, d: int) -> float:
        return _alpha_beta_tt(game, child, table, a, b, d)

    v = children(game, state, alpha, beta, depth, search)
    table[key] = (v, classify(v, alpha, beta), need)
    return v


def alpha_beta_tt(game: Any, state: Any, table: dict, alpha: float = -math.inf,
                  beta: float = math.inf, depth: int = 0) -> float:
    """The alpha-beta value of ``state`` in ``(alpha, beta)``, filling ``table`` (the module
    docstring is the convention)."""
    if not isinstance(table, dict):
        raise TypeError(f"alpha_beta_tt: expected table to be a dict, got: {type(table).__name__}")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"alpha_beta_tt: expected depth to be a non-negative int, got: {depth!r}")
    return _alpha_beta_tt(game, state, table, alpha, beta, depth)


__all__ = ["BOUNDS", "EXACT", "LOWER", "UPPER", "alpha_beta_tt", "children", "classify",
           "needed", "probe"]
