"""Expectimax: ``expectimax(game, state)``, two players with chance nodes; Star1 pruning when
the case gives ``value_bounds`` (the same under either pruning rule)."""

from __future__ import annotations

from grader.algorithms import Algorithm, Games


def sheet_note(case, result, solve, fmt) -> tuple[bool, list[str]]:
    """(whether it prunes, the answer sheet's words) for ``case``."""
    rule = ["- Pruning rule: none applies. The inclusive/strict rule is alpha-beta's; this "
            "search is the same under either."]
    if case.value_bounds is None:
        return False, ["- (expectimax prunes nothing: every node within the depth limit.)"] + rule
    return True, [f"- (Star1 pruning: every leaf value in {list(case.value_bounds)}.)"] + rule


ALGORITHM = Algorithm(
    name="expectimax",
    order=3,
    stubs=("expectimax",),
    games=Games(chance=True),
    reference={"expectimax": "reference.expectimax:expectimax"},
    decision="reference.expectimax:expectimax_decision",
    steps="reference.steps:expectimax_moments",
    step_notes="tree",
    mistakes="reference.mistakes_other",
    sheet_note=sheet_note,
)
