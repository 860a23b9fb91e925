"""A student's ``evaluate(game, state)`` called on a batch of positions, under a budget.

The ``evaluate`` assignment is graded by play (:mod:`grader.scoring.play`): the grader's own
search decides every move, and asks the student's function only for the value of the positions
at its depth cutoff. This module is the call itself, the same in the sandbox worker and in the
grader's tests:

* the positions arrive as state ids and are rebuilt by the game (``game.state_from_id``), so
  nothing but strings crosses from the grader to the worker;
* each call gets an :class:`EvaluationGame`: the game's rules (``to_move``, ``actions``,
  ``result``, ``is_terminal``, ``utility``) and its board (``board(state)``, ``rows``,
  ``columns``, ``connect``), but neither the search's depth limit nor the built-in heuristic
  (``evaluate`` and ``is_cutoff`` are absent: the point is to write one's own; the bound
  methods still reach the game, as anything in the worker can: docs/security.md);
* each call may make at most ``calls`` ``result``/``utility`` calls (one count); the call that
  would pass it raises :class:`~grader.run.tracing.BudgetExceeded` (a ``BaseException``), and
  so does every later one, so a stop is decided by work, never by time;
* before each call the global ``random`` is seeded with ``"<seed>:<state id>"``: a function
  that uses ``random`` gives the same value for the same position in every run, so the grader
  may cache values by position;
* the value must be a real number (``int`` or ``float``, not ``bool``), finite: anything else is
  an :class:`EvaluationError` naming the position.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from grader.run.tracing import BudgetExceeded

MAX_POSITIONS = 5_000  # positions of one batch (a depth-3 Connect Four move needs at most 343)


class EvaluationError(Exception):
    """``evaluate`` returned something that is not a finite number (the message says what)."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


class EvaluationGame:
    """What ``evaluate`` receives: the game's rules and board, read-only, calls counted."""

    __slots__ = ("players", "rows", "columns", "connect", "to_move", "actions", "result",
                 "is_terminal", "utility", "board")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"the game is read-only: cannot set {name!r}")

    def __repr__(self) -> str:
        return f"<game: {self.rows} x {self.columns}, connect {self.connect}>"


class Counter:
    """Calls made by the current evaluation, and the batch's total (the CPU guard's progress)."""

    def __init__(self) -> None:
        self.calls = 0
        self.total = 0
        self.position = 0  # the index of the position being evaluated
        self.stopped_at: int | None = None  # the index of the position whose call passed it


def evaluation_game(game: Any, calls: int, counter: Counter) -> EvaluationGame:
    """The view of ``game`` an evaluation gets: at most ``calls`` result/utility calls (counted
    in ``counter``, reset by the caller before each position)."""
    inner_result, inner_utility = game.result, game.utility

    def spend() -> None:
        if counter.stopped_at is not None or counter.calls >= calls:
            if counter.stopped_at is None:
                counter.stopped_at = counter.position
            raise BudgetExceeded(f"passed the budget of {calls} `result`/`utility` calls "
                                 "of one evaluation")
        counter.calls += 1
        counter.total += 1

    def result(state: Any, action: Any) -> Any:
        spend()
        return inner_result(state, action)

    def utility(state: Any) -> Any:
        spend()
        return inner_utility(state)

    view = object.__new__(EvaluationGame)
    for name, value in {
        "players": game.players, "rows": game.rows, "columns": game.columns,
        "connect": game.connect, "to_move": game.to_move, "actions": game.actions,
        "result": result, "is_terminal": game.is_terminal, "utility": utility,
        "board": game.board,
    }.items():
        object.__setattr__(view, name, value)
    return view


def checked_number(value: Any) -> float | None:
    """``value`` as a finite float when it is an int or float (not a bool), else None."""
    if type(value) is int:
        return float(value) if value.bit_length() <= 1000 else None
    if type(value) is float and math.isfinite(value):
        return value
    return None


def evaluate_positions(evaluate: Callable[[Any, Any], Any], game: Any, ids: Sequence[str],
                       calls: int, seed: int, reseed: Callable[[str], None],
                       counter: Counter | None = None) -> list[float]:
    """``[evaluate(view, state) for each id]``, each a finite float.

    ``reseed`` seeds the global ``random`` (the worker passes the ``random.seed`` it captured
    before the submission's import). Raises what ``evaluate`` raises, ``BudgetExceeded``
    (``counter.stopped_at`` says where) and :class:`EvaluationError`.
    """
    counter = counter or Counter()
    view = evaluation_game(game, calls, counter)
    values = []
    for index, state_id in enumerate(ids):
        counter.position = index
        state = game.state_from_id(state_id)
        counter.calls = 0
        reseed(f"{seed}:{state_id}")
        value = evaluate(view, state)
        number = checked_number(value)
        if number is None:
            shown = repr(value) if type(value) in (int, float, bool) else type(value).__name__
            raise EvaluationError(
                f"evaluate returned {shown[:100]} at position {state_id!r}; expected a finite "
                "number (an int or a float)", index)
        values.append(number)
        counter.total += 1  # progress even for an evaluation that makes no game call
    return values


__all__ = ["MAX_POSITIONS", "Counter", "EvaluationError", "EvaluationGame", "checked_number",
           "evaluate_positions", "evaluation_game"]
