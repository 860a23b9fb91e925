"""Matches for the ``evaluate`` assignment: the opponents and one match.

Convention (the student stub ``evaluate`` states what a student needs of it):

* The player under test moves by :mod:`reference.play_search` (minimax's move at ``depth``
  plies, found by alpha-beta at the root; outcomes outrank every evaluation; its module
  docstring has the whole convention).
* Opponents (``OPPONENTS``): ``random`` (uniform over ``actions``, from the match's seeded
  ``random.Random``); ``greedy`` (a move that wins at once, the first in actions order; else,
  when some moves let the opponent win at once and others do not, a random one of those that
  do not, which blocks a single threat; else a random move); ``baseline`` (the same search at
  the same depth with :func:`baseline_evaluation`, the staff's plain one: the move of
  ``search_move``). The grader's matches find the baseline's and the greedy player's moves on
  the board's cells (:mod:`reference.grid_opponents`: the same moves, the same draws).
* A match: ``opening`` plies of uniform random moves (both sides, from the match seed: the
  matches of a case start from different positions), then the two players alternately until
  the game ends. Match ``i`` of a case uses seed ``case seed * 1000 + i``; the player under
  test is ``x`` in even matches and ``o`` in odd ones.
* :func:`play_match` is a generator: for each round of the player under test's search it
  yields the positions to evaluate (a non-empty list of states) and is sent their values back,
  so the grader can evaluate the positions of many matches in one request to the sandbox
  worker.

The search lives in ``reference/``, never in the handout: ``grader/`` holds no search of its own.
The staff's evaluations are :mod:`reference.evaluations`.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Sequence
from typing import Any

from grader.games.players import (
    SIMPLE_OPPONENTS,
    MatchRecord,
    greedy_move,
    match_seed,
    run_match,
    simple_move,
)
from reference.grid_opponents import baseline_move, reference_values
from reference.grid_opponents import greedy_move as grid_greedy_move
from reference.evaluations import baseline_evaluation, reference_evaluation
from reference.play_search import (
    Decision,
    Value,
    best_action,
    cutoff_positions,
    search,
    search_in_full,
    search_move,
    search_values,
)

OPPONENTS = ("random", "greedy", "baseline")


# --- the opponents (grader.games.players, shipped; on the cells: reference.grid_opponents) ---


def opponent_move(kind: str, game: Any, state: Any, rng: random.Random, depth: int) -> Any:
    if kind == "greedy":
        return grid_greedy_move(game, state, rng)
    if kind in SIMPLE_OPPONENTS:
        return simple_move(kind, game, state, rng)
    if kind == "baseline":
        return baseline_move(game, state, depth)
    raise ValueError(f"expected an opponent, one of {OPPONENTS}, got: {kind!r}")


# --- one match ------------------------------------------------------------------------------


def play_match(game: Any, index: int, case_seed: int, opponent: str, depth: int, opening: int
               ) -> Generator[list[Any], Sequence[float], MatchRecord]:
    """Play match ``index`` (module docstring; the match itself is
    :func:`grader.games.players.run_match`, shipped: ``grader play`` runs it with the student's
    own search); yields positions to evaluate, gets their values, returns the
    :class:`MatchRecord`."""

    def searched(state: Any, record: MatchRecord) -> Generator[list[Any], Sequence[float], Any]:
        decision = yield from search(game, state, depth)
        record.decisions.append(decision)
        return decision.action

    def theirs(state: Any, rng: random.Random) -> Any:
        return opponent_move(opponent, game, state, rng, depth)

    return (yield from run_match(game, index, case_seed, opponent, opening, searched, theirs))


def losing_choice(game: Any, record: MatchRecord, depth: int
                  ) -> tuple[Decision, dict[Any, Value]] | None:
    """The last move of a lost match where the search with :func:`reference_evaluation` would
    have moved elsewhere: that decision and the staff search's values of every move there."""
    for decision in reversed(record.decisions):
        state = game.state_from_id(decision.position)
        searched = search_in_full(game, state, depth)
        known = reference_values(game, state, depth)  # a grid game's, from state's: quicker
        staff = searched.values({key: reference_evaluation(game, p) if known is None
                                 else known["".join(game.board(p))]
                                 for key, p in searched.positions.items()})
        if best_action(game, state, staff) != decision.action and \
                staff[best_action(game, state, staff)] != staff[decision.action]:
            return decision, staff
    return None


# The grader and the tests reach the search and the evaluations through this module too.
__all__ = [
    "OPPONENTS", "Decision", "MatchRecord", "Value", "baseline_evaluation", "best_action",
    "cutoff_positions", "greedy_move", "losing_choice", "match_seed", "opponent_move",
    "play_match", "reference_evaluation", "search", "search_in_full", "search_move",
    "search_values",
]
