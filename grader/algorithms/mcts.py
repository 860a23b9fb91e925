"""Monte Carlo tree search: ``mcts(game, root, iterations, rng, c)`` answers with an action; any
number of players, no chance, no depth limit (a playout goes to the end of the game)."""

from __future__ import annotations

from grader.algorithms import Algorithm, Authoring, Games

# One name for its settings (iterations, seed, c, check): the case file's field, the
# ``Case`` attribute and the worker request's key.
SETTINGS_FIELD = "mcts"

ALGORITHM = Algorithm(
    name="mcts",
    settings=SETTINGS_FIELD,
    order=5,
    depth_limit_why="plays out to the end of the game, so an mcts case cannot have a depth limit",
    stubs=("mcts",),
    call="iterations",
    returns="action",
    games=Games(two_player=False, depth_limit="forbidden"),
    reference={"mcts": "reference.mcts:mcts"},
    steps="reference.steps:mcts_steps",
    step_notes="playouts",
    mistakes="reference.mistakes_other",
    view="statistics",
    # a skeleton's own settings: 100 iterations under seed 0, graded by its exact tree
    authoring=Authoring(fields={SETTINGS_FIELD: {"iterations": 100, "seed": 0,
                                                 "check": "trace"}}),
)
