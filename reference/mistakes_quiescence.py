"""Known mistakes of depth-limited alpha-beta with quiescence search, each with its hint.

Registered in the catalogue (:mod:`reference.mistake_registry`) on import. Every variant is
:func:`_search`, the reference's search (:mod:`reference.quiescence`) with one flag switched on;
a mistake with ``forms`` has several codings (:class:`reference.mistake_registry.Mistake`).
"""

from __future__ import annotations

import math
from typing import Any

from grader.algorithms.quiescence import ALGORITHM as QUIESCENCE
from grader.games.base import MAX
from reference.mistake_registry import mistake

THE_CONVENTION = "the quiescence steps in the `quiescence` docstring"


def _loop(game: Any, state: Any, actions: Any, v: float, alpha: float, beta: float,
          depth: int, search: Any, strict: bool = False) -> float:
    maximizing = game.to_move(state) == MAX
    for action in actions:
        child = search(game.result(state, action), alpha, beta, depth + 1)
        if maximizing:
            v = max(v, child)
            if (v > beta) if strict else (v >= beta):
                return v
            alpha = max(alpha, v)
        else:
            v = min(v, child)
            if (v < alpha) if strict else (v <= alpha):
                return v
            beta = min(beta, v)
    return v


def _horizon(game: Any, flags: dict[str, bool]) -> float:
    """The depth where the quiescence search stops (step 2), as each horizon mistake has it."""
    if flags.get("horizon_from_root"):  # `depth >= quiescence_limit`: the depth limit left out
        return game.quiescence_limit
    if flags.get("horizon_from_cutoff"):  # the helper's depth restarts at 0 at the cutoff
        return 2 * game.depth_limit + game.quiescence_limit
    return game.depth_limit + game.quiescence_limit + (1 if flags.get("horizon_late") else 0)


def _quiesce(game: Any, state: Any, alpha: float, beta: float, depth: int,
             flags: dict[str, bool]) -> float:
    stand = game.evaluate(state)
    if game.is_terminal(state) or (depth >= _horizon(game, flags) and not flags.get("no_limit")):
        return stand
    if game.is_quiet(state) and not flags.get("all_moves"):
        return stand
    maximizing = game.to_move(state) == MAX
    v = stand
    if (flags.get("no_stand_pat") or flags.get("stand_pat_last")
            or (flags.get("stand_pat_max_only") and not maximizing)):
        v = -math.inf if maximizing else math.inf
    elif not flags.get("no_stand_pat_cut"):
        if maximizing:
            if v >= beta:
                return v
            if not flags.get("stand_pat_no_narrow"):
                alpha = max(alpha, v)
        else:
            if v <= alpha:
                return v
            if not flags.get("stand_pat_no_narrow"):
                beta = min(beta, v)
    actions = game.actions(state) if flags.get("all_moves") else game.noisy_actions(state)
    if not actions:
        return stand
    v = _loop(game, state, actions, v, alpha, beta, depth,
              lambda s, a, b, d: _quiesce(game, s, a, b, d, flags), flags.get("strict", False))
    if flags.get("stand_pat_last"):  # the mover declines the noisy moves after searching them
        v = max(v, stand) if maximizing else min(v, stand)
    return v


def _search(game: Any, state: Any, alpha: float, beta: float, depth: int,
            flags: dict[str, bool]) -> float:
    if game.is_cutoff(state, depth):
        if flags.get("no_quiescence"):
            return game.evaluate(state)
        return _quiesce(game, state, alpha, beta, depth, flags)
    start = -math.inf if game.to_move(state) == MAX else math.inf
    return _loop(game, state, game.actions(state), start, alpha, beta, depth,
                 lambda s, a, b, d: _search(game, s, a, b, d, flags), flags.get("strict", False))


def _switched(**flags: bool):
    """The search of :func:`_search` with one mistake switched on (the stub's signature)."""
    def search(game: Any, state: Any, alpha: float = -math.inf, beta: float = math.inf,
               depth: int = 0) -> float:
        return _search(game, state, alpha, beta, depth, flags)
    return search


mistake(
    "no_quiescence", QUIESCENCE.name, title="stops at the depth limit",
    does="your search returns `game.evaluate(state)` at the cutoff, as plain depth-limited "
         "alpha-beta does, and never looks past it along noisy moves (the horizon effect)",
    departs=THE_CONVENTION + ": at a cutoff that is not quiet, search the noisy moves",
    fix="at a cutoff call your quiescence helper instead of returning `game.evaluate(state)`",
)(_switched(no_quiescence=True))

