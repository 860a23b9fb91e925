# iterative_deepening that calls `alpha_beta(g, child, alpha, beta)` without the depth, so
# each root child is searched from depth 0 ("a fresh alpha-beta search ... from state
# (depth 0)"): one ply deeper than the iteration's limit.
import math

from grader.games import MAX


def iterative_deepening(game, state, max_depth):
    if game.is_cutoff(state, 0):
        return game.evaluate(state), None
    player = game.to_move(state)
    actions = list(game.actions(state))
    order = list(actions)
    result = None
    for limit in range(1, max_depth + 1):
        g = game.with_depth_limit(limit)
        alpha, beta = -math.inf, math.inf
        v = -math.inf if player == MAX else math.inf
        best = None
        values = {}
        for action in order:
            child_value = alpha_beta(g, g.result(state, action), alpha, beta)  # noqa: F821
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
        result = (v, best)
        sign = -1 if player == MAX else 1
        order = sorted(actions, key=lambda a: (a not in values, sign * values.get(a, 0)))
    return result
