"""The matches of an ``evaluate`` test as data: the records the HTML report draws boards from.

:func:`records_data` makes ``extra_data["play"]`` (every match, each lost one's losing choice)
and :func:`summary_data` ``extra_data["play_summary"]`` (how the score came about), from the
match records ``reference/play.py`` makes (plain fields, read without importing it) and the
losing choices ``reference.play.losing_choice`` finds. ``grader/report/html/play.py`` reads
them and nothing else: no case file, answer key or reference. Any command that plays matches
(``grader grade``'s evaluate tests, a local play command) writes these and gets the same page.
"""

from __future__ import annotations

from typing import Any

from grader.files import json_text

MAX_LOST_ANALYSED = 10  # lost matches whose losing choice is found (the HTML report marks it)


PLAY_DATA_BYTES = 100_000  # a test's match records in results.json at most, as written there
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
    * ``choice`` (lost matches, the first :data:`MAX_LOST_ANALYSED`): :func:`choice_data`.

    The first version also had ``positions`` (the position before each move, then the last
    one) for every match: the report still reads such records, and a game other than a grid
    game still gets them. Past the size cap (counted as ``results.json`` is written:
    indented) the moves of the matches not lost go first (they stay listed with their
    outcome), then matches from the end."""
    kind = _game_fields(game)
    data = []
    for r in records[:MAX_RECORDS]:
        item = {"index": r.index, "seed": r.seed, "side": r.side, "outcome": r.outcome,
                "opening": r.opening, "moves": [[mark, action] for mark, action in r.moves]}
        if kind and r.positions:
            item.update(kind, initial=r.positions[0])
        if not kind:
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
            "staff": preferred_move(decision.position, staff), "values": rows}


def preferred_move(position: str, values: dict[Any, Any]) -> Any:
    """The move the player to move at ``position`` prefers by ``values`` (for x: larger is
    better), the first in order on ties: the staff's move, in the HTML report and in
    ``grader.feedback.play``'s text alike."""
    mover_is_x = position.count("x") == position.count("o")
    best = max(values.values()) if mover_is_x else min(values.values())
    return next(action for action, value in values.items() if value == best)


def _capped(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def size() -> int:
        return len(json_text(data).encode())

    if size() <= PLAY_DATA_BYTES:
        return data
    for item in data:
        if size() <= PLAY_DATA_BYTES:
            return data
        if item["outcome"] != "loss":
            item.pop("moves", None)
            item.pop("positions", None)
    while data and size() > PLAY_DATA_BYTES:
        data.pop()
    return data


def summary_data(opponent: str, records: list[Any], play_rubric: Any, share: float,
                 planned: int = 0) -> dict[str, Any]:
    """How a played case's score came about (``extra_data["play_summary"]``): the opponent,
    the matches, ``value`` (wins + draw_weight x draws), each side's score rate, the
    thresholds (win counts, or with ``by_wins`` false the rates both sides must reach) and how
    many were reached, read off ``share`` (the points earned over the points there are: one
    threshold's worth each; a half when a rubric gives half a threshold's points), so the
    rubric's rule is decided in one place, the scoring."""
    weight = {"win": 1.0, "draw": play_rubric.draw_weight, "loss": 0.0}
    rates = {}
    for side in ("x", "o"):
        mine = [weight.get(r.outcome, 0.0) for r in records if r.side == side]
        rates[side] = round(sum(mine) / len(mine), 6) if mine else 0.0
    thresholds = list(play_rubric.thresholds_for(opponent))
    return {"opponent": opponent, "matches": len(records),
            "planned": max(planned, len(records)),  # more: play stopped, the points decided
            "value": sum(weight.get(r.outcome, 0.0) for r in records), "rates": rates,
            "draw_weight": play_rubric.draw_weight, "thresholds": thresholds,
            "by_wins": bool(getattr(play_rubric, "by_wins", True)),
            "reached": round(share * len(thresholds) * 2) / 2}
