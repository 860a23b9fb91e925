"""One match of the modeling-assumptions cases: an agent against a ghost in ``chase``.

* Start: the case's board with its ghost moved to a square drawn from the match's seeded
  ``random.Random`` (``match_seed(case seed, index)``): an open square without food at maze
  distance at least ``START_DISTANCE`` from the agent (fewer when the board has none so far),
  so matches differ and a regrade repeats them exactly.
* The agent moves by its decision: ``agent_values(position id)`` gives each action's value,
  the first action of largest value is played (ties within ``TIE``, kept by the first).
  ``expected_values`` (optional) gives the reference's values at the same position: both
  are kept in the match's :class:`Decision` list, which is what the grader compares.
* The ghost: ``random`` (uniform over its legal moves, from the same seeded generator) or
  ``adversarial`` (``ghost_move(position id)``, the staff's search; not in the handout).

Nothing here imports ``reference/``: the grader passes the staff's functions in. The agent is
a name passed in too (the agents and the lectures' 2 x 2 table of their matches, as text, are
:mod:`grader.algorithms.assumptions`'s: their names are algorithms', which games do not know).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from grader.games.base import MAX
from grader.games.chase import Chase
from grader.games.players import match_seed

GHOSTS = ("adversarial", "random")
START_DISTANCE = 3
TIE = 1e-9  # values closer than this are equal when a move is chosen

Values = list[tuple[str, float]]


def choose(values: Values, *, smallest: bool = False) -> str:
    """The first action of largest (``smallest``: least) value; values within ``TIE`` of the
    best so far tie."""
    best_action, best = values[0]
    for action, value in values[1:]:
        if (value < best - TIE) if smallest else (value > best + TIE):
            best_action, best = action, value
    return best_action


@dataclass
class Decision:
    """One move of the agent: the position, its values of each action and its move, with the
    reference's beside them when the grader asked for them."""

    position: str
    values: Values
    move: str
    expected_values: Values | None = None
    expected: str | None = None

    @property
    def agrees(self) -> bool:
        return self.expected is None or self.move == self.expected


@dataclass
class ChaseMatch:
    """A finished (or stopped) match."""

    index: int
    seed: int
    agent: str  # minimax or expectimax
    opponent: str  # adversarial or random
    start: str
    moves: list[tuple[str, str]] = field(default_factory=list)  # ("P" | "G", action)
    positions: list[str] = field(default_factory=list)  # before each move, then the end
    decisions: list[Decision] = field(default_factory=list)
    final: str = ""
    outcome: str = ""  # win, loss or draw (the agent's); "" when stopped
    score: int = 0

    @property
    def first_difference(self) -> Decision | None:
        return next((d for d in self.decisions if not d.agrees), None)


@lru_cache(maxsize=20_000)
def children(position: str, turns: int) -> tuple[tuple[str, str], ...]:
    """``(action, child id)`` for the mover's actions at ``position`` (a chase state id), in
    ``actions`` order: the positions whose values decide a move. Memoised: the reference's
    matches, the student's and the children asked ahead meet the same positions."""
    game = Chase(position, turns=turns)
    root = game.initial_state()
    return tuple((action, game.state_id(game.result(root, action)))
                 for action in game.actions(root))


def start_position(game: Chase, rng: random.Random) -> Any:
    """The case's root with the ghost on a square drawn by ``rng`` (module docstring)."""
    root = game.initial_state()
    size = game.rows * game.columns
    squares = [i for i in game.open_squares() if i not in root.food and i != root.pac
               and game.maze_distance(root.pac, i) <= size]
    if not squares:
        return root
    most = max(game.maze_distance(root.pac, i) for i in squares)
    far = [i for i in squares if game.maze_distance(root.pac, i) >= min(START_DISTANCE, most)]
    return root._replace(ghost=rng.choice(far))


def play_chase(game: Chase, index: int, case_seed: int, agent: str, opponent: str,
               agent_values: Callable[[str], Values],
               ghost_move: Callable[[str], str] | None = None,
               expected_values: Callable[[str], Values] | None = None,
               stop_at_difference: bool = False) -> ChaseMatch:
    """Match ``index`` of a case (module docstring). ``agent_values`` may raise: the match
    is then unfinished and the exception propagates. ``stop_at_difference``: end the match at
    the first move that differs from the reference's (its outcome stays "")."""
    if opponent not in GHOSTS:
        raise ValueError(f"expected a ghost, one of {GHOSTS}, got: {opponent!r}")
    if opponent == "adversarial" and ghost_move is None:
        raise ValueError("the adversarial ghost is the staff's search: pass ghost_move")
    seed = match_seed(case_seed, index)
    rng = random.Random(seed)
    state = start_position(game, rng)
    match = ChaseMatch(index, seed, agent, opponent, game.state_id(state))
    while not game.is_terminal(state):
        position = game.state_id(state)
        match.positions.append(position)
        if state.mover == MAX:
            values = agent_values(position)
            decision = Decision(position, values, choose(values))
            if expected_values is not None:
                decision.expected_values = expected_values(position)
                decision.expected = choose(decision.expected_values)
            match.decisions.append(decision)
            action, who = decision.move, "P"
            if stop_at_difference and not decision.agrees:
                match.final = position
                match.score = state.score
                return match
        elif opponent == "random":
            action, who = rng.choice(list(game.actions(state))), "G"
        else:
            action, who = ghost_move(position), "G"  # type: ignore[misc]
        match.moves.append((who, action))
        state = game.result(state, action)
    match.final = game.state_id(state)
    match.positions.append(match.final)
    match.outcome, match.score = game.outcome(state), state.score
    return match


def match_stats(matches: list[ChaseMatch]) -> dict[str, Any]:
    """``won``, ``matches`` and ``average`` score of finished matches."""
    return {"won": sum(m.outcome == "win" for m in matches), "matches": len(matches),
            "average": round(sum(m.score for m in matches) / len(matches), 6) if matches else 0}


__all__ = ["GHOSTS", "TIE", "ChaseMatch", "Decision", "children", "choose", "match_stats",
           "play_chase", "start_position"]
