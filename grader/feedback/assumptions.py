"""An ``assumptions`` test's text: the lectures' 2 x 2 table and the first differing move.

The table is the lectures' ("Assumptions vs. Reality", "The Dangers of Optimism and
Pessimism"): rows the minimax agent and the expectimax agent, columns the adversarial ghost
and the random ghost; each cell the matches won and the average score, the student's agent
beside the reference's. Data in, text out: :mod:`grader.scoring.assumptions` plays the
matches, the terminal report and Gradescope's output print :func:`table_text`.
"""

from __future__ import annotations

from typing import Any

AGENT_NAMES = {"minimax": "Minimax agent", "expectimax": "Expectimax agent"}
GHOST_NAMES = {"adversarial": "adversarial ghost", "random": "random ghost"}


def cell(stats: dict[str, Any] | None) -> str:
    """``won 3/4, avg 379.0`` (``-`` when the pairing was not played)."""
    if not stats:
        return "-"
    return f"won {stats['won']}/{stats['matches']}, avg {stats['average']:.1f}"


def table_text(reference: dict[str, dict[str, Any]],
               student: dict[str, dict[str, Any]] | None = None) -> str:
    """The 2 x 2 table as Markdown; ``reference[agent][ghost]`` and ``student[agent][ghost]``
    hold ``won``, ``matches``, ``average``. With ``student``, each cell shows the student's
    agent, then the reference's in brackets; then the sentence on what the table shows."""
    ghosts = [g for g in GHOST_NAMES if any(g in row for row in reference.values())]
    lines = ["| | " + " | ".join(GHOST_NAMES[g] for g in ghosts) + " |",
             "|---|" + "---|" * len(ghosts)]
    for agent in AGENT_NAMES:
        if agent not in reference and not (student and agent in student):
            continue
        cells = []
        for ghost in ghosts:
            ref = reference.get(agent, {}).get(ghost)
            if student is not None:
                mine = student.get(agent, {}).get(ghost)
                cells.append(f"yours: {cell(mine)} (reference: {cell(ref)})")
            else:
                cells.append(cell(ref))
        lines.append(f"| {AGENT_NAMES[agent]} | " + " | ".join(cells) + " |")
    sentence = lesson(reference)
    return "\n".join(lines) + ("\n\n" + sentence if sentence else "")


def lesson(table: dict[str, dict[str, Any]]) -> str:
    """One sentence or two on what ``table`` shows (optimism, pessimism), from its numbers."""
    parts = []
    minimax, expectimax = table.get("minimax", {}), table.get("expectimax", {})
    if "random" in minimax and "random" in expectimax:
        m, e = minimax["random"]["average"], expectimax["random"]["average"]
        if e > m:
            parts.append(f"Against the random ghost the expectimax agent scores more on average "
                         f"({e:.1f} against {m:.1f}): assuming the worst of a ghost that moves "
                         "at random is needlessly pessimistic.")
        else:
            parts.append(f"Against the random ghost the minimax agent scores as much or more on "
                         f"average ({m:.1f} against {e:.1f}) on these matches.")
    if "adversarial" in minimax and "adversarial" in expectimax:
        m, e = minimax["adversarial"]["won"], expectimax["adversarial"]["won"]
        n = minimax["adversarial"]["matches"]
        if m >= e:
            parts.append(f"Against the adversarial ghost the minimax agent wins at least as "
                         f"often ({m}/{n} against {e}/{n}): assuming chance of a ghost that "
                         "hunts you is dangerously optimistic.")
        else:
            parts.append(f"Against the adversarial ghost the expectimax agent won more often "
                         f"({e}/{n} against {m}/{n}) on these matches.")
    return " ".join(parts)


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
