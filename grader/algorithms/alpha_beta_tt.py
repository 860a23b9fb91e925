"""Alpha-beta with a transposition table: ``alpha_beta_tt(game, root, table)`` gets a fresh
dict; two players, no chance, always the inclusive rule (the table's bounds assume it)."""

from __future__ import annotations

from grader.algorithms import Algorithm


def sheet_note(case, result, solve, fmt) -> tuple[bool, list[str]]:
    """(whether it prunes, the answer sheet's words) for ``case``."""
    plain = solve(case, "alpha_beta")
    saved = len(plain.generated) - len(result.generated)
    return True, [f"- (Alpha-beta with a transposition table, pruning on equality: plain "
                  f"alpha-beta generates {len(plain.generated)} nodes here, so the table saves "
                  f"{saved}.)"]


ALGORITHM = Algorithm(
    name="alpha_beta_tt",
    order=8,
    summary="(alpha-beta with a transposition table)",
    stubs=("alpha_beta_tt",),
    call="table",
    fixed_rule_note="always the inclusive rule",
    reference={"alpha_beta_tt": "reference.transposition:alpha_beta_tt"},
    decision="reference.alpha_beta:alpha_beta_decision",  # the table changes the work only
    steps="reference.steps_search:table_steps",
    step_notes="search",
    mistakes="reference.mistakes_transposition",
    view="events",
    sheet_note=sheet_note,
)
