"""The staff implementations: the ground truth every answer is computed from.

One module an algorithm, each stating its convention in its docstring:
:mod:`.minimax`, :mod:`.alpha_beta`, :mod:`.expectimax`, :mod:`.maxn`, :mod:`.mcts`,
:mod:`.deepening` (iterative deepening with root move ordering), :mod:`.transposition`
(alpha-beta with a transposition table), :mod:`.quiescence` (quiescence search at the cutoff).
Never shipped to students.

:func:`reference_functions` gives the *function table* that :func:`grader.run.runner.run_algorithm`
calls (the stub names mapped to callables, with the pruning rule bound into ``alpha_beta``);
:func:`decision` gives the root action, first on ties.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from reference.alpha_beta import alpha_beta, alpha_beta_decision
from reference.deepening import iterative_deepening
from reference.expectimax import expectimax, expectimax_decision
from reference.maxn import maxn, maxn_decision
from reference.mcts import Node, best_child, mcts, mcts_tree
from reference.minimax import max_value, min_value, minimax_decision
from reference.quiescence import quiescence, quiescence_decision
from reference.transposition import alpha_beta_tt

PRUNING_RULES = ("inclusive", "strict")


def _strict(pruning: str) -> bool:
    if pruning not in PRUNING_RULES:
        raise ValueError(f"expected pruning to be one of {PRUNING_RULES}, got: {pruning!r}")
    return pruning == "strict"


def reference_functions(pruning: str = "inclusive") -> dict[str, Callable[..., Any]]:
    """The stub names mapped to the reference, ``alpha_beta`` and ``iterative_deepening``
    pruning by ``pruning``.

    ``pruning`` is ``"inclusive"`` (cut at ``v >= beta`` / ``v <= alpha``) or ``"strict"``
    (cut at ``v > beta`` / ``v < alpha``). A case's ``"either"`` is the caller's to resolve.
    """
    strict = _strict(pruning)
    return {
        "max_value": max_value,
        "min_value": min_value,
        "alpha_beta": functools.partial(alpha_beta, strict=True) if strict else alpha_beta,
        "expectimax": expectimax,
        "maxn": maxn,
        "mcts": mcts,
        "iterative_deepening": (functools.partial(iterative_deepening, strict=True) if strict
                                else iterative_deepening),
        "alpha_beta_tt": alpha_beta_tt,  # the inclusive rule whatever the course's
        "quiescence": quiescence,  # the inclusive rule whatever the course's
    }


def decision(game: Any, algorithm: str, *, pruning: str = "inclusive") -> Any:
    """The root action of ``game`` under ``algorithm`` (first on ties; None with no move).

    For ``minimax``, ``alpha_beta``, ``expectimax``, ``maxn`` and ``iterative_deepening`` (the
    last iteration's decision, at ``max_depth = game.depth_limit``); MCTS's answer is its value.
    """
    state = game.initial_state()
    if algorithm == "iterative_deepening":
        return iterative_deepening(game, state, game.depth_limit, strict=_strict(pruning))[1]
    if algorithm == "minimax":
        return minimax_decision(game, state)
    if algorithm == "alpha_beta":
        return alpha_beta_decision(game, state, strict=_strict(pruning))
    if algorithm == "alpha_beta_tt":  # the table changes the work, not the answer
        return alpha_beta_decision(game, state)
    if algorithm == "quiescence":
        return quiescence_decision(game, state)
    if algorithm == "expectimax":
        return expectimax_decision(game, state)
    if algorithm == "maxn":
        return maxn_decision(game, state)
    raise ValueError(
        f"expected algorithm to be one of ('minimax', 'alpha_beta', 'expectimax', 'maxn'), "
        f"got: {algorithm!r}"
    )


__all__ = [
    "PRUNING_RULES",
    "Node",
    "alpha_beta",
    "alpha_beta_decision",
    "alpha_beta_tt",
    "best_child",
    "decision",
    "expectimax",
    "expectimax_decision",
    "iterative_deepening",
    "max_value",
    "maxn",
    "maxn_decision",
    "mcts",
    "mcts_tree",
    "min_value",
    "minimax_decision",
    "quiescence",
    "reference_functions",
]
