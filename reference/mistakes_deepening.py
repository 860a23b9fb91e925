"""Known mistakes of iterative deepening with root move ordering, each with its hint.

Registered in the catalogue (:mod:`reference.mistake_registry`) on import. Every variant but
``orders_every_node`` is the reference's loop (:mod:`reference.deepening`) with one flag
switched on in :func:`_deepen`.
"""

from __future__ import annotations

import math
from typing import Any

from grader.algorithms.iterative_deepening import ALGORITHM as ITERATIVE_DEEPENING
from grader.games.base import MAX, MIN
from reference.alpha_beta import alpha_beta
from reference.deepening import best_first, root_iteration
from reference.mistake_registry import mistake

THE_RULE = ("before each iteration after the first, sort the root's actions by the values the "
            "root got back for them in the previous iteration, best first for the player to "
            "move there (ties in `game.actions` order)")


def _root_loop(game: Any, state: Any, order: list[Any], strict: bool, *, child_depth: int = 1,
               full_window: bool = False, ties_later: bool = False) -> tuple[float, Any, dict]:
    """:func:`reference.deepening.root_iteration` with one root-loop mistake switched on: each
    child searched from ``child_depth``, or with the full window and no cut at the root
    (``full_window``), or a tie taking the later child (``ties_later``)."""
    player = game.to_move(state)
    v = -math.inf if player == MAX else math.inf
    alpha, beta = -math.inf, math.inf
    best, values = None, {}
    for action in order:
        child_value = alpha_beta(game, game.result(state, action), alpha, beta, child_depth,
                                 strict=strict)
        values[action] = child_value
        better = ((child_value >= v if ties_later else child_value > v) if player == MAX
                  else (child_value <= v if ties_later else child_value < v))
        if best is None or better:
            v, best = child_value, action
        if full_window:
            continue
        if player == MAX:
            if (v > beta) if strict else (v >= beta):
                break
            alpha = max(alpha, v)
        else:
            if (v < alpha) if strict else (v <= alpha):
                break
            beta = min(beta, v)
    return v, best, values


def _deepen(game: Any, state: Any, max_depth: int, strict: bool, *, reorder: bool = True,
            worst_first: bool = False, descending: bool = False, previous_order_ties: bool = False,
            keep_window: bool = False, keep_best: bool = False, first_limit: int = 1,
            best_to_front: bool = False, unlimited: bool = False,
            **root_loop: Any) -> tuple:
    """The reference's iterations with one known mistake switched on (``unlimited``: every
    iteration searches ``game`` itself below the root; ``root_loop``: :func:`_root_loop`'s)."""
    if game.is_cutoff(state, 0):
        return game.evaluate(state), None
    player = game.to_move(state)
    actions = list(game.actions(state))
    order = actions
    alpha, beta = -math.inf, math.inf
    value, decision = None, None
    for limit in range(min(first_limit, max_depth), max_depth + 1):
        limited = game if unlimited else game.with_depth_limit(limit)
        start = (value, decision) if keep_best and value is not None else None
        if root_loop:
            value, decision, values = _root_loop(limited, state, order, strict, **root_loop)
        else:
            value, decision, values = root_iteration(limited, state, order, strict,
                                                     alpha=alpha, beta=beta, start=start)
        if keep_window:  # the next iteration starts where this one's window ended
            alpha, beta = (max(alpha, value), beta) if player == MAX else (alpha, min(beta, value))
        if not reorder:
            continue
        ranked_as = MAX if (descending or player == MAX) else MIN
        if worst_first:  # the mover's worst first: ranked as the opponent would rank them
            ranked_as = MIN if player == MAX else MAX
        if best_to_front:  # the previous best first, the others in `game.actions` order
            order = [decision] + [a for a in actions if a != decision]
            continue
        order = best_first(ranked_as, order if previous_order_ties else actions, values)
    return value, decision


def _switched(**mistake_flag: bool):
    """The search of :func:`_deepen` with one mistake switched on (the variants' signature)."""
    def search(game: Any, state: Any, max_depth: int, *, strict: bool = False) -> tuple:
        return _deepen(game, state, max_depth, strict, **mistake_flag)
    return search


mistake(
    "no_ordering", ITERATIVE_DEEPENING.name, title="never reorders the root",
    does="every iteration of your search takes the root's children in `game.actions` order, "
         "so the ordering learned in one iteration is never used in the next",
    departs="move ordering by iterative deepening: " + THE_RULE,
    fix="keep each root child's value from the iteration just finished and sort the actions "
        "by it before the next iteration",
)(_switched(reorder=False))

