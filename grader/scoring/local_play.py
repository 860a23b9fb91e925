"""``grader play``: the student's OWN search plays the handout's ``evaluate`` matches.

The local loop of the ``evaluate`` assignment. The autograder's search and its baseline opponent
are not in the handout; this plays with what is: the student's ``alpha_beta`` (at the rubric's
depth) calling the student's ``evaluate`` at its cutoff, against the shipped random and greedy
players (:mod:`grader.games.players`), both sides, seeded as the autograder seeds its matches.

* A move of the player under test: for each action in ``actions`` order, the value
  ``alpha_beta(game, child, -inf, inf, 1)`` on a view of the game whose ``depth_limit`` is the
  depth, whose ``is_cutoff(state, depth)`` is "terminal or ``depth >= depth_limit``", and whose
  ``evaluate`` (and ``utility``) scores a terminal position ``+inf`` (x won), ``-inf`` (o won) or
  0 (a draw), so an outcome the search sees outranks any evaluation, and any other position by
  the student's ``evaluate`` (finite numbers only, ``random`` seeded by position, at most
  ``[play] calls`` game calls an evaluation, as in grading). The best value for the player to
  move wins; ties go to the first action.
* Every match runs in this process, in the student's own code: a local tool for one's own
  ``search.py``. Grading runs the submission in the sandbox and with the staff's search.
* The matches are the graded ones' (:func:`grader.games.players.run_match`, the same seeds and
  records, ``grader.feedback.records.records_data`` writes both), so the HTML report shows them
  alike, and with a correct ``alpha_beta`` they are move for move the autograder's.
"""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

from grader.algorithms.alpha_beta import ALGORITHM as ALPHA_BETA
from grader.algorithms.evaluate import ALGORITHM as EVALUATE
from grader.games.base import MAX
from grader.games.players import MatchRecord, run_match, simple_move
from grader.run.evaluation import Counter, checked_number, evaluation_game
from grader.run.tracing import BudgetExceeded

SEARCH_CALLS = 2_000_000  # game calls one move's search may make (a runaway search stops)


class PlayFailed(Exception):
    """The student's code failed during a match: the message says where and how."""


class _SearchGame:
    """The game as the student's ``alpha_beta`` sees it here (module docstring)."""

    def __init__(self, game: Any, depth: int, evaluate: Any, calls: int) -> None:
        self._game, self.depth_limit, self._evaluate = game, depth, evaluate
        self.players = game.players
        self.to_move, self.actions, self.is_terminal = game.to_move, game.actions, game.is_terminal
        self.chance_outcomes = lambda state: []
        self._counter = Counter()
        self._view = evaluation_game(game, calls, self._counter)
        self._calls = 0

    def result(self, state: Any, action: Any) -> Any:
        self._calls += 1
        if self._calls > SEARCH_CALLS:
            raise PlayFailed(f"alpha_beta made more than {SEARCH_CALLS:,} result calls for one "
                             "move: does it stop at the depth limit (game.is_cutoff)?")
        return self._game.result(state, action)

    def utility(self, state: Any) -> float:
        payoff = self._game.utility(state)
        return math.inf if payoff > 0 else -math.inf if payoff < 0 else 0.0

    def is_cutoff(self, state: Any, depth: int) -> bool:
        return self._game.is_terminal(state) or depth >= self.depth_limit

    def evaluate(self, state: Any) -> float:
        if self._game.is_terminal(state):
            return self.utility(state)
        state_id = self._game.state_id(state)
        self._counter.calls = 0
        random.seed(f"0:{state_id}")
        try:
            value = self._evaluate(self._view, state)
        except BudgetExceeded as stop:
            raise PlayFailed(f"evaluate at position {state_id!r}: {stop}") from None
        number = checked_number(value)
        if number is None:
            raise PlayFailed(f"evaluate returned {type(value).__name__} {value!r:.60} at position "
                             f"{state_id!r}; expected a finite number (an int or a float)")
        return number


def load_search(path: Path) -> Any:
    """The student's ``search.py`` (a file, or a folder holding one) as a module."""
    path = Path(path)
    if path.is_dir():
        path = path / "search.py"
    if not path.is_file():
        raise PlayFailed(f"no search.py at {path}")
    spec = importlib.util.spec_from_file_location("student_search_play", path)
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 - the student's code: reported, not raised
        raise PlayFailed(f"search.py could not be imported: {type(error).__name__}: {error}") \
            from None
    finally:
        sys.path.remove(folder)
    for name in (*ALPHA_BETA.stubs, *EVALUATE.stubs):
        if not callable(getattr(module, name, None)):
            raise PlayFailed(f"search.py has no function {name}; grader play calls it")
    return module


def own_move(module: Any, view: _SearchGame, state: Any) -> Any:
    """The student's search's move at ``state`` (module docstring)."""
    best_action, best = None, None
    maximizing = view.to_move(state) == MAX
    view._calls = 0
    for action in view.actions(state):
        child = view.result(state, action)
        try:
            value = module.alpha_beta(view, child, -math.inf, math.inf, 1)
        except (PlayFailed, KeyboardInterrupt):
            raise
        except NotImplementedError:
            raise PlayFailed("alpha_beta is not implemented yet: grader play plays with your "
                             "own alpha_beta calling your evaluate") from None
        except Exception as error:  # noqa: BLE001 - the student's code
            raise PlayFailed(f"alpha_beta raised {type(error).__name__}: {error}") from None
        if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
            raise PlayFailed(f"alpha_beta returned {value!r:.60}; expected a number")
        if best is None or (value > best if maximizing else value < best):
            best_action, best = action, value
    return best_action


def play_local_match(module: Any, game: Any, index: int, case_seed: int, opponent: str,
                     depth: int, opening: int, calls: int) -> MatchRecord:
    """Match ``index`` (:func:`grader.games.players.run_match`, as the autograder plays it),
    the student's own search moving for the player under test."""
    view = _SearchGame(game, depth, module.evaluate, calls)

    def own(state: Any, record: MatchRecord) -> Generator[Any, Any, Any]:
        return own_move(module, view, state)
        yield  # a generator that never yields: nothing to ask for

    def theirs(state: Any, rng: random.Random) -> Any:
        return simple_move(opponent, game, state, rng)

    match = run_match(game, index, case_seed, opponent, opening, own, theirs)
    try:
        next(match)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the local match asked for values")  # pragma: no cover


__all__ = ["SEARCH_CALLS", "PlayFailed", "load_search", "own_move", "play_local_match"]
