"""The reference's answers for a case: value, root action and trace, in any pruning rule.

Runs in the grader's own process (never in the student's worker). :func:`solve` is what the
grading loop and ``grader validate`` compare against; :func:`solve_main` is ``grader solve``;
:func:`optimal_actions` is what MCTS ``outcome`` checks accept.

Pruning rule resolution (alpha-beta only; the other algorithms ignore it): the ``pruning``
argument, else the case's rule, else the rubric's course rule, else ``inclusive``; ``either``
resolves to the course rule (``inclusive`` without a rubric). MCTS runs with the case's
settings; ``seed`` overrides the case's seed.
"""

from __future__ import annotations

import math
from typing import Any

from grader.games.base import CHANCE
import grader.algorithms as algorithm_specs
from grader.cases.algorithms import ALGORITHMS
from grader.run.runner import MctsSettings, RunResult, run_algorithm

RULES = ("inclusive", "strict")


def _course_rule(algorithm: str, rubric: Any) -> str:
    """The rubric's rule for ``algorithm`` (``inclusive`` without a rubric)."""
    if rubric is None:
        return "inclusive"
    for_algorithm = getattr(rubric, "for_algorithm", None)
    rule = getattr(for_algorithm(algorithm), "pruning", None) if for_algorithm else None
    if rule not in RULES:
        rule = getattr(rubric, "pruning", None)
    return rule if rule in RULES else "inclusive"


def resolve_pruning(
    case: Any, algorithm: str, pruning: str | None = None, rubric: Any = None
) -> str:
    """The rule to solve with: ``inclusive`` or ``strict`` (see the module docstring)."""
    rule = pruning or getattr(case, "pruning", None)
    if rule is None or rule == "either":
        return _course_rule(algorithm, rubric)
    if rule not in RULES:
        raise ValueError(f"expected pruning to be one of {RULES + ('either',)}, got: {rule!r}")
    return rule


def mcts_settings(case: Any, seed: int | None = None) -> MctsSettings:
    """The case's MCTS settings as the runner takes them, ``seed`` overriding the case's."""
    given = getattr(case, "mcts", None)
    default = MctsSettings()
    return MctsSettings(
        iterations=getattr(given, "iterations", None) or default.iterations,
        seed=seed if seed is not None else getattr(given, "seed", default.seed),
        c=getattr(given, "c", default.c),
    )


def solve(
    case: Any,
    algorithm: str,
    pruning: str | None = None,
    seed: int | None = None,
    rubric: Any = None,
) -> RunResult:
    """The reference's run of ``algorithm`` on ``case``: value, root action, trace."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"expected algorithm to be one of {ALGORITHMS}, got: {algorithm!r}")
    spec = algorithm_specs.get(algorithm)
    rule = resolve_pruning(case, algorithm, pruning, rubric)
    game = case.build_game()
    settings = mcts_settings(case, seed) if spec.iterations else None
    from reference import decision, reference_functions  # staff-only: not in the handout

    result = run_algorithm(reference_functions(rule), game, algorithm, mcts=settings)
    # The decision runs on the untraced game: it does not touch the recorded trace.
    result.action = (result.value if spec.returns == "action"
                     else decision(game, algorithm, pruning=rule))
    return result


def _vector_utilities(game: Any, state: Any) -> bool:
    while not game.is_terminal(state):
        if game.to_move(state) == CHANCE:
            state = game.result(state, game.chance_outcomes(state)[0][0])
        else:
            state = game.result(state, game.actions(state)[0])
    return isinstance(game.utility(state), (tuple, list))


def optimal_actions(case: Any) -> list[Any]:
    """Every root action with the best exact value for the player to move (within 1e-9).

    Two players, numbers: alpha-beta values (expectimax where chance nodes occur); vectors:
    max^n, the mover's entry. Children are searched at depth 1, so depth limits apply.
    """
    from reference import alpha_beta, expectimax, maxn  # staff-only: not in the handout

    game = case.build_game()
    root = game.initial_state()
    if game.is_cutoff(root, 0):
        return []
    player = game.to_move(root)
    vectors = _vector_utilities(game, root)
    scores = []
    for action in game.actions(root):
        child = game.result(root, action)
        if vectors:
            score = maxn(game, child, 1)[player]
        else:
            try:
                score = alpha_beta(game, child, depth=1)
            except ValueError:  # a chance node below: alpha_beta does not take them
                score = expectimax(game, child, 1)
            score = score if player == 0 else -score
        scores.append((action, score))
    best = max(score for _, score in scores)
    return [
        action for action, score in scores if math.isclose(score, best, rel_tol=0, abs_tol=1e-9)
    ]








__all__ = ["mcts_settings", "optimal_actions", "resolve_pruning", "solve"]
