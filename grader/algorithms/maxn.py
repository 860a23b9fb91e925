"""Max^n: ``maxn(game, state)``, any number of players, a payoff list at each leaf; shallow
pruning when the case gives ``max_sum`` (the same under either pruning rule)."""

from __future__ import annotations

from grader.algorithms import Algorithm, Games


def sheet_note(case, result, solve, fmt) -> tuple[bool, list[str]]:
    """(whether it prunes, the answer sheet's words) for ``case``."""
    rule = ["- Pruning rule: none applies. The inclusive/strict rule is alpha-beta's; this "
            "search is the same under either."]
    if case.max_sum is None:
        return False, ["- (maxn prunes nothing: every node within the depth limit.)"] + rule
    return True, [f"- (Shallow pruning: payoffs sum to at most {fmt(case.max_sum)}; a node "
                  "stops once its mover's best >= max_sum - the parent mover's best.)"] + rule


ALGORITHM = Algorithm(
    name="maxn",
    order=4,
    stubs=("maxn",),
    games=Games(two_player=False, vector_leaves=True),
    reference={"maxn": "reference.maxn:maxn"},
    decision="reference.maxn:maxn_decision",
    steps="reference.steps:maxn_moments",
    step_notes="tree",
    mistakes="reference.mistakes_other",
    sheet_note=sheet_note,
)
