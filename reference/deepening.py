"""Iterative deepening with root move ordering: the reference for ``iterative_deepening`` cases.

Convention (the student stub ``iterative_deepening`` spells out the same; the lectures' "keep
track of which nodes were best, and when we redo the tree, order children in this way"):

* ``max_depth`` iterations, ``limit = 1, 2, ..., max_depth``. Iteration ``limit`` searches the
  game cut at ``limit`` (``game.with_depth_limit(limit)``) from scratch: the root's window is
  ``(-inf, +inf)`` again and every child is generated again.
* Only the root's children are reordered. Iteration 1 takes them in ``game.actions`` order.
  Each later iteration takes them sorted by the value the root got back for each child in the
  previous iteration, best first for the player to move at the root (highest for MAX, lowest
  for MIN); equal values keep ``game.actions`` order (a stable sort of ``game.actions``, not
  of the previous iteration's order). Below the root, children go in ``game.actions`` order.
* The root loop is alpha-beta's loop over that order: child ``i`` is searched with
  ``alpha_beta(child, alpha, beta, depth=1)`` in the current window (so later children may
  return fail-soft bounds: those bounds are the values the next iteration sorts by); MAX:
  ``v = max(v, child)``, cut when ``v >= beta`` (strict rule ``v > beta``), ``alpha =
  max(alpha, v)``; MIN mirrored. A child not searched in an iteration (a cut at the root, only
  possible when a value reaches +-inf) sorts after every searched one, in actions order.
* The decision of an iteration is the first child in its search order whose value is strictly
  better than every value before it (a tie keeps the earlier child).
* Returns ``(value, action)``: the last iteration's root value and decision. At a root that is
  already a cutoff (terminal): ``(game.evaluate(root), None)``.
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import MAX, MIN
from reference.alpha_beta import alpha_beta
from reference.replay import AlphaBetaReplay
from reference.steps import STEP_LIMIT, StepLimitReached


def best_first(player: Any, actions: list[Any], values: dict[Any, float]) -> list[Any]:
    """``actions`` sorted best first for ``player`` by ``values``; ties and unsearched
    children (last) in ``actions`` order (Python's sort is stable)."""
    sign = -1 if player == MAX else 1
    return sorted(actions, key=lambda a: (a not in values, sign * values.get(a, 0.0)))


def root_iteration(
    game: Any, state: Any, order: list[Any], strict: bool, *,
    alpha: float = -math.inf, beta: float = math.inf,
    start: tuple[float, Any] | None = None,
) -> tuple[float, Any, dict[Any, float]]:
    """One iteration's root loop: (value, decision, {action: value the child returned}).

    ``start``: ``(v, best)`` to begin with instead of (-inf or +inf, None) (known mistakes)."""
    player = game.to_move(state)
    if player not in (MAX, MIN):
        raise ValueError(
            f"iterative_deepening needs MAX ({MAX}) or MIN ({MIN}) to move, got player "
            f"{player!r} at the root; use expectimax for chance nodes and maxn for more players")
    v = -math.inf if player == MAX else math.inf
    best, values = None, {}
    if start is not None:
        v, best = start
    for action in order:
        child_value = alpha_beta(game, game.result(state, action), alpha, beta, 1, strict=strict)
        values[action] = child_value
        if player == MAX:
            if best is None or child_value > v:
                v, best = child_value, action
            if (v > beta) if strict else (v >= beta):
                break
            alpha = max(alpha, v)
        else:
            if best is None or child_value < v:
                v, best = child_value, action
            if (v < alpha) if strict else (v <= alpha):
                break
            beta = min(beta, v)
    return v, best, values


def iterative_deepening(game: Any, state: Any, max_depth: int, *, strict: bool = False) -> tuple:
    """``(value, action)`` of depth-limited alpha-beta at ``max_depth``, found by iterative
    deepening with root ordering (the module docstring is the convention)."""
    if type(max_depth) is not int or max_depth < 1:
        raise ValueError(f"iterative_deepening: expected max_depth to be an int >= 1, got: "
                         f"{max_depth!r}")
    if game.is_cutoff(state, 0):
        return game.evaluate(state), None
    player = game.to_move(state)
    actions = list(game.actions(state))
    order = actions
    value, decision = None, None
    for limit in range(1, max_depth + 1):
        limited = game.with_depth_limit(limit)
        value, decision, values = root_iteration(limited, state, order, strict)
        order = best_first(player, actions, values)
    return value, decision


def deepening_decision(game: Any, state: Any, *, strict: bool = False) -> Any:
    """The last iteration's decision at ``max_depth = game.depth_limit``."""
    return iterative_deepening(game, state, game.depth_limit, strict=strict)[1]


class DeepeningReplay(AlphaBetaReplay):
    """:func:`iterative_deepening` replayed with its bookkeeping: the moments of the step
    explanation (:mod:`grader.feedback.explain`), ``generated`` the reference's (checked by
    ``tests/test_deepening.py``).

    Each iteration starts with ``["iteration", step, limit, mover, order, previous]``: its depth
    limit, the root's mover (``"MAX"``/``"MIN"``), the root's children's ids in the order it
    searches them, and ``previous``: ``[[child, value], ...]`` the previous iteration's values in
    that order (``value`` None for a child it did not search; ``previous`` None in iteration 1,
    which takes ``game.actions`` order). Then the iteration's alpha-beta moments in
    :mod:`reference.replay`'s format (the root's own loop included), ``step`` counting every
    node generated since the first iteration. A replay stopped past ``until`` nodes ends with
    ``["stopped", step]``. Raises ``ValueError`` where the root's mover is neither MAX nor MIN.
    """

    def __init__(self, game: Any, max_depth: int, strict: bool = False,
                 until: int = STEP_LIMIT) -> None:
        self.game, self.strict, self.until = game, strict, until
        self.generated, self.evaluated = [], []
        self.visits, self.cuts, self.moments = [], [], []
        self.complete, self.value = True, None
        try:
            self._iterations(game, max_depth)
        except StepLimitReached:
            self.complete = False
            self.moments.append(["stopped", len(self.generated)])

    def _iterations(self, game: Any, max_depth: int) -> None:
        state = game.initial_state()
        if game.is_cutoff(state, 0):
            self.value = game.evaluate(state)
            return
        player = game.to_move(state)
        if player not in (MAX, MIN):  # the reference's own error (root_iteration)
            root_iteration(game, state, [], self.strict)
        actions = list(game.actions(state))
        order, values = actions, None
        for limit in range(1, max_depth + 1):
            self.game = game.with_depth_limit(limit)
            ids = [self.game.state_id(self.game.result(state, a)) for a in order]
            previous = None if values is None else [
                [child, values.get(action)] for child, action in zip(ids, order)]
            self.moments.append(["iteration", len(self.generated), limit,
                                 "MAX" if player == MAX else "MIN", ids, previous])
            values = self._root(state, player, order, ids)
            order = best_first(player, actions, values)

    def _root(self, state: Any, player: Any, order: list[Any], ids: list[str]) -> dict:
        """:func:`root_iteration`'s loop, recording: {action: the value its child returned}."""
        is_max = player == MAX
        alpha, beta = -math.inf, math.inf
        v, best, values = (-math.inf if is_max else math.inf), None, {}
        root = self.game.state_id(state)
        for index, action in enumerate(order):
            child = self.game.result(state, action)
            self.moments.append(["generate", len(self.generated), root, is_max, alpha, beta, v,
                                 [ids[index]]])
            self.generated.append(ids[index])
            if len(self.generated) > self.until + 1:
                raise StepLimitReached
            values[action] = found = self._search(child, alpha, beta, 1, None, None)
            if best is None or (found > v if is_max else found < v):
                v, best = found, action
            if is_max:
                cut = (v > beta) if self.strict else (v >= beta)
            else:
                cut = (v < alpha) if self.strict else (v <= alpha)
            if cut:
                if ids[index + 1:]:
                    self.moments.append(["cut", len(self.generated), root, is_max, alpha, beta,
                                         v, ids[index + 1:]])
                break
            if is_max:
                alpha = max(alpha, v)
            else:
                beta = min(beta, v)
        self.value = v
        return values


def deepening_steps(game: Any, settings: Any = None, *, strict: bool = False,
                    until: int = STEP_LIMIT) -> list[list[Any]]:
    """The moments of :class:`DeepeningReplay` at ``max_depth = game.depth_limit`` (the case's
    ``depth_limit``); the step replay of the algorithm's spec (``settings`` unused)."""
    return DeepeningReplay(game, game.depth_limit, strict, until).moments


def unordered(game: Any, state: Any, max_depth: int, *, strict: bool = False) -> tuple:
    """The same iterations with no reordering (every iteration in ``actions`` order): what
    the feedback's "nodes saved by ordering" is measured against."""
    if game.is_cutoff(state, 0):
        return game.evaluate(state), None
    actions = list(game.actions(state))
    value, decision = None, None
    for limit in range(1, max_depth + 1):
        value, decision, _ = root_iteration(game.with_depth_limit(limit), state, actions, strict)
    return value, decision


__all__ = ["DeepeningReplay", "best_first", "deepening_decision", "deepening_steps",
           "iterative_deepening", "root_iteration", "unordered"]
