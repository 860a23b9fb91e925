"""Quiescence search: ``quiescence(game, state)``, alpha-beta to the case's ``depth_limit``,
then noisy moves only (up to ``quiescence_limit``), standing pat on the evaluation; two players,
no chance, always the inclusive rule."""

from __future__ import annotations

from grader.algorithms import Algorithm, Games


def sheet_note(case, result, solve, fmt) -> tuple[bool, list[str]]:
    """(whether it prunes, the answer sheet's words) for ``case``."""
    plain = solve(case, "alpha_beta")
    limit = case.build_game().quiescence_limit
    return True, [f"- (Alpha-beta to depth {case.depth_limit}, then noisy moves only, standing "
                  f"pat on the evaluation, to depth {case.depth_limit} + {limit}; plain "
                  f"depth-limited alpha-beta answers {fmt(plain.value)} with move "
                  f"{fmt(plain.action)} in {len(plain.generated)} nodes.)"]


ALGORITHM = Algorithm(
    name="quiescence",
    order=9,
    summary="(needs depth_limit)",
    depth_limit_why="searches on from the depth cutoff, so its case needs a depth_limit",
    stubs=("quiescence",),
    games=Games(depth_limit="required", noisy_moves=True),
    fixed_rule_note="always the inclusive rule",
    reference={"quiescence": "reference.quiescence:quiescence"},
    decision="reference.quiescence:quiescence_decision",
    steps="reference.steps_search:quiescence_steps",
    step_notes="search",
    mistakes="reference.mistakes_quiescence",
    view="events",
    sheet_note=sheet_note,
)
