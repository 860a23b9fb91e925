"""Known mistakes of alpha-beta with a transposition table, each with its hint.

Registered in the catalogue (:mod:`reference.mistake_registry`) on import. Every variant is
:func:`_tt`, the reference's search (:mod:`reference.transposition`) with one flag switched on;
the classic four (a bound stored as exact, an entry searched shallower used, the path as the
key, nothing stored at a cut) and more a student meets on the way. A mistake with ``forms``
has several codings, each a flag of :func:`_tt` (see :class:`reference.mistake_registry.Mistake`).
"""

from __future__ import annotations

import math
from typing import Any

from grader.algorithms.alpha_beta_tt import ALGORITHM as ALPHA_BETA_TT
from grader.games.base import MAX
from reference.mistake_registry import mistake
from reference.transposition import EXACT, LOWER, classify, needed

THE_CONVENTION = ("the table's convention in the `alpha_beta_tt` docstring: look up first, use "
                  "an entry only if `searched >= needed`, store `(v, bound, needed)` after "
                  "every search of the children")


def _tt(game: Any, state: Any, table: dict, alpha: float, beta: float, depth: int,
        path: tuple, flags: dict[str, bool]) -> float:
    """The reference's search with the mistakes in ``flags`` switched on."""
    key = (path if flags.get("path_key") else (game.key(state), depth)
           if flags.get("depth_key") else game.key(state))
    need = needed(game, depth)
    if flags.get("lookup_after_cutoff") and game.is_cutoff(state, depth):
        return game.evaluate(state)
    entry = table.get(key)
    before = (alpha, beta)
    if entry is not None:
        value, bound, searched = entry
        if searched >= need or flags.get("ignores_depth"):
            if bound == EXACT:
                return value
            if not flags.get("ignores_bounds"):
                if bound == LOWER:
                    alpha = max(alpha, value)
                else:
                    beta = min(beta, value)
                if alpha >= beta:
                    return value
    if game.is_cutoff(state, depth):
        return game.evaluate(state)
    a, b = before if flags.get("window_before_lookup") else (alpha, beta)
    maximizing = game.to_move(state) == MAX
    v = -math.inf if maximizing else math.inf
    cut = False
    strict = flags.get("strict", False)
    for action in game.actions(state):
        child = _tt(game, game.result(state, action), {} if flags.get("fresh_table") else table,
                    alpha, beta, depth + 1, path + (action,), flags)
        if maximizing:
            v = max(v, child)
            if (v > beta) if strict else (v >= beta):
                cut = True
                break
            alpha = max(alpha, v)
        else:
            v = min(v, child)
            if (v < alpha) if strict else (v <= alpha):
                cut = True
                break
            beta = min(beta, v)
    if cut and flags.get("no_store_at_cut"):
        return v
    bound = EXACT if flags.get("all_exact") else classify(v, a, b)
    if not (flags.get("keeps_first") and key in table):
        table[key] = (v, bound, need)
    return v


def _switched(**flags: bool):
    """The search of :func:`_tt` with one mistake switched on (the stub's signature)."""
    def search(game: Any, state: Any, table: dict, alpha: float = -math.inf,
               beta: float = math.inf, depth: int = 0) -> float:
        return _tt(game, state, table, alpha, beta, depth, (), flags)
    return search


mistake(
    "bound_stored_as_exact", ALPHA_BETA_TT.name, title="stores a bound as exact",
    does="your search stores every value as `\"exact\"`, also a value that came from a cut "
         "(only a lower bound) or one at most alpha (only an upper bound); a later visit of "
         "that state returns the bound as if it were the state's value",
    departs=THE_CONVENTION + "; the bound is `\"upper\"` if `v <= a`, `\"lower\"` if "
            "`v >= b`, `\"exact\"` only strictly between",
    fix="keep `a, b = alpha, beta` as the loop over the children starts and store `\"upper\"` "
        "when `v <= a`, `\"lower\"` when `v >= b`, else `\"exact\"`",
)(_switched(all_exact=True))

