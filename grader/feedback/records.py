"""The matches of an ``evaluate`` test as data: the records the HTML report draws boards from.

:func:`records_data` makes ``extra_data["play"]`` (every match, each lost one's losing choice)
and :func:`summary_data` ``extra_data["play_summary"]`` (how the score came about), from the
match records ``reference/play.py`` makes (plain fields, read without importing it) and the
losing choices ``reference.play.losing_choice`` finds. ``grader/report/html/play.py`` reads
them and nothing else: no case file, answer key or reference. Any command that plays matches
(``grader grade``'s evaluate tests, a local play command) writes these and gets the same page.
``grader play`` has no staff search to compare with: its lost matches are analysed by
:func:`move_that_let_them_win` instead.
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


ANALYSIS_CALLS = 300_000  # game.result calls one lost match's analysis may make (then: less said)


def move_that_let_them_win(game: Any, record: Any) -> dict[str, Any]:
    """A lost match analysed without a staff search (``grader play``: the handout has none):
    the last move of the player under test after which the opponent could win at once (or force
    a win in two moves of theirs: a double threat) although another move there would not have
    let them, as the HTML report's ``choice``: ``kind`` ``"lets_win"``, ``move`` (its number,
    from 1), ``yours`` (the action), ``plies`` (1: at once; 2: forced in two moves of theirs),
    ``safe`` (the actions that would not have let them, in ``actions`` order). ``kind``
    ``"set_up_earlier"`` when no single move did, within :data:`ANALYSIS_CALLS`."""
    mover = 1 if record.side == "x" else -1  # utility is x's: positive when x won
    calls = [0]

    def result(state: Any, action: Any) -> Any:
        calls[0] += 1
        if calls[0] > ANALYSIS_CALLS:
            raise _OutOfCalls
        return game.result(state, action)

    def lost(state: Any) -> bool:
        return game.is_terminal(state) and mover * game.utility(state) < 0

    def they_win(state: Any, moves: int) -> bool:
        """The opponent, to move at ``state``, wins within ``moves`` moves of theirs."""
        children = [result(state, reply) for reply in game.actions(state)]
        if any(lost(child) for child in children):
            return True
        return moves > 1 and any(
            not game.is_terminal(child) and all(
                not game.is_terminal(after) and they_win(after, moves - 1)
                for after in (result(child, answer) for answer in game.actions(child)))
            for child in children)

    def lets_them_win(state: Any, action: Any, moves: int) -> bool:
        child = result(state, action)
        return not game.is_terminal(child) and they_win(child, moves)

    try:
        for moves in (1, 2):
            for number in range(len(record.moves) - 1, record.opening - 1, -1):
                mark, action = record.moves[number]
                if mark != record.side or number >= len(record.positions):
                    continue
                state = game.state_from_id(record.positions[number])
                if not lets_them_win(state, action, moves):
                    continue
                safe = [other for other in game.actions(state)
                        if not lets_them_win(state, other, moves)]
                if safe:
                    return {"kind": "lets_win", "move": number + 1, "yours": action,
                            "plies": moves, "safe": safe}
    except _OutOfCalls:
        pass
    return {"kind": "set_up_earlier"}


class _OutOfCalls(Exception):
    """The analysis ran past :data:`ANALYSIS_CALLS`."""


def move_that_let_them_win_text(choice: dict[str, Any], unit: str = "move") -> str:
    """:func:`move_that_let_them_win`'s finding in a sentence (the terminal's and the page's)."""
    if choice.get("kind") != "lets_win":
        return ("No single move of yours let them win at once or by a double threat: the loss "
                "was set up earlier.")
    safe = ", ".join(str(action) for action in choice["safe"])
    how = "win at once" if choice.get("plies") == 1 else "force a win (a double threat)"
    return (f"Your losing move: move {choice['move']}, {unit} {choice['yours']}, let them "
            f"{how}; {unit} {safe} would not have.")


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
