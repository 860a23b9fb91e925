"""An ``assumptions`` test's text: the lectures' 2 x 2 table and the first differing move.

The table is the lectures' ("Assumptions vs. Reality", "The Dangers of Optimism and
Pessimism"): rows the minimax agent and the expectimax agent, columns the adversarial ghost
and the random ghost; each cell the matches won and the average score, the student's agent
beside the reference's. Data in, text out: :mod:`grader.scoring.assumptions` plays the
matches, the terminal report and Gradescope's output print :func:`table_text`.
"""

from __future__ import annotations

from typing import Any

from grader.algorithms.assumptions import AGENT_NAMES, GHOST_NAMES, cell, lesson, table_text

def values_table(expected: list[tuple[str, float]], got: list[tuple[str, float]] | None) -> str:
    """Each action's value, the student's search beside the reference's, the first differing
    value marked."""
    lines = ["| action | your value | reference value | |", "|---|---|---|---|"]
    marked = False
    mine = dict(got or [])
    for action, value in expected:
        yours = mine.get(action)
        differs = yours is None or abs(yours - value) > 1e-9
        mark = "first difference" if differs and not marked else ""
        marked = marked or differs
        shown = "-" if yours is None else f"{yours:g}"
        lines.append(f"| {action} | {shown} | {value:g} | {mark} |")
    return "\n".join(lines)


def difference_text(difference: dict[str, Any], board: list[str]) -> str:
    """The first move of the student's agent that is not the reference's: where, the board,
    both searches' values of every action."""
    return (f"In match {difference['match'] + 1} against the {difference['opponent']} ghost, "
            f"at your agent's move {difference['move'] + 1}, your search chose "
            f"`{difference['yours']}` where the reference's chooses `{difference['expected']}` "
            f"(position `{difference['position']}`):\n\n```\n" + "\n".join(board) + "\n```\n\n"
            + values_table(difference["expected_values"], difference["values"]))


__all__ = ["AGENT_NAMES", "GHOST_NAMES", "cell", "difference_text", "lesson", "table_text",
           "values_table"]
