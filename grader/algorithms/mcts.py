"""Monte Carlo tree search: ``mcts(game, root, iterations, rng, c)`` answers with an action; any
number of players, no chance, no depth limit (a playout goes to the end of the game)."""

from __future__ import annotations

from grader.algorithms import Algorithm, Games

ALGORITHM = Algorithm(
    name="mcts",
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
)
