"""The staff implementations: the ground truth every answer is computed from.

One module an algorithm, each stating its convention in its docstring:
:mod:`.minimax`, :mod:`.alpha_beta`, :mod:`.expectimax`, :mod:`.maxn`, :mod:`.mcts`,
:mod:`.deepening` (iterative deepening with root move ordering), :mod:`.transposition`
(alpha-beta with a transposition table), :mod:`.quiescence` (quiescence search at the cutoff).
Never shipped to students.

:func:`reference_functions` gives the *function table* that
:func:`grader.run.runner.run_algorithm` calls (the stub names mapped to callables, with the
pruning rule bound into those following the course's rule), from the algorithms' specs
(:mod:`grader.algorithms`, which name these modules' functions by import string);
:func:`decision` gives the root action, first on ties.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import grader.algorithms as algorithm_specs
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
    """The stub names mapped to the reference, from every algorithm's spec
    (:mod:`grader.algorithms`); those following the course's rule prune by ``pruning``.

    ``pruning`` is ``"inclusive"`` (cut at ``v >= beta`` / ``v <= alpha``) or ``"strict"``
    (cut at ``v > beta`` / ``v < alpha``). A case's ``"either"`` is the caller's to resolve.
    The others (a fixed rule: the transposition table's and quiescence's always inclusive)
    ignore it.
    """
    strict = _strict(pruning)
    table = {}
    for spec in algorithm_specs.registry().values():
        for stub, target in spec.reference.items():
            function = algorithm_specs.resolve(target)
            table[stub] = (functools.partial(function, strict=True)
                           if strict and spec.course_rule else function)
    return table


def decision(game: Any, algorithm: str, *, pruning: str = "inclusive") -> Any:
    """The root action of ``game`` under ``algorithm`` (first on ties; None with no move), by
    its spec's ``decision`` (iterative deepening's: the last iteration's, at ``max_depth =
    game.depth_limit``). An algorithm with none (MCTS: its answer is its action) is an error.
    """
    spec = algorithm_specs.get(algorithm)
    if spec.decision is None:
        with_one = tuple(s.name for s in algorithm_specs.registry().values() if s.decision)
        raise ValueError(f"expected algorithm to be one of {with_one}, got: {algorithm!r}")
    function = algorithm_specs.resolve(spec.decision)
    state = game.initial_state()
    if spec.course_rule:
        return function(game, state, strict=_strict(pruning))
    return function(game, state)


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
