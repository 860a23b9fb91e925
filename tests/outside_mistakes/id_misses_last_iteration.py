# iterative_deepening whose loop over depths is `range(1, max_depth)`: "for each limit in
# 1, 2, ..., max_depth" written with Python's exclusive end, so max_depth is never searched
# (and with max_depth 1 no iteration runs: `v` is never set).
import math

from grader.games import MAX


def iterative_deepening(game, state, max_depth):
    if game.is_cutoff(state, 0):
        return game.evaluate(state), None
    player = game.to_move(state)
    actions = list(game.actions(state))
    order = actions
    for limit in range(1, max_depth):
        g = game.with_depth_limit(limit)
        alpha, beta = -math.inf, math.inf
        v = -math.inf if player == MAX else math.inf
        best, values = None, {}
        for action in order:
            child_value = alpha_beta(g, g.result(state, action), alpha, beta, 1)  # noqa: F821
            values[action] = child_value
            if player == MAX:
                if best is None or child_value > v:
                    v, best = child_value, action
                if v >= beta:
                    break
                alpha = max(alpha, v)
            else:
                if best is None or child_value < v:
                    v, best = child_value, action
                if v <= alpha:
                    break
                beta = min(beta, v)
        sign = -1 if player == MAX else 1
        order = sorted(actions, key=lambda a: (a not in values, sign * values.get(a, 0)))
    return v, best