mistake(
    "all_moves", QUIESCENCE.name, title="extends every move past the limit",
    does="past the depth limit your search follows every action, not only "
         "`game.noisy_actions(state)`, and it goes on at quiet states too",
    departs=THE_CONVENTION + ": step 2 returns `stand` at a quiet state; step 4 loops over "
            "the noisy actions only",
    fix="loop over `game.noisy_actions(state)` in the quiescence helper and return `stand` "
        "when `game.is_quiet(state)`",
)(_switched(all_moves=True))

mistake(
    "no_stand_pat", QUIESCENCE.name, title="no stand pat",
    does="your quiescence search starts `v` at -infinity (MAX) / +infinity (MIN), so the player "
         "to move is made to take a noisy move even when standing pat is better",
    departs=THE_CONVENTION + ": step 3, `v = stand` and the cut on it before any noisy move",
    fix="start `v = stand`; MAX returns it if `v >= beta`, else `alpha = max(alpha, v)`; MIN "
        "mirrored",
)(_switched(no_stand_pat=True))

mistake(
    "no_stand_pat_cut", QUIESCENCE.name, title="does not stand pat before the noisy moves",
    does="your quiescence search does not use `stand` before the first noisy move as step 3 "
         "says: it searches the noisy moves even when `stand` alone already fails high (MAX, "
         "`stand >= beta`) or low (MIN), or it does not narrow the window with `stand`, or it "
         "takes `stand` into account only after the noisy moves",
    departs=THE_CONVENTION + ": step 3 returns `stand` before any noisy move when it is "
            "outside the window, and narrows the window with it",
    fix="right after `v = stand`: MAX `if v >= beta: return v` then `alpha = max(alpha, v)`; "
        "MIN `if v <= alpha: return v` then `beta = min(beta, v)`; then the loop over the "
        "noisy moves, starting from that `v`",
    forms=(_switched(stand_pat_no_narrow=True), _switched(stand_pat_last=True)),
)(_switched(no_stand_pat_cut=True))

mistake(
    "stand_pat_max_only", QUIESCENCE.name, title="stands pat for MAX only",
    does="your quiescence search lets MAX stand pat but makes MIN take a noisy move (MIN "
         "starts from +infinity)",
    departs=THE_CONVENTION + ": step 3, the stand-pat bound holds for the player to move, "
            "MIN too",
    fix="at MIN: `v = stand`; `if v <= alpha: return v`; `beta = min(beta, v)`",
)(_switched(stand_pat_max_only=True))

mistake(
    "no_quiescence_limit", QUIESCENCE.name, title="ignores the quiescence limit",
    does="your quiescence search goes on along noisy moves until the position is quiet, "
         "however deep",
    departs=THE_CONVENTION + ": step 2 returns `stand` at `depth >= game.depth_limit + "
            "game.quiescence_limit`",
    fix="return `stand` once `depth >= game.depth_limit + game.quiescence_limit`",
)(_switched(no_limit=True))

mistake(
    "quiescence_limit_off_by_one", QUIESCENCE.name, title="stops at the wrong quiescence horizon",
    does="your quiescence search stops extending at another depth than step 2's `depth >= "
         "game.depth_limit + game.quiescence_limit`: one ply later (`>`), or without the "
         "`game.depth_limit`, or with the helper's depth counted again from 0 at the cutoff",
    departs=THE_CONVENTION + ": step 2 returns `stand` at `depth >= game.depth_limit + "
            "game.quiescence_limit` (depth counts from the root, as everywhere, and the helper "
            "gets the cutoff's own depth)",
    fix="call the helper with the same `depth` and compare `depth >= game.depth_limit + "
        "game.quiescence_limit`",
    forms=(_switched(horizon_from_root=True), _switched(horizon_from_cutoff=True)),
)(_switched(horizon_late=True))


mistake(
    "strict_pruning", QUIESCENCE.name, title="prunes only on strict inequality",
    does="your search cuts only when `v > beta` (MAX) or `v < alpha` (MIN), so a child whose "
         "value equals the bound does not end the loop",
    departs=THE_CONVENTION + ": the loops, above the cutoff and over the noisy moves, prune "
            "on equality (`v >= beta` / `v <= alpha`), whatever the course's rule for "
            "`alpha_beta`",
    fix="cut at `v >= beta` at MAX and `v <= alpha` at MIN in both loops",
)(_switched(strict=True))


__all__: list[str] = []
