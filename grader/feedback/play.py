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

from grader.algorithms.evaluate import ALGORITHM as EVALUATE
from grader.cases.schema import plural
from grader.feedback.markdown import table
from grader.feedback.records import (
    move_that_let_them_win,
    move_that_let_them_win_text,
    preferred_move,
)

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


def outcome_table(records: list[Any]) -> list[str]:
    rows = []
    for side in ("x", "o"):
        mine = [r for r in records if r.side == side]
        counts = [sum(r.outcome == k for r in mine) for k in ("win", "draw", "loss")]
        rows.append([f"{side} ({'first' if side == 'x' else 'second'})", *map(str, counts)])
    return table(["you play", "wins", "draws", "losses"], rows)


def moves_text(record: Any) -> str:
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
             "", "```", draw_board(game, decision.position), "```", ""]
    rows = []
    x_to_move = decision.position.count("x") == decision.position.count("o")
    for action, staff_value in staff.items():
        mark = " (yours)" if action == decision.action else ""
        if action in decision.values:
            mine = value_text(decision.values[action])
        else:  # the grader could not complete it: the bound the search pruned it by
            mine = (f"{'at most' if x_to_move else 'at least'} "
                    f"{value_text(decision.pruned[action])} (pruned)")
        rows.append([f"{action}{mark}", mine, value_text(staff_value)])
    lines += table(["move", "your search's value", "with the staff's evaluation"], rows)
    lines.append("")
    lines.append("(values are for x: your evaluation's at the search's cutoff, backed up; "
                 "an outcome the search sees outranks any evaluation"
                 + ("; a pruned move is one the search saw could not beat the move it kept, "
                    "without evaluating all of it)" if decision.pruned else ")"))
    return lines


def report(game: Any, opponent: str, records: list[Any], score: Any, draw_weight: float,
           losing: dict[int, Any] | None = None, points: float | None = None
           ) -> tuple[str, str]:
    """(summary, Markdown output) of a played case; ``score``: its
    ``grader.scoring.play.PlayScore``; ``losing``: each lost graded match's losing decision and
    the staff's values there. ``losing=None``: ``grader play``'s matches, played by the student's
    own search, which has no staff search beside it: no choice is shown, and the score is what
    grading would give; ``points``: what the case is worth there (0: it is said to be worth
    none)."""
    wins = sum(r.outcome == "win" for r in records)
    draws = sum(r.outcome == "draw" for r in records)
    losses = len(records) - wins - draws
    summary = (f"{plural(wins, 'win')}, {plural(draws, 'draw')}, {plural(losses, 'loss')} "
               f"in {plural(len(records), 'match')} against {opponent}")
    if getattr(score, "planned", 0) > len(records):
        unplayed = score.planned - len(records)
        summary += (f" (of {score.planned}: the other {unplayed} could not change the points, "
                    "so they were not played)")
    if losing is None:
        if points == 0:
            worth = ("This case is worth no points: it shows only that your evaluation plays "
                     "(a search a few plies deep beats a random player whatever it evaluates).")
        elif points is not None:
            earned = round(points * (score.points / score.full if score.full else 0.0), 6)
            worth = f"That is {earned:g} of this case's {plural(points, 'point')}."
        else:
            worth = ""
        lines = [summary, "", *outcome_table(records), "",
                 "Graded the same way this would score (the autograder plays with the staff's "
                 "search: the same moves as a correct alpha_beta's): "
                 + score_text(score, draw_weight) + (" " + worth if worth else "")]
    else:
        lines = [summary + ": " + score_text(score, draw_weight), "", *outcome_table(records)]
    lost = [r for r in records if r.outcome == "loss"]
    for record in lost[:MAX_LOST_SHOWN]:
        lines += ["", f"**Match {record.index + 1} (you: {record.side}), lost.** Moves "
                  f"(column or square, Connect Four columns from 0 on the left): {moves_text(record)}",
                  "", "Final board:", "```", draw_board(game, record.final), "```"]
        if losing is not None:
            lines += ["", *_choice(game, record, losing.get(record.index))]
        else:  # grader play: no staff search; the move that let them win at once, if one did
            unit = "column" if type(game).__name__ == "ConnectFour" else "square"
            lines += ["", move_that_let_them_win_text(move_that_let_them_win(game, record),
                                                      unit)]
    if len(lost) > MAX_LOST_SHOWN:
        lines += ["", f"Also lost: matches {', '.join(str(r.index + 1) for r in lost[MAX_LOST_SHOWN:])}."]
    return summary, "\n".join(lines)


def score_text(score: Any, draw_weight: float) -> str:
    """How a played case's score came about, in a sentence."""
    listed = ", ".join(f"{t:g}" if score.by_wins else f"{t:.0%}" for t in score.thresholds)
    if score.by_wins:
        return (f"{score.value:g} (a draw counts {draw_weight:g}), thresholds {listed}: "
                f"{score.reached:g} reached.")
    return (f"score rate {score.rates['x']:.0%} as x and {score.rates['o']:.0%} as o (a win "
            f"counts 1, a draw {draw_weight:g}); steps {listed}, half a step earned for each "
            f"side that reaches it: {score.reached:g} of "
            f"{plural(len(score.thresholds), 'step')}.")


def swapped(state_id: str) -> str:
    """The position with the colours swapped (x for o and o for x)."""
    return state_id.translate(str.maketrans("xo", "ox"))


