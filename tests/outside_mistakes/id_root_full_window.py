# iterative_deepening whose root loop calls `alpha_beta(g, child)` with the defaults: every
# root child is searched with the full window, and the root never prunes ("a fresh alpha-beta
# search" read as a fresh search of each child).
import math

from grader.games import MAX


def iterative_deepening(game, state, max_depth):
    if game.is_cutoff(state, 0):
        return game.evaluate(state), None
    player = game.to_move(state)
    actions = list(game.actions(state))
    order = actions
    for limit in range(1, max_depth + 1):
        g = game.with_depth_limit(limit)
        values = {}
        best, v = None, None
        for action in order:
            child_value = alpha_beta(g, g.result(state, action), depth=1)  # noqa: F821
            values[action] = child_value
            if best is None or (child_value > v if player == MAX else child_value < v):
                v, best = child_value, action
        order = sorted(actions, key=lambda a: -values[a] if player == MAX else values[a])
    return v, best
