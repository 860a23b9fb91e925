"""What can be graded: the algorithm names a case lists (from :mod:`grader.algorithms`), and how an
``mcts`` case calls the search.

Kept apart from the case loader so that everything that runs a search (the reference, the
sandbox worker, the known-mistake variants) can name algorithms without loading the schema.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import grader.algorithms as algorithm_specs
from grader.algorithms.alpha_beta import ALGORITHM as ALPHA_BETA
from grader.algorithms.assumptions import agent_algorithm
from grader.games.chase_matches import GHOSTS
from grader.algorithms.minimax import ALGORITHM as MINIMAX

# Every list below is derived from the specs (grader.algorithms: one module an algorithm),
# in the registry's order; a branch that needs more asks the spec (grader.algorithms.get).
ALGORITHMS = algorithm_specs.names()

# Graded by play, not by a trace: the grader's search plays matches and calls the student's
# ``evaluate(game, state)`` at its depth cutoff (:mod:`grader.scoring.play`). No reference
# answer, no trace, no named mistake.
PLAY_ALGORITHMS = tuple(n for n in ALGORITHMS if algorithm_specs.get(n).by_play)
PLAY_GAMES = ("connect4", "mnk")  # built-in games with a board view (``game.board``)
OPPONENTS = ("random", "greedy", "baseline")

# ``assumptions``: the lectures' "modeling assumptions", graded by exact decisions in matches
# of the game ``chase`` (:mod:`grader.scoring.assumptions`): the agent's moves come from the
# student's own ``alpha_beta`` (or ``max_value``/``min_value``) or ``expectimax``.
ASSUMPTION_GHOSTS = GHOSTS  # the ghosts a case meets unless it names some
ASSUMPTION_GAME = "chase"

# Those returning ``(value, action)``: a run's ``value`` is that pair.
PAIR_ALGORITHMS = tuple(n for n in ALGORITHMS if algorithm_specs.get(n).returns_pair)

# Those called with a fresh dict (the transposition table they fill).
TABLE_ALGORITHMS = tuple(n for n in ALGORITHMS if algorithm_specs.get(n).takes_table)

# Those the random-tree tests can draw trees for (:mod:`grader.scoring.random_trees`).
RANDOM_TREE_ALGORITHMS = tuple(n for n in ALGORITHMS if algorithm_specs.get(n).random_trees)


@dataclass
class MctsSettings:
    """How an ``mcts`` case calls the function: ``mcts(game, root, iterations, rng, c)``."""

    iterations: int = 100
    seed: int = 0
    c: float = math.sqrt(2)


@dataclass
class PlaySettings:
    """How an ``evaluate`` case plays: the opponent, the seed of its matches, and overrides of
    the rubric's ``[play]`` keys (None: the rubric's)."""

    opponent: str = "random"
    seed: int = 0
    matches: int | None = None
    depth: int | None = None
    opening: int | None = None


@dataclass
class AssumptionSettings:
    """How an ``assumptions`` case plays: the agent (``minimax``: the ghost assumed an
    adversary, searched by ``search``, ``alpha_beta`` or ``minimax``; ``expectimax``: the ghost
    assumed random), the ghosts it meets, the seed of its matches, and overrides of the
    rubric's ``[assumptions]`` keys (None: the rubric's)."""

    agent: str = MINIMAX.name
    opponents: tuple[str, ...] = ASSUMPTION_GHOSTS
    seed: int = 0
    matches: int | None = None
    depth: int | None = None
    search: str = ALPHA_BETA.name

    def __post_init__(self) -> None:
        self.opponents = tuple(self.opponents)

    @property
    def algorithm(self) -> str:
        """The case algorithm whose student function decides the agent's moves."""
        return agent_algorithm(self.agent, self.search)
