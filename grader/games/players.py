"""The simple opponents of the ``evaluate`` matches, shipped in the handout (``grader play``).

* ``random``: uniform over ``actions``, from the match's seeded ``random.Random``.
* ``greedy``: a move that wins at once, the first in actions order; else, when some moves let
  the opponent win at once and others do not, a random one of those that do not (which blocks a
  single threat); else a random move.

The third opponent, ``baseline`` (the staff's search with the staff's plain evaluation), is in
``reference/``, never in the handout.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from grader.games.base import MAX

SIMPLE_OPPONENTS = ("random", "greedy")


def wins_at_once(game: Any, state: Any, action: Any) -> bool:
    """Whether ``action`` ends the game with a win for the player to move."""
    return _won(game, game.result(state, action), game.to_move(state))


def _won(game: Any, child: Any, mover: Any) -> bool:
    """Whether ``child`` ends the game with a win for ``mover``, who moved to it."""
    if not game.is_terminal(child):
        return False
    payoff = game.utility(child)
    return payoff > 0 if mover == MAX else payoff < 0


def greedy_move(game: Any, state: Any, rng: random.Random) -> Any:
    """Win at once if possible; else avoid the moves that let the opponent win at once."""
    actions = list(game.actions(state))
    result, mover = game.result, game.to_move(state)
    children = [result(state, action) for action in actions]  # each made once, used twice
    for action, child in zip(actions, children):
        if _won(game, child, mover):
            return action
    safe = []
    for action, child in zip(actions, children):
        if game.is_terminal(child):
            safe.append(action)
            continue
        replier = game.to_move(child)
        if not any(_won(game, result(child, reply), replier) for reply in game.actions(child)):
            safe.append(action)
    return rng.choice(safe if safe and len(safe) < len(actions) else actions)


def match_seed(case_seed: int, index: int) -> int:
    """The seed of match ``index`` of a case (its opening, its opponent's random choices)."""
    return case_seed * 1000 + index


def simple_move(kind: str, game: Any, state: Any, rng: random.Random) -> Any:
    """The move of opponent ``kind`` (``random`` or ``greedy``)."""
    if kind == "random":
        return rng.choice(list(game.actions(state)))
    if kind == "greedy":
        return greedy_move(game, state, rng)
    raise ValueError(f"expected an opponent, one of {SIMPLE_OPPONENTS}, got: {kind!r}")


@dataclass
class MatchRecord:
    """A finished match, as the grader reports it (the graded matches' and ``grader play``'s)."""

    index: int
    seed: int
    side: str  # "x" or "o": the player under test
    opponent: str
    start: str  # the position after the opening
    moves: list[tuple[str, Any]] = field(default_factory=list)  # (mark, action), opening first
    opening: int = 0  # how many of ``moves`` were the random opening
    decisions: list[Any] = field(default_factory=list)  # the staff search's, when it played
    positions: list[str] = field(default_factory=list)  # before each move, then the end
    final: str = ""
    outcome: str = ""  # "win", "draw" or "loss" for the player under test


OwnMove = Callable[[Any, MatchRecord], Generator[Any, Any, Any]]


def run_match(game: Any, index: int, case_seed: int, opponent: str, opening: int,
              own_move: OwnMove, their_move: Callable[[Any, random.Random], Any]
              ) -> Generator[Any, Any, MatchRecord]:
    """Match ``index`` of a case: ``opening`` uniform random plies (both sides, from the match
    seed's ``random.Random``), then the player under test (``x`` in even matches, ``o`` in odd
    ones) and the opponent alternately until the game ends. ``own_move(state, record)`` is a
    generator returning the player under test's action (whatever it yields is passed through:
    the grader's requests for values); ``their_move(state, rng)`` the opponent's."""
    seed = match_seed(case_seed, index)
    rng = random.Random(seed)
    side = "x" if index % 2 == 0 else "o"
    mover = MAX if side == "x" else 1 - MAX
    state = game.initial_state()
    record = MatchRecord(index, seed, side, opponent, "", opening=0)
    for _ in range(opening):
        if game.is_terminal(state):
            break
        action = rng.choice(list(game.actions(state)))
        record.positions.append(game.state_id(state))
        record.moves.append((mark_to_move(game, state), action))
        record.opening += 1
        state = game.result(state, action)
    record.start = game.state_id(state)
    while not game.is_terminal(state):
        record.positions.append(game.state_id(state))
        if game.to_move(state) == mover:
            action = yield from own_move(state, record)
        else:
            action = their_move(state, rng)
        record.moves.append((mark_to_move(game, state), action))
        state = game.result(state, action)
    record.final = game.state_id(state)
    mine = game.utility(state) * (1 if side == "x" else -1)  # the player under test's
    record.outcome = "win" if mine > 0 else "loss" if mine < 0 else "draw"
    return record


def mark_to_move(game: Any, state: Any) -> str:
    """``x`` or ``o``: the mark of the player to move."""
    return "x" if game.to_move(state) == MAX else "o"


__all__ = ["SIMPLE_OPPONENTS", "MatchRecord", "greedy_move", "mark_to_move", "match_seed",
           "run_match", "simple_move", "wins_at_once"]
