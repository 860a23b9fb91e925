"""Known mistakes of minimax and alpha-beta: variants of the reference, each with its hint.

Registered in the catalogue (:mod:`reference.mistake_registry`) on import; see
:mod:`reference.mistakes` for how to add one. Variants that share a core (``_mm``, ``_ab``)
switch one mistake on with a flag, so each registration stays a few lines.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from grader.algorithms.alpha_beta import ALGORITHM as ALPHA_BETA
from grader.algorithms.minimax import ALGORITHM as MINIMAX
from grader.games.base import MAX, MIN
from reference.alpha_beta import alpha_beta_decision
from reference.minimax import minimax_decision
from reference.mistake_registry import mistake

FIG_5_7 = "AIMA Fig. 5.7"


# --- minimax ---------------------------------------------------------------------------------


def _mm(game: Any, state: Any, depth: int, *, late_cutoff: bool = False, eager: bool = False,
        twice: bool = False) -> float:
    """Minimax with one of its known mistakes switched on."""
    cut = game.is_cutoff(state, depth)
    if late_cutoff:
        cut = game.is_terminal(state) or (game.depth_limit is not None and depth > game.depth_limit)
    if cut:
        return game.evaluate(state)
    pick = max if game.to_move(state) == MAX else min
    flags = {"late_cutoff": late_cutoff, "eager": eager, "twice": twice}
    if eager:
        children = [game.result(state, a) for a in game.actions(state)]
    elif twice:
        children = ((game.result(state, a), game.result(state, a))[1] for a in game.actions(state))
    else:
        children = (game.result(state, a) for a in game.actions(state))
    return pick(_mm(game, child, depth + 1, **flags) for child in children)


@mistake(
    "depth_off_by_one", MINIMAX.name, title="stops one ply too late",
    does="your cutoff test lets the search go one level below the depth limit: it searches the "
         "children of the depth-limit nodes instead of evaluating those nodes",
    departs="`if CUTOFF-TEST(state, depth) then return EVAL(state)` (AIMA Sec. 5.4, H-MINIMAX): "
            "the test is `depth == depth_limit` with the root at depth 0 and `depth + 1` passed "
            "to each child",
    fix="test `game.is_cutoff(state, depth)` at the top of every function, and pass `depth + 1`",
)
def _late_cutoff(game: Any, state: Any, depth: int = 0) -> float:
    return _mm(game, state, depth, late_cutoff=True)


@mistake(
    "eager_generation", MINIMAX.name, title="generates all children first",
    does="your code calls `game.result` for every child of a node before searching the first "
         "one, so the generated order is breadth-first within each node",
    departs="`for each a in ACTIONS(state) do v <- MAX(v, MIN-VALUE(RESULT(state, a)))` (AIMA "
            "Fig. 5.3): each child is made right before it is searched",
    fix="call `game.result(state, action)` inside the loop, right where you search the child",
)
def _mm_eager(game: Any, state: Any, depth: int = 0) -> float:
    return _mm(game, state, depth, eager=True)


@mistake(
    "recomputes_child", MINIMAX.name, title="makes each child twice",
    does="your code calls `game.result(state, action)` twice for the same child (for example "
         "once to ask who moves there and once to search it); every call generates a node",
    departs="`v <- MAX(v, MIN-VALUE(RESULT(state, a)))` (AIMA Fig. 5.3) calls RESULT once per "
            "child",
    fix="store the child once (`child = game.result(state, action)`) and use that variable",
)
def _mm_twice(game: Any, state: Any, depth: int = 0) -> float:
    return _mm(game, state, depth, twice=True)


@mistake(
    "returns_action", MINIMAX.name, title="returns the action, not the value",
    does="your function returns the best action at the root instead of the minimax value",
    departs="MAX-VALUE / MIN-VALUE return the utility `v` (AIMA Fig. 5.3); only "
            "MINIMAX-SEARCH returns a move, and the grader calls the value functions",
    fix="return `v` at every depth; keep the best move in a separate function if you need it",
)
def _mm_action(game: Any, state: Any, depth: int = 0) -> Any:
    return minimax_decision(game, state)


# --- alpha-beta ------------------------------------------------------------------------------


def _ab(game: Any, state: Any, alpha: float, beta: float, depth: int, strict: bool, *,
        cut: bool = True, window: bool = True, raise_alpha: bool = True, lower_beta: bool = True,
        eager: bool = False, max_tests_alpha: bool = False, min_tests_beta: bool = False,
        swap_window: bool = False) -> float:
    """Alpha-beta (AIMA Fig. 5.7) with one of its known mistakes switched on."""
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    flags = {"cut": cut, "window": window, "raise_alpha": raise_alpha, "lower_beta": lower_beta,
             "eager": eager, "max_tests_alpha": max_tests_alpha, "min_tests_beta": min_tests_beta,
             "swap_window": swap_window}
    is_max = game.to_move(state) == MAX
    if not is_max and game.to_move(state) != MIN:
        raise ValueError(f"alpha_beta variant: player {game.to_move(state)!r} at {state}")
    children = ([game.result(state, a) for a in game.actions(state)] if eager
                else (game.result(state, a) for a in game.actions(state)))
    v = -math.inf if is_max else math.inf
    for child in children:
        low, high = (alpha, beta) if window else (-math.inf, math.inf)
        low, high = (high, low) if swap_window else (low, high)
        value = _ab(game, child, low, high, depth + 1, strict, **flags)
        below = (lambda bound: v < bound) if strict else (lambda bound: v <= bound)
        above = (lambda bound: v > bound) if strict else (lambda bound: v >= bound)
        if is_max:
            v = max(v, value)
            if cut and (below(alpha) if max_tests_alpha else above(beta)):
                return v
            alpha = max(alpha, v) if raise_alpha else alpha
        else:
            v = min(v, value)
            if cut and (above(beta) if min_tests_beta else below(alpha)):
                return v
            beta = min(beta, v) if lower_beta else beta
    return v


def _ab_variant(**flags: bool) -> Callable[..., float]:
    def variant(game: Any, state: Any, alpha: float = -math.inf, beta: float = math.inf,
                depth: int = 0, *, strict: bool = False) -> float:
        return _ab(game, state, alpha, beta, depth, strict, **flags)

    return variant


def _other_rule(**flags: bool) -> Callable[..., float]:
    """A variant that prunes by the rule the course does not teach."""

    def variant(game: Any, state: Any, alpha: float = -math.inf, beta: float = math.inf,
                depth: int = 0, *, strict: bool = False) -> float:
        return _ab(game, state, alpha, beta, depth, not strict, **flags)

    return variant


mistake(
    "strict_pruning", ALPHA_BETA.name, title="prunes only on strict inequality",
    does="your search cuts only when `v > beta` (MAX) or `v < alpha` (MIN), so when a child's "
         "value equals the bound it still searches the remaining siblings",
    departs=f"`if v >= beta then return v` in MAX-VALUE and `if v <= alpha then return v` in "
            f"MIN-VALUE ({FIG_5_7}): this course prunes on equality",
    fix="use `>=` in the MAX test and `<=` in the MIN test",
    rules=("inclusive",),
)(_other_rule())

mistake(
    "inclusive_pruning", ALPHA_BETA.name, title="prunes on equality",
    does="your search cuts when `v >= beta` (MAX) or `v <= alpha` (MIN), so it prunes siblings "
         "of a child whose value only equals the bound",
    departs="this course prunes only on strict inequality: `if v > beta then return v` in "
            "MAX-VALUE and `if v < alpha then return v` in MIN-VALUE",
    fix="use `>` in the MAX test and `<` in the MIN test",
    rules=("strict",),
)(_other_rule())

mistake(
    "never_prunes", ALPHA_BETA.name, title="never prunes",
    does="your search keeps alpha and beta but never stops early: every child is searched, so "
         "nodes the reference prunes appear in your `generated`",
    departs=f"`if v >= beta then return v` in MAX-VALUE and `if v <= alpha then return v` in "
            f"MIN-VALUE ({FIG_5_7}): the early return is the pruning",
    fix="right after updating `v` in the loop, return `v` when it reaches the bound (MAX: "
        "`v >= beta`, MIN: `v <= alpha`)",
)(_ab_variant(cut=False))

mistake(
    "no_window_passing", ALPHA_BETA.name, title="does not pass alpha and beta down",
    does="your search calls the children with the full window (-inf, +inf) (or the defaults) "
         "instead of the node's current alpha and beta, so no child can ever cut",
    departs=f"`v <- MAX(v, MIN-VALUE(game, RESULT(state, a), alpha, beta))` ({FIG_5_7}): each "
            "child gets the window as it is at that moment",
    fix="pass the current `alpha, beta` in the recursive call: "
        "`alpha_beta(game, child, alpha, beta, depth + 1)`",
)(_ab_variant(window=False))

mistake(
    "eager_generation", ALPHA_BETA.name, title="generates all children first",
    does="your code calls `game.result` for all children of a node before searching them, so "
         "children that are later pruned are generated anyway",
    departs=f"`for each a in ACTIONS(state) do v <- MAX(v, MIN-VALUE(RESULT(state, a), ...))` "
            f"({FIG_5_7}): a child is made only when it is about to be searched",
    fix="call `game.result(state, action)` inside the loop, after the cut test of the previous "
        "child",
)(_ab_variant(eager=True))

mistake(
    "forgets_alpha_update", ALPHA_BETA.name, title="never raises alpha",
    does="your MAX nodes never raise alpha, so the MIN nodes below them never see a bound to "
         "cut against",
    departs=f"`alpha <- MAX(alpha, v)` in MAX-VALUE ({FIG_5_7}), after the cut test",
    fix="after the `v >= beta` test in the MAX branch, add `alpha = max(alpha, v)`",
)(_ab_variant(raise_alpha=False))

mistake(
    "forgets_beta_update", ALPHA_BETA.name, title="never lowers beta",
    does="your MIN nodes never lower beta, so the MAX nodes below them never see a bound to "
         "cut against",
    departs=f"`beta <- MIN(beta, v)` in MIN-VALUE ({FIG_5_7}), after the cut test",
    fix="after the `v <= alpha` test in the MIN branch, add `beta = min(beta, v)`",
)(_ab_variant(lower_beta=False))

mistake(
    "min_cut_tests_beta", ALPHA_BETA.name, title="MIN nodes test beta instead of alpha",
    does="your MIN nodes cut when `v >= beta` (MAX's test) instead of when `v <= alpha`, so they "
         "miss the cuts a MAX ancestor's alpha allows",
    departs=f"`if v <= alpha then return v` in MIN-VALUE ({FIG_5_7}): a MIN node is cut by the "
            "best value MAX already has (alpha)",
    fix="in the MIN branch test `if v <= alpha: return v`",
)(_ab_variant(min_tests_beta=True))

mistake(
    "max_cut_tests_alpha", ALPHA_BETA.name, title="MAX nodes test alpha instead of beta",
    does="your MAX nodes cut when `v <= alpha` (MIN's test) instead of when `v >= beta`, so they "
         "stop after the first child or miss the cuts a MIN ancestor's beta allows",
    departs=f"`if v >= beta then return v` in MAX-VALUE ({FIG_5_7}): a MAX node is cut by the "
            "best value MIN already has (beta)",
    fix="in the MAX branch test `if v >= beta: return v`",
)(_ab_variant(max_tests_alpha=True))

mistake(
    "swapped_window", ALPHA_BETA.name, title="passes the window swapped",
    does="your recursive call passes `beta, alpha` where it should pass `alpha, beta`, so every "
         "child starts from a window turned inside out and cuts after its first child",
    departs=f"`MIN-VALUE(game, RESULT(state, a), alpha, beta)` ({FIG_5_7}): alpha first, then "
            "beta, at every call",
    fix="call `alpha_beta(game, child, alpha, beta, depth + 1)`",
)(_ab_variant(swap_window=True))


@mistake(
    "returns_action", ALPHA_BETA.name, title="returns the action, not the value",
    does="your `alpha_beta` returns the best action at the root instead of the value",
    departs=f"MAX-VALUE / MIN-VALUE return `v` ({FIG_5_7}); only ALPHA-BETA-SEARCH returns a "
            "move, and the grader calls the value function",
    fix="return `v` at every depth, the root included",
)
def _ab_action(game: Any, state: Any, alpha: float = -math.inf, beta: float = math.inf,
               depth: int = 0, *, strict: bool = False) -> Any:
    return alpha_beta_decision(game, state, strict=strict)