mistake(
    "descending_at_min", ITERATIVE_DEEPENING.name, title="orders a MIN root highest first",
    does="your search sorts the root's children highest value first whoever moves; at a MIN "
         "root the best child for the mover is the lowest",
    departs="move ordering by iterative deepening: " + THE_RULE,
    fix="sort ascending (lowest first) when `game.to_move(state) == MIN`, descending for MAX",
)(_switched(descending=True))

mistake(
    "worst_first", ITERATIVE_DEEPENING.name, title="orders the root worst first",
    does="your search sorts the root's children with the worst value for the player to move "
         "first (lowest first at a MAX root), which makes alpha-beta prune the least",
    departs="move ordering by iterative deepening: " + THE_RULE,
    fix="sort with the best child for the mover first: `reverse=True` (highest first) at a MAX "
        "root, ascending at a MIN root",
)(_switched(worst_first=True))

mistake(
    "ties_in_previous_order", ITERATIVE_DEEPENING.name,
    title="breaks ties in the previous iteration's order",
    does="your search sorts the order used in the previous iteration, so children with equal "
         "values stay in that order instead of going back to `game.actions` order",
    departs="move ordering by iterative deepening: " + THE_RULE,
    fix="sort `list(game.actions(state))` itself each time (Python's sort is stable, so equal "
        "values then keep actions order)",
)(_switched(previous_order_ties=True))

mistake(
    "window_not_reset", ITERATIVE_DEEPENING.name, title="keeps the window between iterations",
    does="your search starts each iteration with the alpha (MAX root) or beta (MIN root) the "
         "previous iteration ended with, so children are cut against a value from a shallower "
         "search",
    departs="each iteration is a fresh depth-limited ALPHA-BETA-SEARCH from the root with "
            "`alpha = -infinity, beta = +infinity` (AIMA Fig. 5.7)",
    fix="set `alpha, beta = -math.inf, math.inf` (and the best value so far) at the start of "
        "every iteration, inside the loop over depths",
)(_switched(keep_window=True))

mistake(
    "best_not_reset", ITERATIVE_DEEPENING.name, title="keeps the best value between iterations",
    does="your search sets `v` and the best move once, before the loop over depths, so each "
         "iteration starts from the previous one's best value: a child replaces it only when "
         "better than a value from a shallower search (and alpha or beta starts there too)",
    departs="iterative deepening returns what the deepest iteration found: each iteration "
            "starts with `v = -infinity` (MAX) or `+infinity` (MIN) and no best move",
    fix="reset `v` and the best action at the start of every iteration and return those of "
        "the last one",
)(_switched(keep_best=True))

mistake(
    "skips_limit_1", ITERATIVE_DEEPENING.name, title="starts at depth 2, not 1",
    does="your loop over depths starts at 2 (or counts the root's own iteration as depth 1), "
         "so the first iteration searches two plies and no depth-1 values order the root",
    departs="iterative deepening: `for limit in 1 .. max_depth`: the first iteration is cut "
            "at depth 1",
    fix="loop over `range(1, max_depth + 1)`",
)(_switched(first_limit=2))

mistake(
    "best_to_front", ITERATIVE_DEEPENING.name, title="moves only the best child to the front",
    does="before each iteration your search puts the previous iteration's best child first "
         "and leaves the others in `game.actions` order, instead of sorting them all",
    departs="move ordering by iterative deepening: " + THE_RULE,
    fix="sort all the root's actions by the previous iteration's values, not only the best",
)(_switched(best_to_front=True))


@mistake(
    "only_max_depth", ITERATIVE_DEEPENING.name, title="searches only at max_depth",
    does="your search is cut at `max_depth` where it should be cut at each iteration's "
         "`limit`: it runs one alpha-beta search at `max_depth` instead of one iteration at each "
         "depth 1, 2, ..., `max_depth`, or its iterations search `game` itself, not `g = "
         "game.with_depth_limit(limit)`, below the root",
    departs="iterative deepening: `for limit in 1 .. max_depth`: search cut at `limit`",
    fix="loop over `range(1, max_depth + 1)` and search `g = game.with_depth_limit(limit)` in "
        "each iteration, passing `g` (not `game`) to `alpha_beta`",
    forms=(_switched(unlimited=True),),
)
def _only_max_depth(game: Any, state: Any, max_depth: int, *, strict: bool = False) -> tuple:
    if game.is_cutoff(state, 0):
        return game.evaluate(state), None
    actions = list(game.actions(state))
    value, decision, _ = root_iteration(game.with_depth_limit(max_depth), state, actions, strict)
    return value, decision