def won_in_one(game: Any) -> tuple[str, str, str]:
    """Three positions a sane evaluation orders: x to move wins at once; o to move cannot stop
    x (x has three in a row open at both ends); and the first's mirror, o to move winning at
    once (the colours swapped and one harmless x mark more). Each of the first two must score
    above the third."""
    rows, columns, k = game.rows, game.columns, game.connect
    bottom = rows - 1
    gravity = type(game).__name__ == "ConnectFour"
    # o's marks out of the way: the far columns' bottom cells (Connect Four: then up the last
    # column), else the top row's corners and cells; x's k-1 marks at the bottom, from column 1
    if gravity:
        spots = [(bottom, c) for c in range(columns - 1, k, -1)]
        spots += [(r, columns - 1) for r in range(bottom - 1, -1, -1)]
    else:
        spots = [(0, 0), (0, columns - 1)] + [(0, c) for c in range(1, columns - 1)]

    def grid(marks: dict[tuple[int, int], str]) -> str:
        cells = [["."] * columns for _ in range(rows)]
        for (r, c), mark in marks.items():
            cells[r][c] = mark
        return "|".join("".join(row) for row in cells)

    line = {(bottom, c): "x" for c in range(1, k)}  # column k (or 0) completes it
    first = grid({**line, (bottom, 0): "o", **{spot: "o" for spot in spots[:k - 2]}})
    unstoppable = grid({**line, **{spot: "o" for spot in spots[:k - 2]}})
    mirror = [list(row) for row in swapped(first).split("|")]
    extra = spots[k - 2] if gravity else (0, columns // 2)
    mirror[extra[0]][extra[1]] = "x"
    return first, unstoppable, "|".join("".join(row) for row in mirror)


def mirror_pairs(game: Any, sample: list[str]) -> list[tuple[str, str]]:
    """Pairs whose values must be ordered, the first above the second: :func:`won_in_one`'s
    (when the board has room), then each sample position with x to move and its colour swap
    (both legal: the counts stay equal), whose signs must differ."""
    pairs = []
    wide = 2 * game.connect - 1 if type(game).__name__ == "ConnectFour" else game.connect + 1
    if getattr(game, "connect", 0) >= 3 and game.columns >= wide and game.rows >= 2:
        first, unstoppable, mirror = won_in_one(game)
        pairs += [(first, mirror), (unstoppable, mirror)]
    for state_id in sample:
        if state_id.count("x") == state_id.count("o") and swapped(state_id) != state_id:
            pairs.append((state_id, swapped(state_id)))
    return pairs


SWAP_EVIDENCE = 4  # colour-swapped pairs the sign check needs


def surely_wrong(game: Any, values: dict[str, float], pairs: list[tuple[str, str]]) -> list[str]:
    """What the values show is surely wrong (each a sentence; none: nothing found)."""
    flags = []
    ordered = _ordered(game, pairs)
    if len(set(values.values())) == 1:
        flags.append("evaluate returned the same value for every position: the search then "
                     "tells moves apart only by the wins and losses it sees")
    elif ordered:  # x wins at once vs its mirror: shown, not flagged (a static count may err)
        high, low = ordered[-1]
        if not values[high] > values[low]:
            flags.append(f"o cannot stop x (o to move, x's line open at both ends) got "
                         f"{values[high]:.6g}, not more than {values[low]:.6g} where o wins at "
                         "once (o to move): larger must be better for x whoever is to move")
    swaps = [(values[a], values[b]) for a, b in pairs[len(ordered):]
             if values[a] != 0 or values[b] != 0]
    same = sum(1 for a, b in swaps if a * b > 0)
    if len(swaps) >= SWAP_EVIDENCE and same >= 0.8 * len(swaps):
        flags.append(f"with the colours swapped (x's marks o's and o's x's), {same} of "
                     f"{len(swaps)} positions kept the sign of their value: what is good for x "
                     "should be bad for x once the colours swap (does evaluate count o's marks "
                     "against x?)")
    return flags


def _ordered(game: Any, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The :func:`won_in_one` pairs at the head of ``pairs``."""
    if not pairs or not hasattr(game, "connect"):
        return []
    first, unstoppable, mirror = won_in_one(game)
    return [p for p in pairs[:2] if p in ((first, mirror), (unstoppable, mirror))]


def sample_report(game: Any, sample: list[str], values: dict[str, float],
                  pairs: list[tuple[str, str]], flags: list[str]) -> str:
    """The handout's check: the values ``evaluate`` gave, and what looks surely wrong."""
    lines = ["The search that plays the graded matches is not in the handout: here `evaluate` "
             "ran on sample positions (random play from the start) and on mirrored pairs. "
             "`grader play` plays matches with your own `alpha_beta` calling your "
             "`evaluate`.", ""]
    lines += [f"Surely wrong: {flag}." for flag in flags] + ([""] if flags else [])
    rows = []
    for state_id in sample:
        mover = "x" if state_id.count("x") == state_id.count("o") else "o"
        rows.append([f"`{state_id}`", mover, f"{values[state_id]:.6g}"])
    lines += table(["position (rows top to bottom)", "to move", EVALUATE.stubs[0]], rows)
    if _ordered(game, pairs):
        first, unstoppable, mirror = won_in_one(game)
        for what, state_id in (("x to move wins at once", first),
                               ("o to move cannot stop x", unstoppable),
                               ("o to move wins at once (the first, colours swapped)", mirror)):
            lines += ["", f"{what}: evaluate {values[state_id]:.6g}", "```",
                      draw_board(game, state_id), "```"]
    return "\n".join(lines)
