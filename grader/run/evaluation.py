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
  (``evaluate`` and ``is_cutoff`` are absent: the point is to write one's own);
* the view's methods are bound to a *sealed* game (:func:`sealed_game`), never the grader's
  own: its ``result``/``utility`` and their hooks ``_result``/``_utility`` are counted, its
  ``evaluate``, ``_heuristic``, ``is_cutoff`` and recording wrappers refused
  (:class:`SealedGameError`). So ``game.board.__self__``, a closure, a frame's locals or
  ``gc`` reach only that game (issue 40: ``game.board.__self__._heuristic`` scored leaves one
  ply deeper, uncounted, and earned 13.5 of 14 points). In the worker the game built for the
  request is sealed in place (``own_game``): no unsealed instance of it exists. The game's
  class, importable from ``grader/games`` as the handout ships it, can still build an
  uncounted game: that is the student's own code, as a copy of the rules would be
  (docs/security.md);
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

import copy
import math
from typing import Any, Callable, Sequence

from grader.games.base import EVALUATE
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


class SealedGameError(Exception):
    """A part of the grader's game that ``evaluate`` may not use (its built-in heuristic)."""


# The sealed game's counted calls (each the first of a nest: ``result`` calling ``_result``
# is one call) and the ones it refuses: the heuristic and every way to it, and the wrappers
# that would hand out the uncounted methods.
COUNTED = ("result", "utility", "_result", "_utility")
REFUSED = (EVALUATE, "_heuristic", "is_cutoff", "recording_result", "recording_score")


def sealed_game(game: Any, calls: int, counter: Counter, *, in_place: bool = False) -> Any:
    """``game`` (a copy, or itself when ``in_place``) as an instance of a subclass whose
    :data:`COUNTED` methods spend one of ``calls`` (counted in ``counter``, reset by the
    caller before each position; the call past it raises
    :class:`~grader.run.tracing.BudgetExceeded`) and whose :data:`REFUSED` methods raise
    :class:`SealedGameError`. States are shared with ``game``."""
    base = type(game)
    busy = [False]  # inside a counted call: the base's own nested calls are not counted again

    def spend() -> None:
        if counter.stopped_at is not None or counter.calls >= calls:
            if counter.stopped_at is None:
                counter.stopped_at = counter.position
            raise BudgetExceeded(f"passed the budget of {calls} `result`/`utility` calls "
                                 "of one evaluation")
        counter.calls += 1
        counter.total += 1

    def counted(name: str) -> Callable[..., Any]:
        inner = getattr(base, name)

        def call(self: Any, *args: Any) -> Any:
            if busy[0]:
                return inner(self, *args)
            spend()
            busy[0] = True
            try:
                return inner(self, *args)
            finally:
                busy[0] = False

        call.__name__ = call.__qualname__ = name
        return call

    def refused(name: str) -> Callable[..., Any]:
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            raise SealedGameError(f"game.{name} is the grader's, not part of the game evaluate "
                                  "gets: write your own evaluation")

        call.__name__ = call.__qualname__ = name
        return call

    members: dict[str, Any] = {"__slots__": (), "__module__": __name__}
    members.update({name: counted(name) for name in COUNTED if hasattr(base, name)})
    members.update({name: refused(name) for name in REFUSED if hasattr(base, name)})
    sealed_class = type(f"Sealed{base.__name__}", (base,), members)
    sealed = game if in_place else copy.copy(game)
    sealed.__class__ = sealed_class
    return sealed


def evaluation_game(game: Any, calls: int, counter: Counter, *,
                    in_place: bool = False) -> EvaluationGame:
    """The view of ``game`` an evaluation gets: at most ``calls`` result/utility calls (counted
    in ``counter``, reset by the caller before each position), every method bound to the
    :func:`sealed_game` (``in_place``: ``game`` itself, sealed for good)."""
    sealed = sealed_game(game, calls, counter, in_place=in_place)
    view = object.__new__(EvaluationGame)
    for name, value in {
        "players": sealed.players, "rows": sealed.rows, "columns": sealed.columns,
        "connect": sealed.connect, "to_move": sealed.to_move, "actions": sealed.actions,
        "result": sealed.result, "is_terminal": sealed.is_terminal, "utility": sealed.utility,
        "board": sealed.board,
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
                       counter: Counter | None = None, *, own_game: bool = False
                       ) -> list[float]:
    """``[evaluate(view, state) for each id]``, each a finite float.

    ``own_game``: ``game`` was built for this batch alone (the worker's), and is sealed in
    place (:func:`sealed_game`); else a sealed copy is made and ``game`` stays the caller's.

    ``reseed`` seeds the global ``random`` (the worker passes the ``random.seed`` it captured
    before the submission's import). Raises what ``evaluate`` raises, ``BudgetExceeded``
    (``counter.stopped_at`` says where) and :class:`EvaluationError`.
    """
    counter = counter or Counter()
    view = evaluation_game(game, calls, counter, in_place=own_game)
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


__all__ = ["COUNTED", "MAX_POSITIONS", "REFUSED", "Counter", "EvaluationError", "EvaluationGame",
           "SealedGameError", "checked_number", "evaluate_positions", "evaluation_game",
           "sealed_game"]