mistake(
    "root_full_window", ITERATIVE_DEEPENING.name,
    title="searches each root child with the full window",
    does="your root loop calls `alpha_beta` on each root child with the full window (-inf, "
         "+inf), not the root's alpha and beta, and never prunes at the root, so the children "
         "after the first are searched as if nothing were known yet",
    departs="each iteration's root loop is `alpha_beta`'s loop: child `i` is searched with "
            "`alpha_beta(g, child, alpha, beta, 1)` in the current window, which it narrows",
    fix="keep `alpha, beta` in the root loop, pass them to `alpha_beta`, and after each child "
        "prune and update them exactly as `alpha_beta` does",
)(_switched(full_window=True))

mistake(
    "depth_off_by_one", ITERATIVE_DEEPENING.name, title="searches one ply too deep",
    does="your root loop searches each root child from depth 0 instead of 1, so every "
         "iteration stops one ply below its limit",
    departs="depth is the number of edges from the root: the root's children are at depth 1 "
            "(`alpha_beta(g, child, alpha, beta, 1)`)",
    fix="pass `1` as the depth of each root child",
)(_switched(child_depth=0))

mistake(
    "ties_take_later", ITERATIVE_DEEPENING.name,
    title="breaks ties at the root for the later child",
    does="your root loop makes a child the best action when its value equals the best so far "
         "(`>=` at MAX, `<=` at MIN), so of equal children the later one is returned",
    departs="ties keep the first child: a later child replaces the best only if strictly "
            "better (`>` for MAX, `<` for MIN)",
    fix="replace the best action only when `child_value > v` (MAX) or `child_value < v` (MIN)",
)(_switched(ties_later=True))


def _ordered_ab(game: Any, state: Any, alpha: float, beta: float, depth: int, strict: bool,
                path: tuple, previous: dict, current: dict) -> float:
    """Alpha-beta whose every node sorts its children by ``previous`` (path -> value)."""
    if game.is_cutoff(state, depth):
        value = game.evaluate(state)
        current[path] = value
        return value
    player = game.to_move(state)
    actions = list(game.actions(state))
    known = {a: previous[path + (a,)] for a in actions if path + (a,) in previous}
    v = -math.inf if player == MAX else math.inf
    for action in best_first(player, actions, known):
        child = game.result(state, action)
        value = _ordered_ab(game, child, alpha, beta, depth + 1, strict, path + (action,),
                            previous, current)
        if player == MAX:
            v = max(v, value)
            if (v > beta) if strict else (v >= beta):
                break
            alpha = max(alpha, v)
        else:
            v = min(v, value)
            if (v < alpha) if strict else (v <= alpha):
                break
            beta = min(beta, v)
    current[path] = v
    return v


@mistake(
    "orders_every_node", ITERATIVE_DEEPENING.name, title="reorders every node, not only the root",
    does="your search sorts the children of every node by the previous iteration's values; "
         "the assignment reorders the root's children only and searches below the root in "
         "`game.actions` order",
    departs="the assignment's move ordering: " + THE_RULE + "; below the root, children go "
            "in `game.actions` order",
    fix="sort only the root's actions; search each root child with your plain `alpha_beta`",
)
def _orders_every_node(game: Any, state: Any, max_depth: int, *, strict: bool = False) -> tuple:
    if game.is_cutoff(state, 0):
        return game.evaluate(state), None
    previous: dict = {}
    value, decision = None, None
    for limit in range(1, max_depth + 1):
        current: dict = {}
        limited = game.with_depth_limit(limit)
        player = limited.to_move(state)
        actions = list(limited.actions(state))
        known = {a: previous[(a,)] for a in actions if (a,) in previous}
        order = best_first(player, actions, known)
        v = -math.inf if player == MAX else math.inf
        alpha, beta, best = -math.inf, math.inf, None
        for action in order:
            child_value = _ordered_ab(limited, limited.result(state, action), alpha, beta, 1,
                                      strict, (action,), previous, current)
            if best is None or (child_value > v if player == MAX else child_value < v):
                v, best = child_value, action
            if player == MAX:
                alpha = max(alpha, v)
            else:
                beta = min(beta, v)
        previous = current
        value, decision = v, best
    return value, decision

