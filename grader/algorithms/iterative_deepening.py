"""Iterative deepening: ``iterative_deepening(game, root, max_depth)`` returns ``(value,
action)``; alpha-beta at depths 1 .. max_depth (the case's ``depth_limit``), the root's children
ordered by the previous iteration, under the course's pruning rule."""

from __future__ import annotations

from grader.algorithms import Algorithm, Authoring, Games


def sheet_note(case, result, solve, fmt) -> tuple[bool, list[str]]:
    """(whether it prunes, the answer sheet's words) for ``case``."""
    return True, [f"- (Alpha-beta at depth limits 1 .. {case.depth_limit}, the root's children "
                  "sorted by the previous iteration's values; every iteration generates again "
                  "the nodes it reaches.)"]


ALGORITHM = Algorithm(
    name="iterative_deepening",
    order=6,
    summary="(which needs depth_limit: it is max_depth)",
    depth_limit_why=("searches to depths 1 .. depth_limit, so its case needs a depth_limit "
                     "(max_depth)"),
    stubs=("iterative_deepening",),
    call="max_depth",
    returns="pair",
    games=Games(depth_limit="required"),
    course_rule=True,
    random_trees=False,  # its trees would need a depth limit and its answers are pairs
    reference={"iterative_deepening": "reference.deepening:iterative_deepening"},
    decision="reference.deepening:deepening_decision",
    steps="reference.deepening:deepening_steps",
    step_notes="deepening",  # the iteration, its root order and why, and the window
    mistakes="reference.mistakes_deepening",
    sheet_note=sheet_note,
    authoring=Authoring(shape="evals_inside"),
)