mistake(
    "shallower_entry_used", ALPHA_BETA_TT.name, title="uses an entry searched shallower",
    does="your search uses a table entry whatever depth it was searched to; an entry made "
         "nearer the depth limit saw fewer plies than this visit needs",
    departs=THE_CONVENTION + "; an entry with `searched < needed` is ignored, as if missing",
    fix="store `needed` (`game.depth_limit - depth`, or `math.inf` without a limit) with the "
        "value, and use an entry only when its `searched >= needed`",
)(_switched(ignores_depth=True))

mistake(
    "keyed_on_path", ALPHA_BETA_TT.name, title="keys the table on more than the position",
    does="your table answers less than it should: its key tells apart visits of one position "
         "(the path or the depth in the key), or each call has a fresh table, so states reached "
         "by another move order (or at another depth) are searched again",
    departs=THE_CONVENTION + "; the key is `game.key(state)`, the same for the same position "
            "however it was reached",
    fix="key the table on `game.key(state)` alone, and pass the one `table` the grader hands "
        "in down to every call",
    forms=(_switched(depth_key=True), _switched(fresh_table=True)),
)(_switched(path_key=True))

mistake(
    "no_store_at_cut", ALPHA_BETA_TT.name, title="stores nothing at a cut",
    does="your search returns at a cut without storing the state, so a later visit searches "
         "it again instead of starting from its lower (MAX) or upper (MIN) bound",
    departs=THE_CONVENTION + "; a cut's value is stored too, as a bound",
    fix="leave the loop with `break` at a cut and store after the loop in every case",
)(_switched(no_store_at_cut=True))

mistake(
    "ignores_bounds", ALPHA_BETA_TT.name, title="uses only exact entries",
    does="your search answers from `\"exact\"` entries but never narrows the window with a "
         "`\"lower\"` or `\"upper\"` one",
    departs=THE_CONVENTION + "; `\"lower\"` raises alpha, `\"upper\"` lowers beta, and a "
            "window that closes (`alpha >= beta`) returns the entry's value",
    fix="for a usable `\"lower\"` entry set `alpha = max(alpha, value)`, for `\"upper\"` "
        "`beta = min(beta, value)`, then return `value` if `alpha >= beta`",
)(_switched(ignores_bounds=True))

mistake(
    "window_before_lookup", ALPHA_BETA_TT.name, title="classifies with the window before the table",
    does="your search decides a stored value's bound with alpha and beta as the call received "
         "them, before a table entry narrowed them",
    departs=THE_CONVENTION + "; `(a, b)` is the window as the loop over the children starts, "
            "after step 1 narrowed it",
    fix="take `a, b = alpha, beta` after the look-up, right before the loop",
)(_switched(window_before_lookup=True))

mistake(
    "lookup_after_cutoff", ALPHA_BETA_TT.name, title="looks up after the cutoff test",
    does="your search evaluates a state at the depth limit without looking it up; an entry "
         "searched deeper from an earlier visit (nearer the root) would have answered",
    departs=THE_CONVENTION + "; the look-up comes first, before `game.is_cutoff`",
    fix="look the state up first, then test `game.is_cutoff(state, depth)`",
)(_switched(lookup_after_cutoff=True))

mistake(
    "keeps_first_entry", ALPHA_BETA_TT.name, title="never replaces an entry",
    does="your search stores a state only the first time: a later, better search of it (a "
         "wider window, an exact value) is thrown away",
    departs=THE_CONVENTION + "; a later store replaces the entry",
    fix="assign `table[key] = (v, bound, needed)` after every search of the children",
)(_switched(keeps_first=True))

mistake(
    "strict_pruning", ALPHA_BETA_TT.name, title="prunes only on strict inequality",
    does="your search over the children cuts only when `v > beta` (MAX) or `v < alpha` (MIN), "
         "so a child whose value equals the bound does not end the loop",
    departs=THE_CONVENTION + "; the loop over the children prunes on equality (`v >= beta` / "
            "`v <= alpha`), as the lectures do, whatever the course's rule for `alpha_beta`",
    fix="cut at `v >= beta` at MAX and `v <= alpha` at MIN in `alpha_beta_tt`",
)(_switched(strict=True))


__all__: list[str] = []
