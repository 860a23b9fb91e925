"""What an ``evaluate`` test says: the win/draw/loss table by side, each lost match's moves and
final board, and the move where the student's search went wrong, with both evaluations'
values of every move there.

Reads the match records ``reference/play.py`` makes (plain fields: ``index``, ``side``,
``moves``, ``opening``, ``decisions``, ``final``, ``outcome``), without importing it. A losing
decision's values are exact for every move when the grader could complete the moves the search
pruned; otherwise a pruned move shows its bound.

The same matches as data, for the HTML report: :mod:`grader.feedback.records`.
"""

from __future__ import annotations

from typing import Any

from grader.feedback.records import preferred_move

MAX_LOST_SHOWN = 3  # lost matches written out in full; the others are listed


def draw_board(game: Any, state_id: str) -> str:
    """The board as text: a row of column numbers (Connect Four) or coordinates, then the rows."""
    rows = state_id.split("|")
    columns = len(rows[0])
    if type(game).__name__ == "ConnectFour":
        lines = [" " + " ".join(str(c) for c in range(columns))]
        lines += [" " + " ".join(row) for row in rows]
    else:  # squares numbered row by row: the first square of each row on the left
        lines = ["     " + " ".join(str(c) for c in range(columns))]
        lines += [f"{r * columns:>3}  " + " ".join(row) for r, row in enumerate(rows)]
    return "\n".join(lines)


def value_text(value: Any) -> str:
    """A backed-up value ``(tier, number)`` in words."""
    tier, number = value
    if tier > 0:
        return f"x wins in {int(-number)}"
    if tier < 0:
        return f"o wins in {int(number)}"
    return f"{number:.6g}"


def _table(records: list[Any]) -> list[str]:
    lines = ["| you play | wins | draws | losses |", "| --- | --- | --- | --- |"]
    for side in ("x", "o"):
        mine = [r for r in records if r.side == side]
        counts = [sum(r.outcome == k for r in mine) for k in ("win", "draw", "loss")]
        lines.append(f"| {side} ({'first' if side == 'x' else 'second'}) | "
                     + " | ".join(map(str, counts)) + " |")
    return lines


def _moves(record: Any) -> str:
    parts = []
    for number, (mark, action) in enumerate(record.moves):
        who = "opening" if number < record.opening else ("you" if mark == record.side else "them")
        parts.append(f"{number + 1}. {mark}{action} ({who})")
    return ", ".join(parts)


def _choice(game: Any, record: Any, found: Any) -> list[str]:
    if found is None:
        return ["Every move of yours there is also the staff search's choice: the loss came "
                "from beyond what the search sees at this depth."]
    decision, staff = found
    lines = [f"Where your choice lost: before move {record.positions.index(decision.position) + 1}"
             f", your search played {decision.action}; the same search with the staff's "
             f"evaluation would have played {preferred_move(decision.position, staff)}.",
             "", "```", draw_board(game, decision.position), "```", "",
             "| move | your search's value | with the staff's evaluation |",
             "| --- | --- | --- |"]
    x_to_move = decision.position.count("x") == decision.position.count("o")
    for action, staff_value in staff.items():
        mark = " (yours)" if action == decision.action else ""
        if action in decision.values:
            mine = value_text(decision.values[action])
        else:  # the grader could not complete it: the bound the search pruned it by
            mine = (f"{'at most' if x_to_move else 'at least'} "
                    f"{value_text(decision.pruned[action])} (pruned)")
        lines.append(f"| {action}{mark} | {mine} | {value_text(staff_value)} |")
    lines.append("")
    lines.append("(values are for x: your evaluation's at the search's cutoff, backed up; "
                 "an outcome the search sees outranks any evaluation"
                 + ("; a pruned move is one the search saw could not beat the move it kept, "
                    "without evaluating all of it)" if decision.pruned else ")"))
    return lines


def report(game: Any, opponent: str, records: list[Any], value: float, thresholds: list,
           draw_weight: float, losing: dict[int, Any]) -> tuple[str, str]:
    """(summary, Markdown output) of a played case."""
    wins = sum(r.outcome == "win" for r in records)
    draws = sum(r.outcome == "draw" for r in records)
    losses = len(records) - wins - draws
    reached = [t for t in thresholds if value >= t]
    summary = (f"{wins} wins, {draws} draws, {losses} losses in {len(records)} matches "
               f"against {opponent}")
    lines = [summary + f": {value:g} (a draw counts {draw_weight:g}), thresholds "
             f"{', '.join(f'{t:g}' for t in thresholds)}: {len(reached)} reached.", ""]
    lines += _table(records)
    lost = [r for r in records if r.outcome == "loss"]
    for record in lost[:MAX_LOST_SHOWN]:
        lines += ["", f"**Match {record.index + 1} (you: {record.side}), lost.** Moves "
                  f"(column or square, Connect Four columns from 0 on the left): {_moves(record)}",
                  "", "Final board:", "```", draw_board(game, record.final), "```", ""]
        lines += _choice(game, record, losing.get(record.index))
    if len(lost) > MAX_LOST_SHOWN:
        lines += ["", f"Also lost: matches {', '.join(str(r.index + 1) for r in lost[MAX_LOST_SHOWN:])}."]
    return summary, "\n".join(lines)


def records_data(records: list[Any], game: Any = None, losing: Any = None
                 ) -> list[dict[str, Any]]:
    """The matches as JSON data: :func:`grader.feedback.records.records_data` (its home)."""
    from grader.feedback import records as match_records
    return match_records.records_data(records, game, losing)


def sample_report(game: Any, positions: dict[str, Any], values: dict[str, float]) -> str:
    """The handout's check: the sample positions and the values ``evaluate`` gave them."""
    lines = ["The search that plays the graded matches is not in the handout: here `evaluate` "
             "ran on sample positions (random play from the start), and returned a finite "
             "number for each. Check that the values make sense (positive when x is better "
             "off); the autograder plays the matches.", ""]
    for state_id, number in values.items():
        lines += ["```", draw_board(game, state_id), "```", f"evaluate: {number:.6g}", ""]
    return "\n".join(lines)
