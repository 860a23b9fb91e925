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

Nothing here imports ``reference/``: the grader passes the staff's functions in.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
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


def children(position: str, turns: int) -> list[tuple[str, str]]:
    """``(action, child id)`` for the mover's actions at ``position`` (a chase state id), in
    ``actions`` order: the positions whose values decide a move."""
    game = Chase(position, turns=turns)
    root = game.initial_state()
    return [(action, game.state_id(game.result(root, action))) for action in game.actions(root)]


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


# --- the lectures' 2 x 2 table (rows: agents; columns: ghosts), as text ---------------------

AGENT_NAMES = {"minimax": "Minimax agent", "expectimax": "Expectimax agent"}
GHOST_NAMES = {"adversarial": "adversarial ghost", "random": "random ghost"}


def cell(stats: dict[str, Any] | None) -> str:
    """``won 3/4, avg 379.0`` (``-`` when the pairing was not played)."""
    if not stats:
        return "-"
    return f"won {stats['won']}/{stats['matches']}, avg {stats['average']:.1f}"


def table_text(reference: dict[str, dict[str, Any]],
               student: dict[str, dict[str, Any]] | None = None) -> str:
    """The 2 x 2 table as Markdown; ``reference[agent][ghost]`` and ``student[agent][ghost]``
    hold ``won``, ``matches``, ``average``. With ``student``, each ghost has two columns, the
    student's agent and the reference's (``-``: not played); then the sentence on what the
    table shows. Rows stay under 100 columns (a terminal prints them as they are)."""
    ghosts = [g for g in GHOST_NAMES if any(g in row for row in reference.values())]
    if student is None:
        head = [GHOST_NAMES[g] for g in ghosts]
    else:
        head = [words for g in ghosts for words in (f"{GHOST_NAMES[g]}: yours", "reference")]
    lines = ["| | " + " | ".join(head) + " |", "|---|" + "---|" * len(head)]
    for agent in AGENT_NAMES:
        if agent not in reference and not (student and agent in student):
            continue
        cells = []
        for ghost in ghosts:
            ref = reference.get(agent, {}).get(ghost)
            if student is not None:
                cells += [short_cell(student.get(agent, {}).get(ghost)), short_cell(ref)]
            else:
                cells.append(cell(ref))
        lines.append(f"| {AGENT_NAMES[agent]} | " + " | ".join(cells) + " |")
    if student is not None:
        lines.append("\nEach cell: matches won, average score.")
    sentence = lesson(reference)
    return "\n".join(lines) + ("\n\n" + sentence if sentence else "")


def short_cell(stats: dict[str, Any] | None) -> str:
    """``3/4, 379.0`` (``-`` when the pairing was not played)."""
    if not stats:
        return "-"
    return f"{stats['won']}/{stats['matches']}, {stats['average']:.1f}"


def lesson(table: dict[str, dict[str, Any]]) -> str:
    """One sentence or two on what ``table`` shows (optimism, pessimism), from its numbers."""
    parts = []
    minimax, expectimax = table.get("minimax", {}), table.get("expectimax", {})
    if "random" in minimax and "random" in expectimax:
        m, e = minimax["random"]["average"], expectimax["random"]["average"]
        if e > m:
            parts.append(f"Against the random ghost the expectimax agent scores more on average "
                         f"({e:.1f} against {m:.1f}): assuming the worst of a ghost that moves "
                         "at random is needlessly pessimistic.")
        else:
            parts.append(f"Against the random ghost the minimax agent scores as much or more on "
                         f"average ({m:.1f} against {e:.1f}) on these matches.")
    if "adversarial" in minimax and "adversarial" in expectimax:
        m, e = minimax["adversarial"]["won"], expectimax["adversarial"]["won"]
        n = minimax["adversarial"]["matches"]
        if m >= e:
            parts.append(f"Against the adversarial ghost the minimax agent wins at least as "
                         f"often ({m}/{n} against {e}/{n}): assuming chance of a ghost that "
                         "hunts you is dangerously optimistic.")
        else:
            parts.append(f"Against the adversarial ghost the expectimax agent won more often "
                         f"({e}/{n} against {m}/{n}) on these matches.")
    return " ".join(parts)



__all__ = ["AGENT_NAMES", "GHOSTS", "GHOST_NAMES", "TIE", "ChaseMatch", "Decision", "cell",
           "children", "choose", "lesson", "match_stats", "play_chase", "short_cell", "start_position",
           "table_text"]
