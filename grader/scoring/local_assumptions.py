"""``grader play`` on ``assumptions`` cases: the student's OWN searches make the lectures' table.

The handout has no reference, so no reference moves to grade against; this plays what can be
played with the student's code alone, in this process: the minimax agent (each action's value
from the student's ``alpha_beta`` on the child, the ghost typed MIN) and the expectimax agent
(the student's ``expectimax``, the ghost typed CHANCE, uniform), each against the random ghost
(seeded as the autograder seeds it) and an adversarial ghost. The adversarial ghost is the
staff's search when ``reference/`` is installed (as the autograder plays it); in the handout it
is the student's own ``alpha_beta`` from the ghost's side, at the rubric's ``ghost_depth``, so
with a correct ``alpha_beta`` it makes the staff's moves. The result is the 2 x 2 table (matches
won, average score). A local tool for one's own ``search.py``: grading runs the submission in
the sandbox and compares every move with the reference's.
"""

from __future__ import annotations

import importlib.util
import math
from typing import Any

import grader.algorithms as algorithm_specs
from grader.algorithms.alpha_beta import ALGORITHM as ALPHA_BETA
from grader.algorithms.assumptions import GHOST_TYPES, agent_algorithm
from grader.games.base import MIN
from grader.games.chase import Chase
from grader.games.chase_matches import children, choose, match_stats, play_chase
from grader.scoring.local_play import PlayFailed

SEARCH_CALLS = 2_000_000  # game calls one position's search may make (a runaway stops)


class _Capped(Chase):
    """Chase stopping a search that makes more than ``SEARCH_CALLS`` ``result`` calls."""

    calls = 0

    def result(self, state: Any, action: Any) -> Any:
        self.calls += 1
        if self.calls > SEARCH_CALLS:
            raise PlayFailed(f"a search made more than {SEARCH_CALLS:,} result calls for one "
                             f"position ({self.state_id(self.initial_state())!r})")
        return super().result(state, action)


def _search_value(module: Any, algorithm: str, child: str, ghost: str, turns: int,
                  depth: int) -> float:
    game = _Capped(child, ghost=ghost, turns=turns, depth_limit=depth)
    root = game.initial_state()
    # the algorithm's stub for the mover at the root (minimax: max_value / min_value)
    function = algorithm_specs.registry()[algorithm].stub_at(game.to_move(root) == MIN)
    search = getattr(module, function, None)
    if not callable(search):
        raise PlayFailed(f"search.py has no function {function}")
    try:
        value = search(game, root)
    except PlayFailed:
        raise
    except Exception as error:  # noqa: BLE001 - the student's code: said, with where
        raise PlayFailed(f"{function} raised {type(error).__name__}: {error} at chase position "
                         f"{child!r}") from error
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PlayFailed(f"{function} returned {value!r}, not a finite number, at chase "
                         f"position {child!r}")
    return float(value)


def local_table(module: Any, case: Any, rubric: Any, matches: int | None = None
                ) -> tuple[dict[str, dict[str, Any]], str]:
    """The student's 2 x 2 table on ``case``'s matches, and who the adversarial ghost was."""
    settings, rules = case.assumptions, rubric.assumptions
    count = matches or settings.matches or rules.matches
    depth = settings.depth or rules.depth
    turns = int((case.params or {}).get("turns", 20))
    game = case.build_game()
    staff = importlib.util.find_spec("reference") is not None
    if staff:
        from reference.assumptions import ghost_move as staff_ghost

        def ghost(position: str) -> str:
            return staff_ghost(position, turns, rules.ghost_depth)
        who = "the staff's search"
    else:
        def ghost(position: str) -> str:
            values = [(action, _search_value(module, ALPHA_BETA.name, child, "min", turns,
                                             rules.ghost_depth - 1))
                      for action, child in children(position, turns)]
            return choose(values, smallest=True)
        who = "your own alpha_beta, from the ghost's side"
    table: dict[str, dict[str, Any]] = {}
    for agent, kind in GHOST_TYPES.items():
        algorithm = agent_algorithm(agent, settings.search)

        def values(position: str, algorithm: str = algorithm, kind: str = kind) -> list:
            return [(action, _search_value(module, algorithm, child, kind, turns, depth - 1))
                    for action, child in children(position, turns)]

        table[agent] = {
            opponent: match_stats([play_chase(game, index, settings.seed, agent, opponent,
                                              values, ghost) for index in range(count)])
            for opponent in settings.opponents}
    return table, who


__all__ = ["local_table"]
