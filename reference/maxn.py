"""Max^n (Luckhardt and Irani 1986), with Korf's shallow pruning: the reference for ``maxn``.

Convention (the student stub ``maxn`` spells out the same):

* Values are vectors: ``game.utility`` / ``game.evaluate`` return one entry a player, and the
  value of every node is a tuple of ``game.players`` numbers. Max^n *requires* vectors, in
  two-player games too (a case gives leaf values as lists); a number raises ``TypeError``.
  The reference returns tuples (a list from a case file becomes a tuple).
* Depth counts edges from the search root (root = 0); at a cutoff
  (``game.is_cutoff(state, depth)``) the value is ``game.evaluate(state)``.
* The player ``p = game.to_move(state)`` picks, among the children in ``game.actions(state)``
  order (each generated right before it is searched), the one whose vector has the largest
  entry ``p``; ties keep the first child (a later child must be strictly better). The node's
  value is that child's whole vector. Chance nodes are not part of max^n (``ValueError``).

Shallow pruning (Korf 1991), only when ``game.max_sum`` is set: every entry is ``>= 0`` and the
entries of a vector sum to at most ``max_sum``. A node whose mover ``p`` differs from its
parent's mover ``q`` stops searching its children (returns its best vector so far) as soon as
``best[p] >= max_sum - parent_best[q]``, where ``parent_best`` is the parent's best vector
before this child: whatever this node returns then gives ``q`` at most ``parent_best[q]``, which
cannot replace the parent's first-found best. No bound exists while the parent has no best yet
(its first child), nor when ``p == q`` (the parent would want the same entry to grow). Only
parent-child bounds are used: deep pruning is unsound in max^n.
"""

from __future__ import annotations

from typing import Any

from grader.games.base import CHANCE


def _leaf(game: Any, state: Any) -> tuple:
    value = game.evaluate(state)
    if not isinstance(value, (tuple, list)):
        raise TypeError(
            f"maxn needs vector values (one entry a player), got {value!r} at state {state}"
        )
    if len(value) != game.players:
        raise ValueError(
            f"maxn needs {game.players} entries a value, got {value!r} at state {state}"
        )
    return tuple(value)


def _maxn(game: Any, state: Any, depth: int, parent: tuple | None) -> tuple:
    """The max^n vector of ``state``; ``parent`` is ``(q, parent_best[q])`` or None (no bound)."""
    if game.is_cutoff(state, depth):
        return _leaf(game, state)
    player = game.to_move(state)
    if player == CHANCE or not isinstance(player, int) or not 0 <= player < game.players:
        raise ValueError(
            f"maxn needs a player index 0..{game.players - 1} to move, got {player!r} at state {state}"
        )
    limit = None
    if game.max_sum is not None and parent is not None and parent[0] != player:
        limit = game.max_sum - parent[1]
    best = None
    for action in game.actions(state):
        bound = None if best is None else (player, best[player])
        value = _maxn(game, game.result(state, action), depth + 1, bound)
        if best is None or value[player] > best[player]:
            best = value
        if limit is not None and best[player] >= limit:
            return best
    return best


def maxn(game: Any, state: Any, depth: int = 0) -> tuple:
    """The max^n vector of ``state`` (shallow pruning when ``game.max_sum`` is set)."""
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"maxn: expected depth to be a non-negative int, got: {depth!r}")
    return _maxn(game, state, depth, None)


def maxn_decision(game: Any, state: Any) -> Any:
    """The action whose vector has the largest entry for the mover; first on ties.

    Searched exactly as :func:`maxn` searches the root's children (same bounds), so the
    decision agrees with the value. ``None`` at a cutoff.
    """
    if game.is_cutoff(state, 0):
        return None
    player = game.to_move(state)
    if player == CHANCE or not isinstance(player, int) or not 0 <= player < game.players:
        _maxn(game, state, 0, None)  # raises the ValueError that names the player
    best_action, best = None, None
    for action in game.actions(state):
        bound = None if best is None else (player, best[player])
        value = _maxn(game, game.result(state, action), 1, bound)
        if best is None or value[player] > best[player]:
            best_action, best = action, value
    return best_action


__all__ = ["maxn", "maxn_decision"]
