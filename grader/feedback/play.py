"""What an ``evaluate`` test says: the win/draw/loss table by side, each lost match's moves and
final board, and the move where the student's search went wrong, with both evaluations'
values of every move there.

Reads the match records ``reference/play.py`` makes (plain fields: ``index``, ``side``,
``moves``, ``opening``, ``decisions``, ``final``, ``outcome``), without importing it. A losing
decision's values are exact for every move when the grader could complete the moves the search
pruned; otherwise a pruned move shows its bound.

The same matches as data (:func:`records_data`, :func:`summary_data`) go to the test's
``extra_data`` for the HTML report (``grader/report/html/play.py``), which needs nothing else.
"""

from __future__ import annotations

import json
from typing import Any

MAX_LOST_SHOWN = 3  # lost matches written out in full; the others are listed
MAX_LOST_ANALYSED = 10  # lost matches whose losing choice is found (the HTML report marks it)


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
             f"evaluation would have played {_best(game, decision.position, staff)}.",
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


def _best(game: Any, position: str, values: dict[Any, Any]) -> Any:
    """The move the mover of ``position`` prefers by ``values`` (the first on ties)."""
    mover_is_x = position.count("x") == position.count("o")
    best = max(values.values()) if mover_is_x else min(values.values())
    return next(action for action, value in values.items() if value == best)


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


PLAY_DATA_BYTES = 60_000  # a test's match records in results.json at most (``records_data``)
MAX_RECORDS = 100  # matches recorded a test; a rubric asking for more keeps the first ones


def records_data(records: list[Any], game: Any = None,
                 losing: dict[int, Any] | None = None) -> list[dict[str, Any]]:
    """Every match as JSON data (``extra_data["play"]``: staff-only in results.json; the HTML
    report replays each one), at most :data:`PLAY_DATA_BYTES` in all. A record's keys:

    * ``index``, ``seed``, ``side`` (the player under test, ``x`` or ``o``), ``outcome``
      (``win``, ``draw`` or ``loss``), ``opening`` (how many of ``moves`` were the random
      opening) and ``moves`` (``[mark, action]``, opening first): the first version's keys;
    * ``game`` (the case file's name of the game), ``connect`` (marks in a row that win) and
      ``initial`` (the position before the first move): the report replays ``moves`` from it;
    * ``positions`` (the position before each move, then the last one): kept for lost
      matches only, for readers of the first version, which had it for every match;
    * ``choice`` (lost matches, the first :data:`MAX_LOST_ANALYSED`): :func:`choice_data`.

    Past the size cap the ``positions`` go first, then the moves of matches not lost (they
    stay listed with their outcome), then matches from the end."""
    kind = _game_fields(game)
    data = []
    for r in records[:MAX_RECORDS]:
        item = {"index": r.index, "seed": r.seed, "side": r.side, "outcome": r.outcome,
                "opening": r.opening, "moves": [[mark, action] for mark, action in r.moves]}
        if kind and r.positions:
            item.update(kind, initial=r.positions[0])
        if r.outcome == "loss" or not kind:
            item["positions"] = list(r.positions) + [r.final]
        if losing is not None and r.index in losing:
            item["choice"] = choice_data(r, losing[r.index])
        data.append(item)
    return _capped(data)


def _game_fields(game: Any) -> dict[str, Any]:
    """``game`` and ``connect`` of a grid game's records; {} for another game (or none)."""
    from grader.games import BUILTIN_GAMES

    names = {class_name: name for name, (_, class_name) in BUILTIN_GAMES.items()}
    name = names.get(type(game).__name__)
    connect = getattr(game, "connect", None)
    return {"game": name, "connect": connect} if name and isinstance(connect, int) else {}


def choice_data(record: Any, found: Any) -> dict[str, Any] | None:
    """A lost match's losing choice as data, None when every move of the student's was the
    staff search's too: ``move`` (its number, from 1), ``yours`` and ``staff`` (the two
    actions) and ``values``, one entry per move there in ``actions`` order: ``action``,
    ``yours`` (the student's search's value, ``[tier, number]`` for x as :func:`value_text`
    reads it; null for a pruned move, whose ``bound`` is given instead) and ``staff`` (the
    value with the staff's evaluation)."""
    if found is None:
        return None
    decision, staff = found
    rows = []
    for action, staff_value in staff.items():
        row: dict[str, Any] = {"action": action, "yours": None, "staff": list(staff_value)}
        if action in decision.values:
            row["yours"] = list(decision.values[action])
        elif action in decision.pruned:
            row["bound"] = list(decision.pruned[action])
        rows.append(row)
    return {"move": record.positions.index(decision.position) + 1, "yours": decision.action,
            "staff": _best(None, decision.position, staff), "values": rows}


def _capped(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def size() -> int:
        return len(json.dumps(data))

    if size() <= PLAY_DATA_BYTES:
        return data
    for item in data:
        if "initial" in item:
            item.pop("positions", None)
    for item in data:
        if size() <= PLAY_DATA_BYTES:
            return data
        if item["outcome"] != "loss":
            item.pop("moves", None)
            item.pop("positions", None)
    while data and size() > PLAY_DATA_BYTES:
        data.pop()
    return data


def summary_data(opponent: str, value: float, thresholds: list, draw_weight: float,
                 matches: int) -> dict[str, Any]:
    """A played case's score as data (``extra_data["play_summary"]``, read by the HTML
    report): the opponent, the matches, ``value`` (wins + draw_weight x draws), the thresholds
    and how many were reached."""
    return {"opponent": opponent, "matches": matches, "value": value,
            "thresholds": list(thresholds), "draw_weight": draw_weight,
            "reached": sum(1 for t in thresholds if value >= t)}


def sample_report(game: Any, positions: dict[str, Any], values: dict[str, float]) -> str:
    """The handout's check: the sample positions and the values ``evaluate`` gave them."""
    lines = ["The search that plays the graded matches is not in the handout: here `evaluate` "
             "ran on sample positions (random play from the start), and returned a finite "
             "number for each. Check that the values make sense (positive when x is better "
             "off); the autograder plays the matches.", ""]
    for state_id, number in values.items():
        lines += ["```", draw_board(game, state_id), "```", f"evaluate: {number:.6g}", ""]
    return "\n".join(lines)
