"""Minimax: ``max_value(game, state)`` / ``min_value(game, state)``, two players, no chance.

The root's mover picks the stub (``min_value`` at a MIN root). Nothing is pruned; feedback
explains a step by the values backed up so far (:mod:`reference.steps`).
"""

from __future__ import annotations

from grader.algorithms import Algorithm


def sheet_note(case, result, solve, fmt) -> tuple[bool, list[str]]:
    """(whether it prunes, the answer sheet's words) for ``case``."""
    return False, ["- (minimax prunes nothing: every node within the depth limit.)"]


ALGORITHM = Algorithm(
    name="minimax",
    order=1,
    stubs=("max_value", "min_value"),
    reference={"max_value": "reference.minimax:max_value",
               "min_value": "reference.minimax:min_value"},
    decision="reference.minimax:minimax_decision",
    steps="reference.steps:minimax_moments",
    step_notes="tree",
    mistakes="reference.mistakes_minimax",
    sheet_note=sheet_note,
)
